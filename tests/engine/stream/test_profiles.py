"""Profiles keep why their allocation was chosen; a profile saved before reasons were kept still loads."""

import json
from dataclasses import asdict

from engine.stream.profiles import Allocation, CalibrationRow, Profile, load_profile, machine_id, save_profile


def test_a_profile_keeps_its_reason_and_an_older_one_loads_without(isolated_dirs):
    rows = [CalibrationRow(Allocation(False, 1), 0.83, 1.2, 0.05, 0.86, 7.8, "test meter")]
    profile = Profile(machine_id(), "tiny.en", Allocation(False, 1), rows, reason="1 thread: the least power")
    path = save_profile(profile)
    assert load_profile("tiny.en") == profile
    older = asdict(profile)
    del older["reason"]
    path.write_text(json.dumps(older))
    assert load_profile("tiny.en") == Profile(machine_id(), "tiny.en", Allocation(False, 1), rows, profile.created)

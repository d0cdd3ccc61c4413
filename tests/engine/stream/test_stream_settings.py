"""The one declaration of the stream settings, and what is derived from it: checks, policies, the README's table."""

from dataclasses import fields
from pathlib import Path

import pytest

import engine.stream.settings as declared
from engine.errors import SettingsError
from engine.stream.config import StreamConfig, validate_stream_config
from engine.stream.policies import DEFAULT_POLICY, POLICIES
from engine.stream.settings import GROUPS, POLICY_GROUPS, SETTING, SETTINGS, check_setting, markdown_table

README = Path(__file__).resolve().parents[3] / "README.md"
BEGIN, END = "<!-- stream-flags:begin -->\n", "<!-- stream-flags:end -->"


def test_every_streamconfig_field_is_declared_once_and_nothing_else():
    assert [s.name for s in SETTINGS] == list(SETTING)  # no name declared twice
    assert set(SETTING) == {f.name for f in fields(StreamConfig)}


def test_every_setting_has_a_flag_a_bench_key_a_group_help_and_what_it_may_be():
    assert len({s.flag for s in SETTINGS}) == len(SETTINGS)
    assert len({s.short for s in SETTINGS}) == len(SETTINGS)
    for s in SETTINGS:
        assert s.flag.startswith("--") and s.short and s.help and s.group in GROUPS, s
        if s.kind in (int, float):
            assert s.low is not None and s.high is not None and s.low < s.high, s
        elif s.kind is str:
            assert s.choices or (s.expect and s.valid), s
        else:
            assert s.kind is bool, s


def test_the_names_people_type_are_kept():
    flags = {s.name: s.flag for s in SETTINGS}
    assert flags["min_chunk_s"] == "--min-chunk" and flags["beam_size"] == "--beam"
    assert flags["guard_frames"] == "--guard" and flags["loop_tokens"] == "--loop-stop"
    assert flags["buffer_trimming_s"] == "--trim" and flags["trim_at"] == "--trim-at"
    assert flags["emit_margin_s"] == "--emit-margin" and flags["agree_gap_s"] == "--agree-gap"
    shorts = {s.name: s.short for s in SETTINGS}
    assert (shorts["emit_margin_s"], shorts["agree_gap_s"], shorts["beam_pruning"]) == ("margin", "gap", "pruning")


def test_policies_set_only_declared_settings_to_valid_values_and_flow_is_the_default():
    assert StreamConfig().policy == DEFAULT_POLICY == "flow"
    for values in POLICIES.values():
        for name, value in values.items():
            assert SETTING[name].group in POLICY_GROUPS
            check_setting(name, value)
    assert POLICIES["baseline"]["min_chunk_s"] == 1.0 and POLICIES["flow"]["min_chunk_s"] == 0.3


@pytest.mark.parametrize(
    "policy, message",
    [
        ({"min_chunk": 0.5}, "policy 'oops' sets 'min_chunk', which is not a declared stream setting"),
        ({"model": "base"}, "policy 'oops' sets 'model'"),
        ({"beam_size": 0}, r"policy 'oops': beam_size must be from 1 to 16 \(got 0\)"),
    ],
)
def test_a_policy_with_an_undeclared_or_invalid_setting_is_refused(monkeypatch, policy, message):
    monkeypatch.setitem(declared.POLICIES, "oops", policy)
    with pytest.raises((ValueError, SettingsError), match=message):
        declared._check_policies()


@pytest.mark.parametrize(
    "name, value, label, message",
    [
        ("min_chunk_s", 0, "--min-chunk", "--min-chunk must be from 0.1 to 10 s (got 0)"),
        ("min_chunk_s", "1", None, "min_chunk_s must be a number from 0.1 to 10 s (got '1')"),
        ("beam_size", 2.5, "--beam", "--beam must be a whole number from 1 to 16 (got 2.5)"),
        ("guard_frames", True, None, "guard_frames must be a whole number from 0 to 100 frames (got True)"),
        ("emit", "soon", "--emit", "--emit must be one of: agreement, alignatt, hybrid (got 'soon')"),
        ("hush", 1, None, "hush must be true or false (got 1)"),
        ("policy", None, None, "policy must be one of: baseline, flow, low-power (got None)"),
        ("model", None, "--model", "--model must be one of: tiny.en, base, mlx-community/whisper-* (got None)"),
        ("language", "klingon", None, "language must be a language Whisper knows, e.g. en, de, fr (got 'klingon')"),
    ],
)
def test_check_setting_names_the_setting_and_what_it_may_be(name, value, label, message):
    with pytest.raises(SettingsError) as caught:
        check_setting(name, value, label)
    assert str(caught.value) == message


def test_valid_values_and_none_pass():
    for name, value in [("min_chunk_s", 0.1), ("beam_size", 16), ("beam_size", 3.0), ("language", "de")]:
        check_setting(name, value)
    assert validate_stream_config(StreamConfig()) == StreamConfig()  # None: the policy decides


def test_the_readme_flag_table_is_the_generated_one():
    text = README.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"README.md lacks the markers {BEGIN.strip()} … {END}"
    in_readme = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert in_readme == markdown_table(), (
        "README.md's stream flag table differs from the declaration: replace the lines between the markers with "
        "the output of `python -m engine.stream.settings --markdown`"
    )


def test_the_table_has_a_row_per_setting_with_each_policys_value():
    rows = markdown_table().splitlines()[2:]
    assert len(rows) == len(SETTINGS)
    trim = next(r for r in rows if "`--trim S`" in r)
    assert "| from 2 to 25 s | 15 | 8 | 8 |" in trim and "`buffer_trimming_s` (`trim`)" in trim

"""`whisperflow stream`'s setting flags, derived from the declared stream settings, reach StreamConfig."""

import argparse
import re

import pytest

from cli.main import build_parser
from cli.stream import _config_from, register
from engine.errors import SettingsError
from engine.stream.config import StreamConfig
from engine.stream.settings import GROUPS, POLICY_GROUPS, SETTINGS


def config(*flags: str) -> StreamConfig:
    return _config_from(build_parser().parse_args(["stream", "clip.wav", *flags]))


def test_no_flags_give_streamconfigs_defaults_the_flow_policy():
    assert config() == StreamConfig() and config().policy == "flow"


def test_each_flag_sets_its_setting():
    given = config(
        *("--policy", "baseline", "--model", "base", "--language", "de", "--min-chunk", "0.5", "--trim", "10"),
        *("--trim-at", "segment", "--no-vad", "--hush", "--hush-min", "4", "--beam", "3", "--no-beam-pruning"),
        *("--verify", "--guard", "4", "--loop-stop", "6", "--emit", "alignatt", "--emit-margin", "0.2"),
        *("--agree-gap", "0.4", "--unsure-gap", "1", "--max-delay", "3", "--pipeline", "--threads", "2"),
        *("--handoff", "8", "--decoder", "gpu"),
    )
    assert given == StreamConfig(
        policy="baseline",
        model="base",
        language="de",
        min_chunk_s=0.5,
        buffer_trimming_s=10.0,
        trim_at="segment",
        vad=False,
        hush=True,
        hush_min_s=4.0,
        beam_size=3,
        beam_pruning=False,
        verify=True,
        guard_frames=4,
        loop_tokens=6,
        emit="alignatt",
        emit_margin_s=0.2,
        agree_gap_s=0.4,
        unsure_gap_s=1.0,
        max_delay_s=3.0,
        pipeline=True,
        blas_threads=2,
        handoff_tokens=8,
        decoder_device="gpu",
    )


def test_a_value_out_of_range_is_named_by_its_flag():
    with pytest.raises(SettingsError, match=r"^--loop-stop must be from 0 to 224 tokens \(got 300\)$"):
        config("--loop-stop", "300")


def test_the_help_lists_the_flags_by_group():
    sub = argparse.ArgumentParser().add_subparsers()
    register(sub)
    help_text = sub.choices["stream"].format_help()
    titles = [GROUPS[0], *(f"{g} settings" for g in POLICY_GROUPS)]
    starts = [help_text.index(f"\n{title}:\n") for title in titles]
    assert starts == sorted(starts)
    sections = [help_text[start:end] for start, end in zip(starts, [*starts[1:], len(help_text)])]
    for s in SETTINGS:
        assert re.search(rf"\n  {s.flag}[ ,\n]", sections[GROUPS.index(s.group)]), s.flag

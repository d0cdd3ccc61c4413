"""The bench's spec keys, derived from the declared stream settings."""

import pytest

from engine.errors import WhisperFlowError
from engine.stream.settings import SETTINGS
from tools.bench.configs import KEYS, SYNTAX_HELP, parse_config


def test_every_setting_but_the_policy_has_its_bench_key_name_and_flag_spelling():
    for s in SETTINGS:
        if s.name != "policy":
            flag = s.flag.removeprefix("--").replace("-", "_")
            assert KEYS[s.short] is KEYS[s.name] is KEYS[flag] is s
            assert s.short in SYNTAX_HELP
    assert "policy" not in KEYS


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("flow:margin=0.2,gap=0.4,unsure_gap=1", dict(emit_margin_s=0.2, agree_gap_s=0.4, unsure_gap_s=1.0)),
        ("flow:emit_margin=0.2,agree_gap_s=0.4", dict(emit_margin_s=0.2, agree_gap_s=0.4)),
        ("flow:max_delay=3,hush_min=4,loop=6,loop_stop=7", dict(max_delay_s=3.0, hush_min_s=4.0, loop_tokens=7)),
        ("flow:trim=10,trim_at=segment,chunk=0.7", dict(buffer_trimming_s=10.0, trim_at="segment", min_chunk_s=0.7)),
        ("flow:threads=1,handoff=8,decoder=gpu", dict(blas_threads=1, handoff_tokens=8, decoder_device="gpu")),
        ("baseline+pruning+verify:pruning=off", dict(beam_pruning=False, verify=True)),
    ],
)
def test_specs_set_the_settings_their_keys_name(spec, expected):
    stream = parse_config(spec).stream
    assert {name: getattr(stream, name) for name in expected} == expected


def test_the_peer_row_keeps_the_baseline_policy_and_a_policy_is_no_key():
    assert parse_config("peer").stream.policy == "baseline"
    with pytest.raises(WhisperFlowError, match="unknown setting 'policy'"):
        parse_config("flow:policy=baseline")


def test_a_row_may_replay_the_rounds_of_a_row_that_cuts_its_own():
    from tools.bench.runner import BenchPlan

    none, unrelated = parse_config("none=flow"), parse_config("unrelated=flow:words=unrelated,cuts=none")
    assert (unrelated.cuts, unrelated.words, none.cuts) == ("none", "unrelated", "")
    base = parse_config("baseline")
    plan = BenchPlan([], [none, base, unrelated], "realtime", False, "tiny.en", None, draws=2)
    assert [c.label for c in plan.configs_of_draw(1)] == ["none", "unrelated", "baseline"]
    assert [c.label for c in plan.configs_of_draw(2)] == ["baseline", "none", "unrelated"]  # right after its row
    for rows in ([unrelated], [none, parse_config("again=flow:cuts=unrelated"), unrelated]):
        with pytest.raises(WhisperFlowError, match="names no other WhisperFlow row that cuts its own rounds"):
            BenchPlan([], rows, "realtime", False, "tiny.en", None)

"""WER differences paired by draw, with a t-interval over draws, on made-up draws."""

import pytest

from engine.scoring.wer import WerCounts
from tools.bench.draws import compare_draws, paired_over_draws, t95, t_interval


def _stream(config, draw, file, errors, final_errors=None, words=100):
    record = {"config": config, "draw": draw, "file": file}
    record["wer"] = {"reference_words": words, "substitutions": errors, "deletions": 0, "insertions": 0}
    if final_errors is not None:
        record["final_wer"] = {"reference_words": words, "substitutions": final_errors, "deletions": 0, "insertions": 0}
    return record


def test_t_interval_over_draws():
    d = t_interval([1.0, 2.0, 3.0])  # mean 2, standard deviation 1, t(2) = 4.303
    assert (d.draws, d.mean) == (3, pytest.approx(2.0))
    assert (d.low, d.high) == (pytest.approx(2 - 4.303 / 3**0.5), pytest.approx(2 + 4.303 / 3**0.5))
    two = t_interval([1.0, 2.0])
    assert two.mean == pytest.approx(1.5) and two.low is None and two.high is None  # 3 draws give an interval
    assert t95(30) == pytest.approx(2.042) and t95(60) == pytest.approx(2.0003, abs=1e-3)


def test_differences_are_paired_by_draw_over_the_files_both_ran():
    row = {1: {"a": WerCounts(100, 5, 0, 0), "b": WerCounts(100, 1, 0, 0)}, 2: {"a": WerCounts(100, 6, 0, 0)}}
    reference = {1: {"a": WerCounts(100, 3, 0, 0), "b": WerCounts(100, 1, 0, 0)}, 2: {"a": WerCounts(100, 2, 0, 0)}}
    d = paired_over_draws(row, reference)
    assert d.per_draw == [pytest.approx(1.0), pytest.approx(4.0)]  # (6 - 4) / 200, (6 - 2) / 100, in points
    assert paired_over_draws(row, {3: reference[1]}) is None


def test_each_row_against_offline_and_baseline_for_both_texts():
    baseline = [_stream("baseline", d, "a", e) for d, e in ((1, 6), (2, 7), (3, 5))]
    flow = [_stream("flow", d, "a", e, f) for d, e, f in ((1, 8, 4), (2, 9, 5), (3, 10, 3))]
    offline = {"a": WerCounts(100, 4, 0, 0)}
    comparisons = compare_draws({"baseline": baseline, "flow": flow}, {"baseline": offline, "flow": offline})
    by = {(c["config"], c["text"]): c for c in comparisons}
    assert by["flow", "confirmed"]["offline"]["per_draw"] == pytest.approx([4.0, 5.0, 6.0])
    assert by["flow", "confirmed"]["baseline"]["per_draw"] == pytest.approx([2.0, 2.0, 5.0])
    final = by["flow", "final"]
    assert final["offline"]["mean"] == pytest.approx(0.0) and final["baseline"]["per_draw"] == pytest.approx(
        [-2, -2, -2]
    )
    assert final["baseline"]["low"] == pytest.approx(-2.0) == final["baseline"]["high"]  # the same every draw
    assert by["baseline", "final"]["baseline"] is None  # the baseline against itself is no comparison
    assert by["baseline", "final"]["offline"]["per_draw"] == pytest.approx([2.0, 3.0, 1.0])  # its confirmed text

"""The machine's condition during a stream: the host's steal from /proc/stat, and the matrix-product probe."""

import time

import pytest

from tools.bench.machine import cpu_ticks, describe, probe_gflops, stolen_share, summarize, watched


def test_the_share_is_the_stolen_ticks_over_all_ticks():
    assert stolen_share((100, 10_000), (130, 10_200)) == pytest.approx(0.15)
    assert stolen_share((100, 10_000), (100, 10_200)) == 0.0


def test_no_share_without_two_readings_or_time_between_them():
    assert stolen_share(None, (1, 2)) is None and stolen_share((1, 2), None) is None
    assert stolen_share((1, 200), (1, 200)) is None


def test_this_linux_machine_counts_its_ticks():
    before = cpu_ticks()
    deadline = time.perf_counter() + 0.2
    while time.perf_counter() < deadline:  # busy, so the counters move
        pass
    after = cpu_ticks()
    assert before is not None and after is not None and after[1] > before[1]
    assert 0.0 <= stolen_share(before, after) <= 1.0


def test_the_probe_measures_a_matrix_product_speed():
    assert 0.5 < probe_gflops() < 10_000  # any CPU that runs the suite: its BLAS, not a constant


def test_watching_a_block_records_the_machine_when_it_ends():
    with watched() as record:
        assert record == {}
    assert set(record) == {"steal", "gflops"} and len(record["gflops"]) == 2


def test_a_stream_with_steal_or_a_slow_probe_ran_on_a_slow_machine():
    seen = [
        {"steal": 0.0, "gflops": [100.0, 110.0]},
        {"steal": 0.10, "gflops": [100.0, 105.0]},  # a tenth of its CPU time stolen
        {"steal": 0.0, "gflops": [50.0, 100.0]},  # the probe at half the fastest before it
    ]
    summary = summarize(seen)
    assert summary["slow"] == 2 and summary["gflops_max"] == 100.0 and summary["steal_max"] == 0.10
    assert "2 of 3 streams ran on a slow machine" in describe(summary)
    assert "slow machine" not in describe(summarize(seen[:1]))
    assert summarize([]) is None

"""The machine's condition during a stream: the host's steal from /proc/stat, and the matrix-product probe."""

import time

import pytest

from tools.bench.machine import cpu_ticks, probe_gflops, stolen_share


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

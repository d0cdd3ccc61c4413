"""Which allocation calibration keeps, from made-up measurements: word errors guarded, then the least power among
those within LATENCY_MARGIN of the fastest, and the reason said in a person's words."""

from engine.stream.profiler import choose
from engine.stream.profiles import Allocation, CalibrationRow

ONE_THREAD, TWO_THREADS = Allocation(False, 1), Allocation(False, 2)


def row(allocation: Allocation, latency_s: float, cpu_s: float, watts: float | None, wer: float = 0.05):
    return CalibrationRow(allocation, latency_s, latency_s * 1.5, wer, cpu_s, watts, "test meter")


def test_a_slightly_slower_setting_using_much_less_power_is_chosen():
    choice = choose([row(TWO_THREADS, 0.79, 1.24, 11.6), row(ONE_THREAD, 0.83, 0.86, 7.8)])
    assert choice.allocation == ONE_THREAD
    assert choice.reason == (
        "one step at a time, 1 thread: 0.83 s, within 10 % of the fastest (0.79 s) at 7.8 W instead of 11.6 W"
    )


def test_without_watts_cpu_time_stands_for_power():
    choice = choose([row(TWO_THREADS, 0.79, 1.24, None), row(ONE_THREAD, 0.83, 0.86, None)])
    assert choice.allocation == ONE_THREAD
    assert "at 0.86 CPU s per audio s instead of 1.24 CPU s per audio s" in choice.reason


def test_a_low_power_setting_20_percent_slower_loses_to_the_fastest():
    choice = choose([row(TWO_THREADS, 0.80, 1.24, 11.6), row(ONE_THREAD, 0.96, 0.86, 7.8)])
    assert choice.allocation == TWO_THREADS
    assert (
        choice.reason == "one step at a time, 2 threads: 0.80 s, the fastest; no other setting came within 10 % of it"
    )


def test_the_fastest_is_kept_when_it_also_uses_the_least_power():
    choice = choose([row(TWO_THREADS, 0.79, 0.9, 7.0), row(ONE_THREAD, 0.83, 0.86, 7.8)])
    assert choice.allocation == TWO_THREADS
    assert "the fastest, and at 7.0 W the least power of those within 10 %" in choice.reason


def test_word_errors_are_guarded_before_speed_and_power():
    fast_but_wrong = row(Allocation(True, 1, 4), 0.5, 0.4, 5.0, wer=0.30)
    good = row(Allocation(True, 2, 0), 0.8, 0.5, 9.0)
    slow = row(TWO_THREADS, 1.5, 0.6, 8.0, wer=0.04)
    choice = choose([fast_but_wrong, good, slow])
    assert choice.allocation == good.allocation
    assert [r.accepted for r in choice.rows] == [False, True, True]


def test_nothing_measured_keeps_the_safe_setting():
    unmeasured = CalibrationRow(ONE_THREAD, None, None, 0.0, 0.0, None, "test meter")
    choice = choose([unmeasured])
    assert choice.allocation == Allocation(False) and "safe" in choice.reason

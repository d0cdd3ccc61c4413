"""How fast the machine ran while a stream did: the CPU time the host took (steal) and a matrix-product probe.

The build machine is a virtual machine on a shared host. In some hours its rounds take twice as long whatever the
code does. Part of that is steal: Linux counts the time our CPUs wanted to run and the hypervisor ran other guests
(/proc/stat). Part is not counted anywhere (a neighbour's load on the shared caches and memory, the host's clock):
the probe, a fixed float32 matrix product on one thread timed before and after each stream, measures what is left
of the machine's speed. The bench records both per stream, so that a slow run shows as the machine's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from engine.runtime.blas import single_threaded_numpy_blas

STAT = Path("/proc/stat")
NOTICEABLE = 0.05  # a stream that lost this share of its CPU time or more: its timings are not comparable
SLOW_PROBE = 0.7  # nor one whose probe ran under this share of the run's fastest
_PROBE_SHAPE = (500, 384, 1536)  # an encoder block's MLP product on 10 s of audio
_PROBE_RUNS = 5


def cpu_ticks() -> tuple[int, int] | None:
    """(stolen, all) clock ticks of every CPU since boot, where the system counts them (Linux); else None."""
    try:
        fields = STAT.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    if fields[0] != "cpu" or len(fields) < 9:
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal (guest time is in user)
    return ticks[7], sum(ticks)


def stolen_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of the CPU time between two cpu_ticks() readings that the host took; None without both."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def probe_gflops() -> float:
    """GFLOP/s of numpy's float32 matrix product on one thread, the median of a few runs (about 0.05 s in all)."""
    single_threaded_numpy_blas()
    m, k, n = _PROBE_SHAPE
    a, b = np.ones((m, k), np.float32), np.ones((k, n), np.float32)
    times = []
    for _ in range(_PROBE_RUNS):
        start = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - start)
    return 2 * m * k * n / float(np.median(times)) / 1e9


@contextmanager
def watched() -> Iterator[dict]:
    """The machine around a block: the dict it yields holds, once the block ends, the host's steal over it and the
    probe before and after it ({"steal", "gflops": [before, after]})."""
    record: dict = {}
    speed, ticks = probe_gflops(), cpu_ticks()
    yield record
    record.update(steal=stolen_share(ticks, cpu_ticks()), gflops=[speed, probe_gflops()])


def summarize(seen: list[dict]) -> dict | None:
    """Streams' records ({"steal", "gflops": [before, after]}): the mean and most steal, the probe's median and
    range, and how many streams ran slow (NOTICEABLE steal, or a probe under SLOW_PROBE of the fastest); None for
    none."""
    if not seen:
        return None
    steal = [m["steal"] for m in seen if m["steal"] is not None]
    speeds = [min(m["gflops"]) for m in seen]
    fastest = max(speeds)
    slow = sum((m["steal"] or 0.0) >= NOTICEABLE or min(m["gflops"]) < SLOW_PROBE * fastest for m in seen)
    return {
        "steal_mean": sum(steal) / len(steal) if steal else None,
        "steal_max": max(steal) if steal else None,
        "gflops_median": float(np.median(speeds)),
        "gflops_min": min(speeds),
        "gflops_max": fastest,
        "streams": len(seen),
        "slow": slow,
    }


def describe(m: dict, runs: str = "streams") -> str:
    """summarize()'s figures as a sentence under a table; runs: what ran ("streams", "calls")."""
    steal = (
        f"the host took {100 * m['steal_mean']:.1f} % of its CPU time (at most {100 * m['steal_max']:.1f} %) and "
        if m["steal_mean"] is not None
        else ""
    )
    line = (
        f"While the {runs} ran, {steal}a one-thread matrix product ran at {m['gflops_median']:.0f} GFLOP/s "
        f"(median; {m['gflops_min']:.0f}–{m['gflops_max']:.0f})"
    )
    if not m["slow"]:
        return line + "."
    return (
        f"{line}. {m['slow']} of {m['streams']} {runs} ran on a slow machine ({100 * NOTICEABLE:.0f} % stolen or "
        f"more, or the probe under {100 * SLOW_PROBE:.0f} % of its fastest): their latency, round times and CPU are "
        "the machine's as much as the code's."
    )

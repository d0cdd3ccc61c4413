"""CPU time the host took from this machine while a stream ran: a virtual machine's steal time.

On a shared virtual machine the hypervisor runs other guests on our cores, and Linux counts the time our CPUs
wanted to run and could not as steal (/proc/stat). A stream measured while a quarter of the CPU time was stolen
has rounds a third slower, whatever the code does: the bench records the share per file so that a slow run shows
as the machine's, not the code's.
"""

from __future__ import annotations

from pathlib import Path

STAT = Path("/proc/stat")
NOTICEABLE = 0.05  # a run that lost this share of its CPU time or more: its timings are not comparable


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

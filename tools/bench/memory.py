"""Resident memory of the current process (now, and its peak), its own and nobody else's.

Linux's ``ru_maxrss`` survives fork and execve: a worker started by a bench that had already grown to 550 MB reports
at least 550 MB, whatever it uses itself. ``VmHWM`` in /proc/self/status is the high-water mark of this process's
own address space, which execve starts afresh. Elsewhere (macOS) ``ru_maxrss`` is what there is.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

STATUS = Path("/proc/self/status")


def _status_mb(field: str) -> float | None:
    """A memory field of /proc/self/status (Linux), in MB; None where there is none."""
    if STATUS.is_file():
        for line in STATUS.read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024  # kB
    return None


def rss_mb() -> float | None:
    """This process's resident memory now, in MB, where the system says (Linux); else None."""
    return _status_mb("VmRSS")


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    peak = _status_mb("VmHWM")
    if peak is not None:
        return peak
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)  # bytes on macOS, KiB on Linux

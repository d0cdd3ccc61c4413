"""Peak resident memory of the current process, its own and nobody else's.

Linux's ``ru_maxrss`` survives fork and execve: a worker started by a bench that had already grown to 550 MB reports
at least 550 MB, whatever it uses itself. ``VmHWM`` in /proc/self/status is the high-water mark of this process's
own address space, which execve starts afresh. Elsewhere (macOS) ``ru_maxrss`` is what there is.
"""
from __future__ import annotations

import resource
import sys
from pathlib import Path

STATUS = Path("/proc/self/status")


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    if STATUS.is_file():
        for line in STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)  # bytes on macOS, KiB on Linux

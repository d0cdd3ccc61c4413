"""The bench's peak-memory figure is the measured process's own, not that of the bench that started it."""

import subprocess
import sys

import numpy as np

from tools.bench.memory import peak_rss_mb

CHILD = (
    "import resource; from tools.bench.memory import peak_rss_mb; "
    "print(peak_rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
)


def test_a_child_of_a_large_process_reports_its_own_peak():
    grown = np.ones(60_000_000)  # 480 MB, every page written: this process's peak is at least that
    assert peak_rss_mb() > 450
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    del grown
    own, inherited = map(float, child.stdout.split())
    assert own < 200
    if sys.platform.startswith("linux"):
        assert inherited > 450  # what ru_maxrss says there, and why the bench does not use it

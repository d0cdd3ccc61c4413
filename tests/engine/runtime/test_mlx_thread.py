"""Threads that use MLX: a process exits cleanly right after joining them, and leaving a worker thread's own
stream leaves the main thread's MLX and a later block on the same worker working."""

import subprocess
import sys
import threading

import mlx.core as mx
import mlx.nn as nn
import pytest
from testdata import REPO

from engine.runtime.mlx_thread import own_stream

# Each script exits right after the join. Without the release in own_stream, 9 in 10 such processes aborted
# here (exit status 134, "terminate called without an active exception"), so six clean exits are no chance.
RUNS = 6
EXECUTOR = """
import mlx.core as mx, mlx.nn as nn
from engine.runtime.executor import Executor
with Executor("accelerator", "gpu") as executor:
    executor.submit(lambda: mx.eval(nn.gelu(mx.ones((64, 64))))).result()
"""
WORKER_THREAD = """
import threading
import mlx.core as mx, mlx.nn as nn
from engine.runtime.mlx_thread import own_stream
def work():
    with own_stream():
        mx.eval(nn.gelu(mx.ones((64, 64))))
thread = threading.Thread(target=work)
thread.start()
thread.join()
"""


@pytest.mark.parametrize("script", [EXECUTOR, WORKER_THREAD], ids=["executor", "worker thread"])
def test_a_process_exits_cleanly_right_after_joining_a_thread_that_ran_compiled_mlx(script):
    for _ in range(RUNS):
        done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr) == (0, "")


def gelu_of_ones() -> list[float]:
    out = nn.gelu(mx.ones((3,)))
    mx.eval(out)
    return out.tolist()


def test_own_stream_keeps_the_main_threads_default_stream():
    before = gelu_of_ones()
    with own_stream():
        inside = gelu_of_ones()
    assert gelu_of_ones() == inside == before


def test_a_worker_thread_can_run_one_own_stream_block_after_another():
    results, errors = [], []

    def work():
        try:
            for _ in range(2):  # as the calibration panel: load the model in one block, calibrate in the next
                with own_stream():
                    results.append(gelu_of_ones())
        except Exception as exc:
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == [] and len(results) == 2 and results[0] == results[1] == gelu_of_ones()

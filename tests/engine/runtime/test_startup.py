"""The start-up step: importing the engine changes nothing; prepare() loads OpenBLAS before MLX (Linux) and the
bare mlx_whisper package, once however often it is called, and fails loudly, saying what to do, after MLX."""

import subprocess
import sys

import pytest
from testdata import REPO

from engine.runtime.blas import find_openblas

OPENBLAS = find_openblas()
# What a child process reports: whether the system OpenBLAS is mapped, the BLAS MLX uses, the mlx_whisper package.
REPORT = """
from engine.runtime.blas import find_openblas, loaded_blas
maps = open("/proc/self/maps").read()
bare = "mlx_whisper" in sys.modules and not hasattr(sys.modules["mlx_whisper"], "transcribe")
print(os.path.realpath(find_openblas()) in maps, loaded_blas(), bare, sep="\\n")
"""
on_linux_with_openblas = pytest.mark.skipif(
    not sys.platform.startswith("linux") or OPENBLAS is None, reason="the OpenBLAS load happens on Linux, with one"
)


def run_child(code: str) -> subprocess.CompletedProcess:
    program = "import os, sys\n" + code
    return subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, timeout=120)


@on_linux_with_openblas
def test_importing_the_engine_loads_nothing():
    done = run_child("import engine, engine.errors, engine.runtime.blas\n" + REPORT)
    slow = "bundled reference BLAS (slow; install libopenblas0-pthread)"
    assert done.stdout.splitlines() == ["False", slow, "False"], done.stderr


@on_linux_with_openblas
def test_prepare_loads_openblas_before_mlx_and_the_bare_mlx_whisper_once():
    code = """
from engine.runtime.startup import prepare
prepare()
import mlx.core as mx
mx.eval(mx.ones((64, 64)) @ mx.ones((64, 64)))
prepare()  # again, after MLX: nothing to do
"""
    done = run_child(code + REPORT)
    assert done.stdout.splitlines() == ["True", f"OpenBLAS ({OPENBLAS})", "True"], done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="on macOS MLX uses Accelerate: no order to keep")
def test_prepare_after_mlx_fails_and_says_what_to_do():
    done = run_child("import mlx.core\nfrom engine.runtime.startup import prepare\nprepare()\n")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("engine.runtime.blas.BlasOrderError: MLX was imported before OpenBLAS was loaded")
    assert "about 20x slower" in last and "Call engine.runtime.startup.prepare() first in the entry point" in last

"""The start-up step: importing the engine changes nothing; prepare() loads OpenBLAS before MLX (Linux), with the
kernels the CPU's flags call for unless OPENBLAS_CORETYPE says otherwise, and the bare mlx_whisper package, once
however often it is called, and fails loudly, saying what to do, after MLX."""

import os
import subprocess
import sys

import pytest
from testdata import REPO

from engine.runtime.blas import core_for_flags, cpu_flags, find_openblas

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


def run_child(code: str, coretype: str | None = None) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter, with OPENBLAS_CORETYPE set to coretype (unset: None)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    program = "import os, sys\n" + code
    return subprocess.run(
        [sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, timeout=120, env=env
    )


@on_linux_with_openblas
def test_importing_the_engine_loads_nothing():
    done = run_child("import engine, engine.errors, engine.runtime.blas\n" + REPORT)
    slow = "bundled reference BLAS (slow; install libopenblas0-pthread)"
    assert done.stdout.splitlines() == ["False", slow, "False"], done.stderr


PREPARE = """
from engine.runtime.startup import prepare
prepare()
import mlx.core as mx
mx.eval(mx.ones((64, 64)) @ mx.ones((64, 64)))
prepare()  # again, after MLX: nothing to do
"""


@on_linux_with_openblas
def test_prepare_loads_openblas_before_mlx_and_the_bare_mlx_whisper_once():
    done = run_child(PREPARE + REPORT + 'print(os.environ.get("OPENBLAS_CORETYPE"))', coretype=None)
    lines = done.stdout.splitlines()
    assert lines[0] == "True" and lines[2] == "True", done.stderr
    assert lines[1].startswith(f"OpenBLAS ({OPENBLAS}, ") and lines[1].endswith(" kernels)")
    chosen = core_for_flags(cpu_flags())
    if chosen:  # kernels for this CPU's flags, set for the system OpenBLAS only (numpy's keeps its own choice)
        assert lines[1] == f"OpenBLAS ({OPENBLAS}, {chosen} kernels)" and lines[3] == "None"


@on_linux_with_openblas
def test_an_openblas_coretype_a_person_set_is_kept():
    done = run_child(PREPARE + REPORT + 'print(os.environ["OPENBLAS_CORETYPE"])', coretype="Prescott")
    assert done.stdout.splitlines()[1:] == [f"OpenBLAS ({OPENBLAS}, Prescott kernels)", "True", "Prescott"]


def test_the_kernels_follow_the_cpus_feature_flags():
    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd", "avx2", "fma", "sse3"}
    assert core_for_flags(avx512) == "SkylakeX"
    assert core_for_flags({"avx2", "fma", "sse3", "avx512f"}) == "Haswell"  # AVX-512 without BW/VL: not enough
    assert core_for_flags({"sse3", "avx"}) is None  # the library's own choice
    assert core_for_flags(set()) is None  # no flags read (macOS, aarch64)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="on macOS MLX uses Accelerate: no order to keep")
def test_prepare_after_mlx_fails_and_says_what_to_do():
    done = run_child("import mlx.core\nfrom engine.runtime.startup import prepare\nprepare()\n")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("engine.runtime.blas.BlasOrderError: MLX was imported before OpenBLAS was loaded")
    assert "about 20x slower" in last and "Call engine.runtime.startup.prepare() first in the entry point" in last

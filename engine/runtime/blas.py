"""BLAS: load a fast one into the process before MLX's CPU backend binds its bundled one; thread counts.

The mlx-cpu wheel bundles a reference BLAS (about 4 GFLOP/s here). Loading OpenBLAS
globally first makes MLX's CPU matmuls resolve to it (about 20x faster).

OpenBLAS picks its kernels by CPU model, and an older one does not know newer CPUs: Debian 12's 0.3.21 takes a
Sapphire Rapids Xeon for a Prescott and runs its SSE3 kernels, 5x slower than the AVX-512 ones (20 against 115
GFLOP/s on our build machine). So unless OPENBLAS_CORETYPE is set, the kernels are chosen from the CPU's own
feature flags, for the system OpenBLAS only.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
import sys

_CANDIDATES = (
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/local/lib/libopenblas.so.0",
)

_library: ctypes.CDLL | None = None  # the OpenBLAS loaded into this process (its path: _name)

# OpenBLAS core types by the x86-64 feature flags their kernels need, best first.
_CORES = (
    ("SkylakeX", frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"})),
    ("Haswell", frozenset({"avx2", "fma"})),
)


class BlasOrderError(RuntimeError):
    """MLX was imported before OpenBLAS could be loaded (Linux): its matrix work would run about 20x slower."""


def find_openblas() -> str | None:
    """Path of a system OpenBLAS, or None. WHISPERFLOW_OPENBLAS overrides the search."""
    override = os.environ.get("WHISPERFLOW_OPENBLAS")
    if override:
        return override if os.path.exists(override) else None
    for path in _CANDIDATES:
        if os.path.exists(path):
            return path
    matches = sorted(glob.glob("/usr/lib/*/openblas*/libopenblas*.so*"))
    return matches[0] if matches else None


def core_for_flags(flags: set[str] | frozenset[str]) -> str | None:
    """The OpenBLAS core type whose kernels a CPU with these feature flags runs best, or None (the library's own
    choice)."""
    return next((core for core, needs in _CORES if needs <= flags), None)


def cpu_flags() -> frozenset[str]:
    """This CPU's feature flags (x86-64 Linux; empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as info:
            line = next((line for line in info if line.startswith("flags")), "")
    except OSError:
        return frozenset()
    return frozenset(line.partition(":")[2].split())


def load_openblas() -> str | None:
    """Load OpenBLAS with RTLD_GLOBAL on Linux; return its path, or None when the system has none.

    Must run before the first ``import mlx`` (BlasOrderError otherwise); on macOS MLX uses Accelerate and this is a
    no-op.
    """
    global _library
    if _library or not sys.platform.startswith("linux"):
        return _library._name if _library else None
    if "mlx.core" in sys.modules:
        raise BlasOrderError(
            "MLX was imported before OpenBLAS was loaded, so MLX's CPU matrix work would run on its bundled "
            "reference BLAS, about 20x slower. Call engine.runtime.startup.prepare() first in the entry point, "
            "before anything imports mlx (or a module that does)."
        )
    path = find_openblas()
    if path is None:
        return None
    core = None if "OPENBLAS_CORETYPE" in os.environ else core_for_flags(cpu_flags())
    if core:
        os.environ["OPENBLAS_CORETYPE"] = core  # read once, as the library loads; numpy's own OpenBLAS keeps its choice
    try:
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return None
    finally:
        if core:
            del os.environ["OPENBLAS_CORETYPE"]
    _library = library
    return path


def loaded_blas() -> str:
    """Human-readable name of the BLAS MLX uses in this process."""
    if sys.platform == "darwin":
        return "Accelerate"
    if not _library:
        return "bundled reference BLAS (slow; install libopenblas0-pthread)"
    core = _library.openblas_get_corename
    core.restype = ctypes.c_char_p
    return f"OpenBLAS ({_library._name}, {core().decode()} kernels)"


def set_blas_threads(n: int) -> bool:
    """Set OpenBLAS's thread count process-wide (0: one per core); False where the BLAS cannot be told."""
    if not _library:
        return False
    _library.openblas_set_num_threads(int(n) if n > 0 else os.cpu_count() or 1)
    return True


def blas_threads() -> int | None:
    """OpenBLAS's current thread count, or None when it is not the BLAS in use."""
    return int(_library.openblas_get_num_threads()) if _library else None


@functools.cache
def single_threaded_numpy_blas() -> bool:
    """Set numpy's bundled OpenBLAS to one thread (numpy's BLAS only, not MLX's); False where not found."""
    import numpy as np

    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "libscipy_openblas*.so*")
    for path in glob.glob(libs):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads"):
            if hasattr(lib, name):
                getattr(lib, name)(1)
                return True
    return False

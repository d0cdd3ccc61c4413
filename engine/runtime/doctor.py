"""`whisperflow doctor`: what this machine runs on, and how fast."""

from __future__ import annotations

import platform
import time

from engine.runtime.blas import loaded_blas


def matmul_gflops(n: int = 1024, repeats: int = 10) -> float:
    """Measured float32 matmul speed on MLX's default device."""
    import mlx.core as mx

    a = mx.random.normal((n, n))
    mx.eval(a @ a)
    t = time.perf_counter()
    for _ in range(repeats):
        mx.eval(a @ a)
    return repeats * 2 * n**3 / (time.perf_counter() - t) / 1e9


def report() -> list[str]:
    import mlx.core as mx

    lines = [
        f"platform : {platform.system()} {platform.machine()}, Python {platform.python_version()}",
        f"mlx      : {mx.__version__}, backend {_backend()}",
        f"device   : {mx.default_device()}",
        f"blas     : {loaded_blas()}",
        f"matmul   : {matmul_gflops():.1f} GFLOP/s (float32, 1024x1024)",
    ]
    try:
        from engine.power import doctor_lines
    except ImportError:
        return lines
    return lines + doctor_lines()


def _backend() -> str:
    """The accelerator MLX runs on here: Metal, CUDA or the CPU."""
    import mlx.core as mx

    if mx.metal.is_available():
        return "Metal"
    return "CUDA" if mx.cuda.is_available() else "CPU"

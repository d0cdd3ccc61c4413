"""MLX streams are per thread: a worker thread runs its MLX work under a stream of its own, on the device it names."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import mlx.core as mx


@contextmanager
def own_stream() -> Iterator[None]:
    """Run the block under a new stream on the default device (call on the thread doing the work)."""
    with mx.stream(mx.new_stream(mx.default_device())):
        yield


def gpu_available() -> bool:
    """Whether MLX has a GPU here: Metal on a Mac, CUDA with the mlx[cuda12] or mlx[cuda13] build."""
    return mx.metal.is_available() or mx.cuda.is_available()


def mlx_device(name: str) -> "mx.Device":
    """MLX's GPU for "gpu" where there is one, else the CPU."""
    return mx.gpu if name == "gpu" and gpu_available() else mx.cpu

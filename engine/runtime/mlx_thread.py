"""MLX streams are per thread: a worker thread runs its MLX work under a stream of its own, on the device it names."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import mlx.core as mx


@contextmanager
def own_stream(device: mx.Device | None = None) -> Iterator[None]:
    """Run the block under a new stream on device (default: the default device); call on the thread doing the work.

    On a worker thread, leaving the block also releases the thread's MLX state (``mx.clear_streams``: its streams
    and its cache of compiled functions such as ``nn.gelu``), so the block must hold that thread's MLX work.
    Otherwise MLX releases the cache as the thread's system thread ends, which is after a ``join`` has returned:
    the cache holds Python objects, and a process that was exiting by then aborted with "terminate called
    without an active exception".
    """
    try:
        with mx.stream(mx.new_stream(device or mx.default_device())):
            yield
    finally:
        if threading.current_thread() is not threading.main_thread():
            mx.clear_streams()  # on the main thread it would take away the default stream


def gpu_available() -> bool:
    """Whether MLX has a GPU here: Metal on a Mac, CUDA with the mlx[cuda12] or mlx[cuda13] build."""
    return mx.metal.is_available() or mx.cuda.is_available()


def mlx_device(name: str) -> mx.Device:
    """MLX's GPU for "gpu" where there is one, else the CPU."""
    return mx.gpu if name == "gpu" and gpu_available() else mx.cpu

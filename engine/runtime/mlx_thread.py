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


def mlx_device(name: str) -> "mx.Device":
    """MLX's GPU for "gpu" where Metal is there, else the CPU."""
    return mx.gpu if name == "gpu" and mx.metal.is_available() else mx.cpu

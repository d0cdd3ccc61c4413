"""Which decoder session a round uses: numpy on the CPU (the default without a GPU), MLX on the GPU."""

from __future__ import annotations

import mlx.core as mx

from engine.decoder.mlx_session import DecoderSession
from engine.decoder.numpy_session import NumpyDecoderSession
from engine.runtime.mlx_thread import gpu_available

BACKENDS = ("numpy", "mlx")


def default_backend() -> str:
    """MLX where a GPU (Metal or CUDA) runs the decoder, numpy (system BLAS) on the CPU."""
    return "mlx" if gpu_available() and mx.default_device() == mx.gpu else "numpy"


def make_session(model, features, backend: str | None = None, audio_frames: int | None = None):
    """A decoder session for one round; audio_frames bounds the attention the session records."""
    backend = backend or default_backend()
    if backend == "numpy":
        return NumpyDecoderSession(model, features, audio_frames=audio_frames)
    if backend == "mlx":
        return DecoderSession(model, features, audio_frames)
    raise ValueError(f"unknown decoder backend {backend!r} (expected one of {BACKENDS})")

"""mlx-whisper's modules without its package ``__init__``, which imports its transcribe loop and with it numba and
scipy.signal, for word timing that engine.decoder.word_timing does itself: about 145 MB of memory that a live
session would never use. Submodules (``mlx_whisper.audio``, ``.whisper``, ``.tokenizer``, …) import as usual."""

from __future__ import annotations

import importlib.util
import sys


def register_bare_mlx_whisper() -> None:
    """Put an uninitialized ``mlx_whisper`` package in sys.modules (unless it is imported already)."""
    if "mlx_whisper" in sys.modules:
        return
    spec = importlib.util.find_spec("mlx_whisper")
    if spec is not None:
        sys.modules["mlx_whisper"] = importlib.util.module_from_spec(spec)

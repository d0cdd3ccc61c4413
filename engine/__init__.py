"""WhisperFlow engine: everything that hears and decodes. No Qt in here."""

from engine.runtime.blas import load_openblas
from engine.runtime.lean_imports import register_bare_mlx_whisper

load_openblas()
register_bare_mlx_whisper()

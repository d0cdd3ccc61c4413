"""WhisperFlow engine: everything that hears and decodes. No Qt in here."""
from .blas import load_openblas

load_openblas()

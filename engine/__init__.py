"""WhisperFlow engine: everything that hears and decodes. No Qt in here."""
from engine.runtime.blas import load_openblas

load_openblas()

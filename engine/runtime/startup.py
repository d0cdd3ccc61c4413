"""The engine's one start-up step, which every entry point calls first, before anything imports MLX.

``prepare()`` loads OpenBLAS into the process on Linux (MLX's CPU backend then binds it instead of its bundled
reference BLAS: about 20x faster matrix work) and puts a bare ``mlx_whisper`` package in sys.modules (its
submodules without the package ``__init__``'s numba and scipy: engine.runtime.lean_imports). Importing the
engine does neither: a process that never calls ``prepare()`` runs correctly, only slower and larger.
"""

from __future__ import annotations

from engine.runtime.blas import load_openblas
from engine.runtime.lean_imports import register_bare_mlx_whisper

_prepared = False


def prepare() -> None:
    """Set the process up for the engine; calling it again does nothing.

    Raises BlasOrderError on Linux when MLX was imported first (see engine.runtime.blas.load_openblas).
    """
    global _prepared
    if _prepared:
        return
    load_openblas()
    register_bare_mlx_whisper()
    _prepared = True

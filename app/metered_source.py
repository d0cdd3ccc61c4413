"""An audio source wrapper that reports the level of everything read, for a live level meter."""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine.sources import AudioSource


class MeteredSource(AudioSource):
    """Delegates to `inner`, calling on_level(rms) for every non-empty block read (on the reading thread)."""

    def __init__(self, inner: AudioSource, on_level: Callable[[float], None]):
        self.inner = inner
        self.on_level = on_level

    @property
    def name(self) -> str:
        return self.inner.name

    def start(self) -> None:
        self.inner.start()

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        block = self.inner.read(max_samples, timeout)
        if block is not None and len(block):
            self.on_level(float(np.sqrt(np.mean(np.square(block, dtype=np.float64)))))
        return block

    def stop(self) -> None:
        self.inner.stop()

"""An audio source wrapper that reports the level of everything read, for a live level meter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.audio.sources import AudioSource

REPORT_SAMPLES = 800  # one report per 50 ms of audio at most


class MeteredSource(AudioSource):
    """Delegates to `inner`, calling on_level(rms) on the reading thread for each 50 ms (or more) read."""

    def __init__(self, inner: AudioSource, on_level: Callable[[float], None]):
        self.inner = inner
        self.on_level = on_level
        self._squares = 0.0
        self._count = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def start(self) -> None:
        self.inner.start()

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        block = self.inner.read(max_samples, timeout)
        if block is not None and len(block):
            self._squares += float(np.dot(block, block))
            self._count += len(block)
            if self._count >= REPORT_SAMPLES:
                self.on_level(float(np.sqrt(self._squares / self._count)))
                self._squares, self._count = 0.0, 0
        return block

    def stop(self) -> None:
        self.inner.stop()

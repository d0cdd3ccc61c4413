"""Whether Them's voice reaches your microphone at all: an echo path, found by its delay.

An echo is Them's audio, late by the speaker's and the room's delay: the phase-weighted cross-correlation (GCC-PHAT)
of your microphone with Them's audio peaks sharply at that delay, block after block. Two voices that merely talk at
once give no such peak, nor the same delay twice. With headphones there is no path, and the canceller, which would
only dampen your voice where you talk over Them (docs/bench/call), stays out.
"""

from __future__ import annotations

import numpy as np

from engine.audio.files import SAMPLE_RATE

BLOCK = SAMPLE_RATE // 2  # your microphone is compared with Them's audio half a second at a time
MAX_DELAY = SAMPLE_RATE // 2  # an echo arrives at most this late (the speaker's buffer and the room)
TALK_RMS = 1e-2  # a frame of Them's audio this loud (-40 dBFS) is speech that would echo
TALK_SHARE = 0.5  # a block is compared when at least this share of its frames is Them's speech
PEAK_RATIO = 10.0  # an echo's peak stands this far above the correlation's median (two voices: about 6, at most 13)
SURE_RATIO = 20.0  # a peak this high is an echo at once (the call fixture's echoes: 28 and up); lower ones need two
SAME_DELAY = SAMPLE_RATE // 1000  # two blocks agree on the delay within 1 ms
FORGET_BLOCKS = 20  # this many compared blocks in a row without an echo (10 s of Them's speech): the path is gone
_FFT = 1 << int(np.ceil(np.log2(BLOCK + MAX_DELAY + BLOCK)))


def echo_delay(near: np.ndarray, far: np.ndarray) -> tuple[int, float]:
    """The delay (samples) at which near (BLOCK samples) best matches far (the MAX_DELAY + BLOCK samples that end
    where near ends), and how far that peak stands above the median of all delays' correlations."""
    spectrum = np.fft.rfft(near, _FFT) * np.conj(np.fft.rfft(far, _FFT))
    correlation = np.fft.irfft(spectrum / (np.abs(spectrum) + 1e-12), _FFT)
    by_delay = correlation[(np.arange(MAX_DELAY + 1) - MAX_DELAY) % _FFT]  # near[k] against far[k + MAX_DELAY - d]
    best = int(np.argmax(by_delay))
    return best, float(by_delay[best] / (np.median(np.abs(by_delay)) + 1e-12))


class EchoPath:
    """Hears your microphone and Them's audio in step (hear(near, far)); present once a block of Them's speech
    echoes unmistakably, or two at the same delay; absent again after FORGET_BLOCKS without an echo (headphones
    plugged in)."""

    def __init__(self):
        self.present = False
        self.delay: int | None = None  # the last echo's delay, in samples
        self._far_before = np.zeros(MAX_DELAY, np.float32)  # Them's audio before the block (before the call: silence)
        self._near: list[np.ndarray] = []  # the current block's frames
        self._far: list[np.ndarray] = []
        self._filled = 0  # samples in the current block
        self._misses = 0

    def hear(self, near: np.ndarray, far: np.ndarray) -> None:
        """One frame of each (the canceller's 10 ms), the same samples."""
        self._near.append(near)
        self._far.append(far)
        self._filled += len(near)
        if self._filled >= BLOCK:
            talk = np.mean([np.sqrt(np.mean(frame**2)) >= TALK_RMS for frame in self._far])
            far_all = np.concatenate([self._far_before, *self._far])
            if talk >= TALK_SHARE:
                self._compare(np.concatenate(self._near)[-BLOCK:], far_all[-(MAX_DELAY + BLOCK) :])
            self._far_before = far_all[-MAX_DELAY:]
            self._near, self._far, self._filled = [], [], 0

    def _compare(self, near: np.ndarray, far: np.ndarray) -> None:
        delay, ratio = echo_delay(near, far)
        if ratio < PEAK_RATIO:
            self.delay = None
            self._misses += 1
            self.present = self.present and self._misses < FORGET_BLOCKS
            return
        if self.present or ratio >= SURE_RATIO or (self.delay is not None and abs(delay - self.delay) <= SAME_DELAY):
            self.present, self._misses = True, 0
        self.delay = delay

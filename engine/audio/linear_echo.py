"""Them's echo subtracted from your microphone: a linear adaptive filter that learns how the room turns Them's audio
into what the microphone hears, and takes its estimate of that echo away, and nothing else.

An echo is Them's audio through the speaker, the room and the microphone: late, quieter and smeared, but a linear
function of it. The filter models that path over the delays EchoPath searches (MAX_DELAY) as a partitioned-block
frequency-domain adaptive filter (overlap-save, one frame a block, normalized least mean squares per frequency).
Your voice is not in Them's audio, so the filter cannot model it and leaves it whole, where you talk over Them too.
It leaves 12-16 dB less echo (on the call fixture; more once it has heard Them for a while), not none: AEC3 after
it removes the rest (engine.audio.echo_canceller).

Where you talk over Them, your voice is the filter's error and would pull it off the echo path: two filters run
(as in Speex's and WebRTC's cancellers), a background one that adapts every frame and a foreground one whose
estimate is subtracted; the background is copied to the foreground where it removes more, and back where it has
drifted far off.

It has learnt the echo path (learnt) once it removes LEARNT_DB of your microphone's energy where Them is heard,
measured over about a second: 5.3-5.6 s into the call fixture's calls. From then on, where what it leaves is louder
than the echo it took away, that is your voice, and the canceller keeps it from AEC3's suppression.
"""

from __future__ import annotations

import numpy as np

from engine.audio.echo_path import MAX_DELAY

STEP = 1.0  # the normalized step of the background filter's adaptation
REGULARIZE = 1e-2  # added to each frequency's power, as a share of the mean power (quiet frequencies adapt slowly)
SMOOTH = 0.8  # the filters' error energies are smoothed over frames by this factor
BETTER = 0.8  # the background filter is copied to the foreground where its error energy is this share or less
DRIFTED = 8.0  # and the foreground to the background where the background's error is this many times larger
LEARNT_SMOOTH = 0.99  # the echo removed is measured over about a second of Them's sound (100 frames)
LEARNT_DB = 10.0  # the filter has learnt the echo path once it removes this much (the fixture: 5.3-5.6 s into a call)
LEARNT_RATIO = 10 ** (LEARNT_DB / 10)  # the same as a ratio of energies


class LinearEchoFilter:
    """subtract(far, near): one frame of your microphone with the foreground filter's echo estimate taken away."""

    def __init__(self, block: int):
        """block: samples a frame (the filter's block)."""
        self.block = block
        parts = -(-MAX_DELAY // block)  # blocks that span the longest echo path
        self._spectra = np.zeros((parts, block + 1), np.complex128)  # Them's last blocks' spectra, newest first
        self._background = np.zeros_like(self._spectra)
        self._foreground = np.zeros_like(self._spectra)
        self._far_before = np.zeros(block)
        self._background_error = self._foreground_error = 1e-9
        self._heard_near = self._heard_left = 1e-9  # your microphone's energy and what the filter left, Them heard
        self.learnt = False  # once it has removed LEARNT_DB of the echo; for good (the two filters track changes)

    def _estimate(self, weights: np.ndarray) -> np.ndarray:
        return np.fft.irfft((weights * self._spectra).sum(axis=0), 2 * self.block)[self.block :]

    def subtract(self, far: np.ndarray, near: np.ndarray, far_heard: bool) -> np.ndarray:
        """far: Them's frame, near: your microphone's (block samples each, the same instants); far_heard: Them's frame
        carries sound (the canceller's FAR_FLOOR), so the two filters' errors say which one is better."""
        far, near = far.astype(np.float64), near.astype(np.float64)
        self._spectra = np.roll(self._spectra, 1, axis=0)
        self._spectra[0] = np.fft.rfft(np.concatenate([self._far_before, far]))
        self._far_before = far
        foreground = near - self._estimate(self._foreground)
        background = near - self._estimate(self._background)
        self._adapt(background)
        self._background_error = SMOOTH * self._background_error + (1 - SMOOTH) * float(background @ background)
        self._foreground_error = SMOOTH * self._foreground_error + (1 - SMOOTH) * float(foreground @ foreground)
        if far_heard:
            self._heard_near = LEARNT_SMOOTH * self._heard_near + (1 - LEARNT_SMOOTH) * float(near @ near)
            self._heard_left = LEARNT_SMOOTH * self._heard_left + (1 - LEARNT_SMOOTH) * float(foreground @ foreground)
            self.learnt = self.learnt or self._heard_near >= LEARNT_RATIO * self._heard_left
            if self._background_error <= BETTER * self._foreground_error:
                self._foreground = self._background.copy()
                self._foreground_error = self._background_error
                foreground = background
            elif self._background_error >= DRIFTED * self._foreground_error:
                self._background = self._foreground.copy()
                self._background_error = self._foreground_error
        return foreground.astype(np.float32)

    def _adapt(self, error: np.ndarray) -> None:
        """One normalized step of the background filter toward the frame's error, each partition's gradient kept to
        its block's taps (the overlap-save constraint)."""
        power = (np.abs(self._spectra) ** 2).sum(axis=0)
        power += REGULARIZE * power.mean() + 1e-12
        spectrum = np.fft.rfft(np.concatenate([np.zeros(self.block), error]))
        taps = np.fft.irfft(np.conj(self._spectra) * (spectrum / power), 2 * self.block, axis=1)
        taps[:, self.block :] = 0.0
        self._background += STEP * np.fft.rfft(taps, axis=1)

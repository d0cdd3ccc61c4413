"""The echo gate of a call: while Them speaks, audio on the microphone no louder than Them's is Them's echo from
the speakers, not yours, so You's round over it is skipped as one over silence (You's voice-activity detector hears
the echo as speech, and without the gate You's rounds ran through Them's turns: docs/bench/call).

Double-talk goes on: your voice over the echo makes the microphone louder than Them's audio, and the round runs."""

from __future__ import annotations

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.audio.vad import SpeechDetector
from engine.session.events import StreamUpdate

ABOVE_THEM_DB = 0.0  # the microphone this far above Them's level holds your voice: the echo arrives at least 3 dB
# below Them's audio (issue 54: 3–10 dB), your voice over it brings the microphone above Them's level
SPEAKING_SHARE = 0.5  # Them speaks over a round's audio when their detector heard speech in this share of it


def _rms(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean(audio**2))) if len(audio) else 0.0


class EchoGate:
    """Hears Them's updates (``hear``: their latest audio level) and judges You's new audio (``quiet``)."""

    def __init__(self, them_vad: SpeechDetector, above_them_db: float = ABOVE_THEM_DB):
        self.them_vad = them_vad
        self.ratio = 10 ** (above_them_db / 20)
        self.them_level = 0.0  # the RMS of Them's latest round's new audio
        self.gated = 0

    def hear(self, update: StreamUpdate) -> None:
        if update.round is not None:
            self.them_level = update.level

    def quiet(self, chunk: np.ndarray, start: float) -> bool:
        """Whether You's new audio (from start, stream seconds) is only Them's echo."""
        span = len(chunk) / SAMPLE_RATE
        them_speaking = self.them_vad.speech_between(start, start + span) >= SPEAKING_SHARE * span
        echo = them_speaking and _rms(chunk) <= self.them_level * self.ratio
        self.gated += echo
        return echo

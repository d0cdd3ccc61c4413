"""What the encoder sees: the buffer, padded to 30 s, padded a little, or followed by a hush word."""

from __future__ import annotations

from dataclasses import dataclass

import mlx.core as mx
import numpy as np
from mlx_whisper.audio import N_FRAMES, N_SAMPLES, log_mel_spectrogram

from engine.audio.files import SAMPLE_RATE

MAX_SAMPLES = N_SAMPLES


@dataclass(frozen=True)
class Padding:
    """How the buffer is extended before encoding.

    kind: "pad30" (zeros to 30 s, Whisper's way), "none", "zeros" or "noise" (``seconds``
    of it), or "hush" (the learned ``samples`` appended). min_seconds: silence goes between a shorter
    buffer and what is appended until the encoder's input lasts this long (a few seconds of audio alone
    make a hushed round less sure of its words: docs/bench/hush-min).
    """

    kind: str = "pad30"
    seconds: float = 0.0
    samples: np.ndarray | None = None
    min_seconds: float = 0.0

    def label(self) -> str:
        return {"pad30": "pad to 30 s", "none": "no padding", "hush": "hush word"}.get(
            self.kind, f"{self.seconds:g} s {'white-noise' if self.kind == 'noise' else 'zero'} padding"
        )


PAD30 = Padding("pad30")


def tail_for(padding: Padding, seed: int = 0) -> np.ndarray:
    """The samples appended after the audio (empty for pad30/none)."""
    n = int(round(padding.seconds * SAMPLE_RATE))
    if padding.kind == "zeros":
        return np.zeros(n, np.float32)
    if padding.kind == "noise":
        return (np.random.default_rng(seed).standard_normal(n) * 0.01).astype(np.float32)
    if padding.kind == "hush":
        if padding.samples is None:
            raise ValueError("hush padding needs the hush word's samples")
        return padding.samples.astype(np.float32)
    return np.zeros(0, np.float32)


def max_audio_samples(padding: Padding) -> int:
    """The most buffer audio that fits in 30 s together with the padding's tail."""
    return MAX_SAMPLES - len(tail_for(padding))


def encoder_mel(audio: np.ndarray, padding: Padding, n_mels: int = 80) -> mx.array:
    """Log-mel frames for the encoder, shape (n_frames, n_mels), n_frames even and at most 3000."""
    audio = audio[: max_audio_samples(padding)].astype(np.float32)
    if padding.kind == "pad30":
        return log_mel_spectrogram(audio, n_mels, padding=N_SAMPLES)[:N_FRAMES]
    tail = tail_for(padding)
    silence = max(0, int(round(padding.min_seconds * SAMPLE_RATE)) - len(audio) - len(tail))
    full = np.concatenate([audio, np.zeros(silence, np.float32), tail])
    mel = log_mel_spectrogram(full, n_mels)
    n = min(N_FRAMES, mel.shape[0] - mel.shape[0] % 2)
    return mel[:n]


def encoder_gflops(dims, n_frames: int) -> float:
    """Encoder GFLOPs for n_frames mel frames, counted from the model's dimensions.

    Multiply-adds count 2 FLOPs: two convolutions, then per layer the QKV/out
    projections, attention scores and weighted sum (quadratic in length) and the MLP.
    """
    d, layers, mels = dims.n_audio_state, dims.n_audio_layer, dims.n_mels
    t = (n_frames + 1) // 2
    conv = 2 * n_frames * mels * d * 3 + 2 * t * d * d * 3
    per_layer = 2 * t * d * d * 4 + 2 * 2 * t * t * d + 2 * t * d * (4 * d) * 2
    return (conv + layers * per_layer) / 1e9

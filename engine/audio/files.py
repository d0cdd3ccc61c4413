"""Audio files to float32 mono 16 kHz: decode (soundfile), downmix, resample (soxr)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from engine.errors import AudioError

SAMPLE_RATE = 16000
SUPPORTED_SUFFIXES = (".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aiff", ".aif", ".au", ".caf", ".w64")
_BLOCK_FRAMES = 1 << 16


def resample(x: np.ndarray, sr: int) -> np.ndarray:
    """Float32 audio at `sr` Hz resampled to 16 kHz (soxr HQ); returned as is when already 16 kHz."""
    x = np.asarray(x, dtype=np.float32)
    if sr == SAMPLE_RATE:
        return x
    return soxr.resample(x, sr, SAMPLE_RATE, quality="HQ").astype(np.float32, copy=False)


def _decode(path: Path) -> np.ndarray:
    """Blockwise decode, downmix and resample, so long files never sit in memory at their native rate."""
    parts: list[np.ndarray] = []
    with sf.SoundFile(path) as f:
        stream = None if f.samplerate == SAMPLE_RATE else soxr.ResampleStream(
            f.samplerate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        for block in f.blocks(blocksize=_BLOCK_FRAMES, dtype="float32", always_2d=True):
            mono = block.mean(axis=1, dtype=np.float32) if block.shape[1] > 1 else block[:, 0]
            parts.append(mono if stream is None else stream.resample_chunk(mono))
        if stream is not None:
            parts.append(stream.resample_chunk(np.zeros(0, np.float32), last=True))
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def load_audio(path: str | os.PathLike) -> np.ndarray:
    """Decode an audio file (wav, flac, ogg, mp3, ...) to float32 mono 16 kHz; AudioError if it cannot."""
    path = Path(path)
    if not path.exists():
        raise AudioError(f"Audio file not found: {path}")
    if not path.is_file():
        raise AudioError(f"Not an audio file (it is a folder): {path}")
    try:
        audio = _decode(path)
    except (sf.SoundFileError, RuntimeError, OSError) as e:
        if path.suffix.lower() in SUPPORTED_SUFFIXES:
            raise AudioError(f"Cannot decode {path.name}: the file is damaged or not really "
                             f"{path.suffix[1:].upper()} ({e}).") from e
        raise AudioError(f"Unsupported audio format: {path.name}. WhisperFlow reads WAV, FLAC, OGG (Vorbis, Opus) "
                         f"and MP3; convert it first, e.g. `ffmpeg -i '{path.name}' out.wav`.") from e
    if audio.size == 0:
        raise AudioError(f"{path.name} contains no audio.")
    return audio

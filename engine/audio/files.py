"""Audio files to float32 mono 16 kHz: decode (soundfile), downmix, resample (soxr)."""

from __future__ import annotations

import os
import struct
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
        stream = (
            None
            if f.samplerate == SAMPLE_RATE
            else soxr.ResampleStream(f.samplerate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        )
        for block in f.blocks(blocksize=_BLOCK_FRAMES, dtype="float32", always_2d=True):
            mono = block.mean(axis=1, dtype=np.float32) if block.shape[1] > 1 else block[:, 0]
            parts.append(mono if stream is None else stream.resample_chunk(mono))
        if stream is not None:
            parts.append(stream.resample_chunk(np.zeros(0, np.float32), last=True))
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def check_audio_path(path: Path) -> None:
    if not path.exists():
        raise AudioError(f"Audio file not found: {path}")
    if not path.is_file():
        raise AudioError(f"Not an audio file (it is a folder): {path}")


def decode_error(path: Path, e: Exception) -> AudioError:
    """The error a person sees for a file that cannot be decoded (damaged, or not a format we read)."""
    if isinstance(e, AudioError):
        return e
    if isinstance(e, MemoryError):
        return AudioError(
            f"Cannot decode {path.name}: its header announces more audio than fits in memory (the file is damaged)."
        )
    if path.suffix.lower() in SUPPORTED_SUFFIXES:
        return AudioError(
            f"Cannot decode {path.name}: the file is damaged or not really {path.suffix[1:].upper()} ({e})."
        )
    return AudioError(
        f"Unsupported audio format: {path.name}. WhisperFlow reads WAV, FLAC, OGG (Vorbis, Opus) "
        f"and MP3; convert it first, e.g. `ffmpeg -i '{path.name}' out.wav`."
    )


def load_audio(path: str | os.PathLike) -> np.ndarray:
    """Decode an audio file (wav, flac, ogg, mp3, ...) to float32 mono 16 kHz; AudioError if it cannot."""
    path = Path(path)
    check_audio_path(path)
    try:
        audio = _decode(path)
    except Exception as e:  # libsndfile and soxr fail in many ways on damaged files; all mean the same here
        raise decode_error(path, e) from e
    if audio.size == 0 or not np.all(np.isfinite(audio)):
        raise AudioError(
            f"{path.name} contains no audio."
            if audio.size == 0
            else f"Cannot decode {path.name}: it holds invalid samples (the file is damaged)."
        )
    return audio


def file_warnings(path: str | os.PathLike) -> list[str]:
    """What a person should know before a file is transcribed: a WAV shorter than its header says."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
        size = path.stat().st_size
    except OSError:
        return []
    if len(head) < 12 or head[:4] not in (b"RIFF", b"RIFX") or head[8:12] != b"WAVE":
        return []
    endian = "<" if head[:4] == b"RIFF" else ">"
    pos, byte_rate = 12, 0
    while pos + 8 <= len(head):
        chunk, length = head[pos : pos + 4], struct.unpack(endian + "I", head[pos + 4 : pos + 8])[0]
        if chunk == b"fmt " and pos + 16 <= len(head):
            byte_rate = struct.unpack(endian + "I", head[pos + 16 : pos + 20])[0] if pos + 20 <= len(head) else 0
        if chunk == b"data":
            have = size - (pos + 8)
            if length != 0xFFFFFFFF and have < length:
                said = f"{length / byte_rate:.2f} s" if byte_rate else f"{length} bytes"
                held = f"{have / byte_rate:.2f} s" if byte_rate else f"{have} bytes"
                return [
                    f"{path.name} is shorter than its header says ({held} of {said}): it was probably cut off; "
                    "transcribing what is there"
                ]
            return []
        pos += 8 + length + (length & 1)
    return []

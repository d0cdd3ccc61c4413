"""Fuzz (fixed seed): 200 damaged audio files each decode or raise AudioError, never another exception."""

import io
import random

import numpy as np
import pytest
import soundfile as sf
from testdata import DATA

from engine.audio.files import load_audio
from engine.audio.sources import FileSource
from engine.errors import WhisperFlowError

SUFFIXES = [".wav", ".flac", ".ogg", ".mp3", ".aiff", ".txt", ""]


def originals() -> dict[str, bytes]:
    audio, rate = sf.read(DATA / "LJ001-0008.wav", dtype="float32")
    out = {".wav": (DATA / "LJ001-0008.wav").read_bytes()}
    for fmt, suffix in (("FLAC", ".flac"), ("OGG", ".ogg"), ("AIFF", ".aiff")):
        buf = io.BytesIO()
        sf.write(buf, audio[: rate // 2], rate, format=fmt)
        out[suffix] = buf.getvalue()
    return out


def corrupt(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    kind = rng.choice(["header", "body", "truncate", "both", "sizes", "empty-body"])
    if kind in ("header", "both"):
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(min(64, len(data)))] = rng.randrange(256)
    if kind in ("body", "both"):
        for _ in range(rng.randint(1, 200)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    if kind == "truncate":
        data = data[: rng.randrange(len(data))]
    if kind == "sizes":  # absurd chunk sizes / counts where the header keeps them
        pos = rng.choice([4, 16, 22, 24, 28, 32, 34, 40])
        data[pos : pos + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\xff\xff\xff\x7f"])
    if kind == "empty-body":
        data = data[:44]
    return bytes(data)


CASES = 200


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    rng = random.Random(15)
    base = originals()
    folder = tmp_path_factory.mktemp("fuzz")
    files = []
    for i in range(CASES):
        source = rng.choice(list(base))
        suffix = source if rng.random() < 0.7 else rng.choice(SUFFIXES)  # 30 %: a wrong (or no) extension
        path = folder / f"case{i:03d}{suffix}"
        path.write_bytes(corrupt(rng, base[source]))
        files.append(path)
    return files


def test_damaged_files_decode_or_raise_a_clear_error(damaged):
    outcomes = {"decoded": 0, "error": 0}
    for path in damaged:
        try:
            audio = load_audio(path)
        except WhisperFlowError as e:
            assert str(e) and path.name in str(e)
            outcomes["error"] += 1
            continue
        assert audio.dtype == np.float32 and audio.ndim == 1 and len(audio) and np.all(np.isfinite(audio))
        outcomes["decoded"] += 1
    assert outcomes["decoded"] > 20 and outcomes["error"] > 20, outcomes


def test_damaged_files_stream_or_raise_a_clear_error(damaged):
    for path in damaged:
        source = FileSource(path)
        try:
            source.start()
            while (chunk := source.read(16000)) is not None:
                assert np.all(np.isfinite(chunk))
        except WhisperFlowError:
            pass
        finally:
            source.stop()

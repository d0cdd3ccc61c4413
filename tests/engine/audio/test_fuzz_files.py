"""Fuzz (fixed seed): 200 damaged audio files each decode or raise AudioError, never another exception."""

import io
import random

import numpy as np
import pytest
import soundfile as sf
from testdata import DATA

from engine.audio.files import load_audio
from engine.audio.sources import FileSource
from engine.errors import AudioError

SUFFIXES = [".wav", ".flac", ".ogg", ".mp3", ".aiff", ".txt", ""]
PROBLEMS = ("damaged", "contains no audio", "Unsupported audio format")  # what a clear error says is wrong


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


def assert_clear(error: AudioError, path) -> None:
    """The message names the file and says what is wrong with it."""
    message = str(error)
    assert path.name in message and any(problem in message for problem in PROBLEMS), message


def test_damaged_files_decode_or_raise_a_clear_error(damaged):
    outcomes = {"decoded": 0, "error": 0}
    for path in damaged:
        try:
            audio = load_audio(path)
        except AudioError as e:
            assert_clear(e, path)
            outcomes["error"] += 1
            continue
        assert audio.dtype == np.float32 and audio.ndim == 1 and len(audio) and np.all(np.isfinite(audio))
        outcomes["decoded"] += 1
    assert outcomes["decoded"] > 20 and outcomes["error"] > 20, outcomes


def test_damaged_files_stream_or_raise_a_clear_error(damaged):
    errors = 0
    for path in damaged:
        source = FileSource(path)
        try:
            source.start()
            while (chunk := source.read(16000)) is not None:
                assert np.all(np.isfinite(chunk))
        except AudioError as e:
            assert_clear(e, path)
            errors += 1
        finally:
            source.stop()
    assert errors > 20

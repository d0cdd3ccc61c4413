"""FileSource and PacedFileSource on a real clip: same samples as load_audio, and wall-clock pacing."""

import time

import numpy as np
import pytest
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import FileSource, PacedFileSource
from engine.errors import AudioError

CLIP = DATA / "LJ001-0008.wav"  # 1.78 s


def drain(source, max_samples=None, timeout=0.05) -> list[np.ndarray]:
    chunks = []
    while (chunk := source.read(max_samples, timeout)) is not None:
        chunks.append(chunk)
    return chunks


def test_file_source_hands_out_the_whole_file_at_once():
    expected = load_audio(CLIP)
    with FileSource(CLIP) as src:
        assert src.name == CLIP.name and src.sample_rate == SAMPLE_RATE
        t = time.monotonic()
        chunks = drain(src, max_samples=4000)
        assert time.monotonic() - t < 0.1
    assert [len(c) for c in chunks[:-1]] == [4000] * (len(chunks) - 1)
    assert all(c.dtype == np.float32 for c in chunks)
    np.testing.assert_array_equal(np.concatenate(chunks), expected)
    with FileSource(CLIP) as src:
        assert len(src.read()) == len(expected) and src.read() is None


def test_file_source_stop_ends_the_stream_and_read_needs_start():
    src = FileSource(CLIP)
    with pytest.raises(RuntimeError, match="before start"):
        src.read()
    src.start()
    assert len(src.read(100)) == 100
    src.stop()
    assert src.read() is None


def test_file_source_reports_bad_files(tmp_path):
    with pytest.raises(AudioError, match="not found"):
        FileSource(tmp_path / "missing.wav").start()


@pytest.mark.parametrize("speed", [1.0, 3.0])
def test_paced_source_plays_at_wall_clock_speed(speed):
    expected = load_audio(CLIP)
    duration = len(expected) / SAMPLE_RATE / speed
    src = PacedFileSource(CLIP, speed=speed)
    src.start()
    t0 = time.monotonic()
    first = src.read(timeout=0)
    assert len(first) < 0.05 * SAMPLE_RATE * speed  # (almost) nothing has been played yet
    got, progress = [first], []
    while (chunk := src.read(None, timeout=0.05)) is not None:
        got.append(chunk)
        progress.append((time.monotonic() - t0, sum(map(len, got))))
    elapsed = time.monotonic() - t0
    src.stop()
    np.testing.assert_array_equal(np.concatenate(got), expected)
    assert duration * 0.95 <= elapsed <= duration + 0.5
    for t, n in progress:  # never ahead of the clock, never far behind
        assert n <= (t + 0.01) * SAMPLE_RATE * speed
        assert n >= min(len(expected), (t - 0.2) * SAMPLE_RATE * speed)


def test_paced_source_read_respects_max_samples_and_timeout():
    with PacedFileSource(CLIP) as src:
        time.sleep(0.3)
        first = src.read(1000)
        assert len(first) == 1000
        rest = src.read()
        assert 0.25 * SAMPLE_RATE <= len(first) + len(rest) <= 0.45 * SAMPLE_RATE
        t = time.monotonic()
        nxt = src.read(timeout=0.2)  # waits only until the next sample is due
        assert time.monotonic() - t < 0.1 and len(nxt) >= 1


def test_paced_source_releases_whole_blocks_and_sleeps_between_them():
    block = round(0.05 * SAMPLE_RATE)
    with PacedFileSource(CLIP, speed=2.0, block_s=0.05) as src:
        sizes = []
        while (chunk := src.read(None, timeout=0.05)) is not None:
            sizes.append(len(chunk))
    total = len(load_audio(CLIP))
    assert sum(sizes) == total
    assert all(n % block == 0 for n in sizes[:-1])  # the last may be the file's partial block
    # a reader waiting for audio sleeps until the next block is due instead of polling sample by sample
    assert len(sizes) <= 2 * -(-total // block) + 2


def test_paced_source_rejects_bad_speed_and_block():
    with pytest.raises(ValueError):
        PacedFileSource(CLIP, speed=0)
    with pytest.raises(ValueError):
        PacedFileSource(CLIP, block_s=0)

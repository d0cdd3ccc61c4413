"""ScreenCaptureKit buffers → 16 kHz mono, on buffers recorded the way SCStream delivers them."""

import sys

import numpy as np
import pytest
import soundfile as sf
import soxr
from testdata import DATA

from engine.audio.screencapture import (
    FLAG_IS_FLOAT,
    FLAG_NON_INTERLEAVED,
    MAX_GAP_S,
    PcmLayout,
    ScreenCaptureSource,
    gap_frames,
    make_resampler,
    sck_buffer_to_16k,
)
from engine.errors import DeviceError

FRAMES = 1024  # what ScreenCaptureKit hands the callback at 48 kHz


@pytest.fixture(scope="module")
def stereo_48k() -> np.ndarray:
    """A real speech clip as the Mac would play it: 48 kHz stereo float32, the right channel a quieter,
    slightly later copy (as from a room or a panned call participant). Shape (frames, 2)."""
    clip, rate = sf.read(DATA / "LJ001-0009.wav", dtype="float32")
    left = soxr.resample(clip, rate, 48000, quality="HQ").astype(np.float32)
    right = 0.6 * np.concatenate([np.zeros(37, np.float32), left[:-37]])
    return np.stack([left, right], axis=1)


def one_shot_16k(stereo: np.ndarray) -> np.ndarray:
    return soxr.resample(stereo.mean(axis=1, dtype=np.float32), 48000, 16000, quality="HQ")


def planar_buffers(stereo: np.ndarray, pad: int = 0) -> list[tuple[bytes, int]]:
    """(bytes, frames) per callback: channel planes back to back, each followed by `pad` alignment samples."""
    out = []
    for i in range(0, len(stereo), FRAMES):
        chunk = stereo[i : i + FRAMES]
        planes = [np.concatenate([chunk[:, c], np.full(pad, 9.0, np.float32)]) for c in range(2)]
        out.append((np.concatenate(planes).astype(np.float32).tobytes(), len(chunk)))
    return out


def interleaved_buffers(stereo: np.ndarray) -> list[tuple[bytes, int]]:
    return [
        (np.ascontiguousarray(stereo[i : i + FRAMES]).tobytes(), len(stereo[i : i + FRAMES]))
        for i in range(0, len(stereo), FRAMES)
    ]


def stream_16k(buffers: list[tuple[bytes, int]], layout: PcmLayout) -> np.ndarray:
    resampler = make_resampler(layout.sample_rate)
    parts = [sck_buffer_to_16k(data, layout, resampler, frames=frames) for data, frames in buffers]
    parts.append(sck_buffer_to_16k(b"", layout, resampler, last=True))
    return np.concatenate(parts)


@pytest.mark.parametrize("layout_name", ["planar", "planar_padded", "interleaved"])
def test_buffers_convert_to_the_same_16k_audio_as_a_one_shot_resample(stereo_48k, layout_name):
    if layout_name == "interleaved":
        buffers, layout = interleaved_buffers(stereo_48k), PcmLayout(48000, 2, interleaved=True)
    else:
        buffers = planar_buffers(stereo_48k, pad=3 if layout_name == "planar_padded" else 0)
        layout = PcmLayout(48000, 2, interleaved=False)
    assert len(buffers) > 300 and buffers[-1][1] < FRAMES  # many callbacks, the last one partial
    got = stream_16k(buffers, layout)
    want = one_shot_16k(stereo_48k)
    assert got.dtype == np.float32
    assert len(got) == len(want) == round(len(stereo_48k) / 3)
    assert np.max(np.abs(got - want)) < 1e-5  # seamless: no clicks or drift at 1024-frame boundaries
    assert np.sqrt(np.mean(want**2)) > 0.02  # and it really is the speech


def test_reading_the_wrong_layout_is_not_the_same_audio(stereo_48k):
    """Guards the test above: mixing up planar and interleaved data gives clearly different audio."""
    got = stream_16k(planar_buffers(stereo_48k), PcmLayout(48000, 2, interleaved=True))
    assert np.max(np.abs(got - one_shot_16k(stereo_48k))) > 0.01


def test_layout_from_stream_description():
    packed_float = FLAG_IS_FLOAT | 8  # kAudioFormatFlagIsPacked
    assert PcmLayout.from_asbd(48000.0, packed_float | FLAG_NON_INTERLEAVED, 2, 32) == PcmLayout(48000, 2, False)
    assert PcmLayout.from_asbd(44100.0, packed_float, 1, 32) == PcmLayout(44100, 1, True)
    with pytest.raises(DeviceError, match="16-bit"):
        PcmLayout.from_asbd(48000.0, 4 | 8, 2, 16)  # signed integer PCM


def test_gaps_in_presentation_times_become_silence():
    assert gap_frames(None, 10.0, 48000) == 0
    assert gap_frames(10.0, 10.001, 48000) == 0  # timestamp jitter
    assert gap_frames(10.0, 9.99, 48000) == 0  # overlap
    assert gap_frames(10.0, 10.5, 48000) == 24000
    assert gap_frames(10.0, 10.0 + 3600, 48000) == round(MAX_GAP_S * 48000)


@pytest.mark.skipif(sys.platform == "darwin", reason="checks the behaviour away from macOS")
def test_screen_capture_source_refuses_to_start_off_macos():
    with pytest.raises(DeviceError, match="only available on macOS"):
        ScreenCaptureSource().start()


class ReplayedCapture(ScreenCaptureSource):
    """The capture with only its macOS part (starting ScreenCaptureKit) left out: buffers arrive through the
    same callback entry point SCStream calls, and everything after it runs as on a Mac."""

    def start(self) -> None:
        self._started = True


def test_capture_reads_what_the_callback_queued_then_reports_a_stop(stereo_48k):
    source = ReplayedCapture()
    source.start()
    layout = PcmLayout(48000, 2, interleaved=False)
    for i, (data, frames) in enumerate(planar_buffers(stereo_48k)):
        source._on_buffer(data, layout, frames, i * FRAMES / 48000)
    got = [source.read(4000, timeout=0.0)]
    while len(got[-1]):
        got.append(source.read(4000, timeout=0.0))
    source._failure = "the display went away"  # what the SCStream delegate records when capture stops
    with pytest.raises(DeviceError, match="display went away"):
        source.read()
    audio = np.concatenate(got + [source._pending])
    want = one_shot_16k(stereo_48k)
    assert 0 <= len(want) - len(audio) < 0.05 * 16000  # all but the resampler's last few ms
    assert np.max(np.abs(audio - want[: len(audio)])) < 1e-4 * np.max(np.abs(want))

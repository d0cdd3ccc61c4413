"""load_audio/resample on real speech: every container we support, odd rates, channels, and broken files."""

import numpy as np
import pytest
import soundfile as sf
import soxr
from pulse_mic import aligned_correlation
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio, resample
from engine.errors import AudioError

CLIP = DATA / "LJ001-0008.wav"  # 1.78 s, 22.05 kHz mono


@pytest.fixture(scope="module")
def speech() -> tuple[np.ndarray, int]:
    audio, sr = sf.read(CLIP, dtype="float32")
    return audio, sr


def test_wav_at_native_rate_is_resampled_to_16k(speech):
    audio, sr = speech
    got = load_audio(CLIP)
    assert got.dtype == np.float32 and got.ndim == 1
    assert abs(len(got) - len(audio) * SAMPLE_RATE / sr) <= 2
    expected = soxr.resample(audio, sr, SAMPLE_RATE, quality="HQ")
    assert np.max(np.abs(got[: len(expected)] - expected[: len(got)])) < 1e-3


@pytest.mark.parametrize(
    "fmt,subtype,suffix,rate",
    [
        ("WAV", "PCM_16", ".wav", 44100),
        ("FLAC", "PCM_16", ".flac", 48000),
        ("OGG", "VORBIS", ".ogg", 44100),
        ("OGG", "OPUS", ".opus", 48000),
        ("MP3", "MPEG_LAYER_III", ".mp3", 44100),  # libsndfile >= 1.1 writes and reads MP3 (gapless)
    ],
)
def test_each_format_decodes_to_the_same_speech(tmp_path, speech, fmt, subtype, suffix, rate):
    audio, sr = speech
    at_rate = soxr.resample(audio, sr, rate)
    stereo = np.stack([at_rate, 0.5 * at_rate], axis=1)  # downmix must give 0.75 * speech
    path = tmp_path / f"speech{suffix}"
    sf.write(path, stereo, rate, format=fmt, subtype=subtype)
    got = load_audio(path)
    reference = load_audio(CLIP)
    assert got.dtype == np.float32 and got.ndim == 1
    assert abs(len(got) - len(reference)) <= 2
    corr, lag = aligned_correlation(reference, got)
    assert corr > 0.99, f"{fmt}/{subtype}: correlation {corr:.3f}"
    assert lag <= 16  # 1 ms: no codec delay left in
    window = got[int(lag) : int(lag) + len(reference)]
    gain = float(np.dot(window, reference[: len(window)]) / np.dot(reference[: len(window)], reference[: len(window)]))
    assert gain == pytest.approx(0.75, abs=0.05)


@pytest.mark.parametrize("rate", [8000, 11025, 16000, 32000, 44100, 48000, 96000])
def test_any_rate_keeps_duration_and_pitch(tmp_path, rate):
    seconds, freq = 1.5, 440.0
    t = np.arange(int(seconds * rate)) / rate
    path = tmp_path / f"tone{rate}.wav"
    sf.write(path, 0.5 * np.sin(2 * np.pi * freq * t), rate, subtype="FLOAT")
    got = load_audio(path)
    assert abs(len(got) - seconds * SAMPLE_RATE) <= 2
    spectrum = np.abs(np.fft.rfft(got[1000:-1000] * np.hanning(len(got) - 2000)))
    peak_hz = np.argmax(spectrum) * SAMPLE_RATE / (len(got) - 2000)
    assert peak_hz == pytest.approx(freq, abs=2.0)
    assert np.sqrt(np.mean(got[1000:-1000] ** 2)) == pytest.approx(0.5 / np.sqrt(2), rel=0.02)


def test_resample_function(speech):
    audio, sr = speech
    out = resample(audio, sr)
    assert out.dtype == np.float32 and abs(len(out) - len(audio) * SAMPLE_RATE / sr) <= 1
    same = resample(out, SAMPLE_RATE)
    assert same is out or np.array_equal(same, out)


def test_missing_file(tmp_path):
    with pytest.raises(AudioError, match="not found"):
        load_audio(tmp_path / "nope.wav")


def test_folder_is_not_audio(tmp_path):
    with pytest.raises(AudioError, match="folder"):
        load_audio(tmp_path)


def test_corrupt_wav(tmp_path):
    path = tmp_path / "broken.wav"
    path.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt " + np.random.default_rng(0).bytes(400))
    with pytest.raises(AudioError, match="damaged"):
        load_audio(path)


def test_unsupported_format(tmp_path):
    path = tmp_path / "talk.m4a"
    path.write_bytes(b"\x00\x00\x00\x20ftypM4A " + bytes(200))
    with pytest.raises(AudioError, match="Unsupported audio format"):
        load_audio(path)


def test_empty_wav(tmp_path):
    path = tmp_path / "empty.wav"
    sf.write(path, np.zeros(0, np.float32), 16000)
    with pytest.raises(AudioError, match="no audio"):
        load_audio(path)

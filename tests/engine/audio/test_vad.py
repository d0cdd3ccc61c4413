"""Voice activity on real speech with silence around it, and on silence and noise alone."""
import numpy as np
import pytest

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.vad import VoiceActivity
from testdata import DATA


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    return load_audio(DATA / "LJ001-0009.wav")  # 7.55 s of read speech


def test_finds_the_speech_between_silences(speech):
    vad = VoiceActivity()
    silence = np.zeros(2 * SAMPLE_RATE, np.float32)
    audio = np.concatenate([silence, speech, silence])
    for start in range(0, len(audio), 1234):  # fed in odd-sized blocks, as a device delivers it
        vad.feed(audio[start:start + 1234])
    assert vad.heard_s == pytest.approx(len(audio) / SAMPLE_RATE, abs=0.04)
    assert not vad.speech_in(0.0, 1.8)
    assert vad.speech_in(2.5, 3.5)
    assert not vad.speech_in(2.0 + len(speech) / SAMPLE_RATE + 0.5, vad.heard_s)
    assert vad.last_speech_end() == pytest.approx(2.0 + len(speech) / SAMPLE_RATE, abs=0.5)


def test_silence_and_quiet_noise_are_not_speech():
    rng = np.random.default_rng(0)
    white = rng.standard_normal(10 * SAMPLE_RATE)
    pink = np.fft.irfft(np.fft.rfft(white) / np.sqrt(np.arange(1, len(white) // 2 + 2))).astype(np.float32)
    for audio in (np.zeros(10 * SAMPLE_RATE, np.float32), 0.01 * pink / np.abs(pink).max()):
        vad = VoiceActivity()
        vad.feed(audio)
        assert vad.last_speech_end() is None

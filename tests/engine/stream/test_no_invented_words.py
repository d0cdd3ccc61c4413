"""Nothing invented: silence, quiet noise and near-empty input give no words; every time lies within the audio.

Rounds are driven by direct processor calls (the --pace fast loop without its clock), with greedy decoding
and 4 s chunks to keep two minutes of audio quick on two cores.
"""

import numpy as np
from testdata import DATA, REPO

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.stream.config import StreamConfig, build_processor

CHUNK_S = 4


def stream_words(model, audio: np.ndarray, policy: str = "baseline", beam: int = 1, chunk_s: float = CHUNK_S):
    processor, _ = build_processor(model, StreamConfig(policy=policy, beam_size=beam, pipeline=False))
    words = []
    step = int(chunk_s * SAMPLE_RATE)
    for i in range(0, len(audio), step):
        processor.insert_audio_chunk(audio[i : i + step])
        words += processor.process_iter()
    words += processor.finish()
    processor.close()
    return words


def pink_noise(seconds: float, rms: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * SAMPLE_RATE)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    spectrum[1:] /= np.sqrt(np.arange(1, len(spectrum)))
    x = np.fft.irfft(spectrum, n)
    return (x / np.sqrt(np.mean(x**2)) * rms).astype(np.float32)


def test_two_minutes_of_digital_silence_give_no_words(tiny_model):
    assert stream_words(tiny_model, np.zeros(120 * SAMPLE_RATE, np.float32), policy="flow") == []


def test_two_minutes_of_quiet_pink_noise_give_no_words(tiny_model):
    words = stream_words(tiny_model, pink_noise(120, 0.003), chunk_s=10)
    assert words == [], [w.text for w in words]


def test_a_near_empty_file_gives_no_words_and_no_negative_times(tiny_model, tmp_path):
    clip = tmp_path / "cut.wav"
    clip.write_bytes((REPO / "assets" / "sample.wav").read_bytes()[:1000])  # 0.03 s of audio
    words = stream_words(tiny_model, load_audio(clip))
    assert words == [], [w.text for w in words]


def test_speech_after_a_second_of_silence_has_no_invented_opening(tiny_model):
    speech = load_audio(DATA / "LJ001-0009.wav")
    audio = np.concatenate([np.zeros(SAMPLE_RATE, np.float32), speech, np.zeros(3 * SAMPLE_RATE, np.float32)])
    words = stream_words(tiny_model, audio, chunk_s=2)
    text = " ".join(w.text for w in words).lower()
    assert text.startswith("printing"), text
    assert "thank" not in text and "watching" not in text
    duration = len(audio) / SAMPLE_RATE
    assert all(0 <= w.start <= w.end <= duration for w in words)

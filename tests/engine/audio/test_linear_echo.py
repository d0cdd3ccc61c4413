"""The linear echo filter: it learns the echo path from Them's audio and subtracts the echo, and leaves your voice as
it was, where you talk over Them too."""

import numpy as np
from testdata import DATA

from engine.audio.echo_canceller import FAR_FLOOR, FRAME
from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.linear_echo import LinearEchoFilter

DELAY_S = 0.08


def _room(far: np.ndarray) -> np.ndarray:
    """far as a microphone hears it from a speaker: 80 ms late, 10 dB down, with a decaying reflection tail."""
    rng = np.random.default_rng(0)
    tail = rng.standard_normal(int(0.15 * SAMPLE_RATE)) * np.exp(-np.arange(int(0.15 * SAMPLE_RATE)) / 800)
    response = np.zeros(int(DELAY_S * SAMPLE_RATE) + len(tail))
    response[int(DELAY_S * SAMPLE_RATE)] = 1.0
    response[int(DELAY_S * SAMPLE_RATE) :] += 0.1 * tail
    response *= 10 ** (-10 / 20) / np.sqrt(np.sum(response**2))
    return np.convolve(far, response)[: len(far)].astype(np.float32)


def _filtered(far: np.ndarray, near: np.ndarray) -> np.ndarray:
    f = LinearEchoFilter(FRAME)
    n = len(near) // FRAME * FRAME
    frames = [(far[i : i + FRAME], near[i : i + FRAME]) for i in range(0, n, FRAME)]
    return np.concatenate([f.subtract(a, b, np.sqrt(np.mean(a**2)) >= FAR_FLOOR) for a, b in frames])


def _db(x: np.ndarray) -> float:
    return 10 * np.log10(np.mean(x**2) + 1e-20)


def test_the_echo_is_subtracted_and_your_voice_over_theirs_kept():
    them = np.concatenate([load_audio(DATA / "LJ001-0003.wav"), load_audio(DATA / "LJ001-0004.wav")])
    you = load_audio(DATA / "acoustic_corpus_10s.wav")[: 3 * SAMPLE_RATE]
    echo = _room(them)
    mine = np.zeros_like(them)
    at = len(them) - len(you) - SAMPLE_RATE  # you talk over Them's last seconds
    mine[at : at + len(you)] = you
    out = _filtered(them, mine + echo)
    n = len(out)
    learnt = slice(6 * SAMPLE_RATE, at)  # Them alone, after six seconds of Them
    assert _db(out[learnt]) < _db(echo[learnt]) - 15  # the echo, 15 dB or more down
    both = slice(at, min(at + len(you), n))
    left = out[both] - mine[both]  # what is not your voice: the echo left, and any of your voice taken
    assert _db(left) < _db(mine[both]) - 15
    assert abs(_db(out[both]) - _db(mine[both])) < 1.0  # your voice, as loud as it was


def test_without_their_audio_your_microphone_passes_as_it_came():
    you = load_audio(DATA / "acoustic_corpus_10s.wav")[: 2 * SAMPLE_RATE]
    out = _filtered(np.zeros_like(you), you)
    np.testing.assert_allclose(out, you[: len(out)], atol=1e-6)


def test_the_filter_has_learnt_the_echo_path_once_it_removes_learnt_db_of_it():
    them = load_audio(DATA / "LJ001-0003.wav")
    echo = _room(them) + np.random.default_rng(0).standard_normal(len(them)).astype(np.float32) * 0.002
    f = LinearEchoFilter(FRAME)
    learnt = []
    for i in range(0, len(them) // FRAME * FRAME, FRAME):
        f.subtract(them[i : i + FRAME], echo[i : i + FRAME], np.sqrt(np.mean(them[i : i + FRAME] ** 2)) >= FAR_FLOOR)
        learnt.append(f.learnt)
    first = learnt.index(True) * FRAME / SAMPLE_RATE
    assert 1.0 < first < 7.0  # 5.35 s: not before it has heard Them for a while, and for good once it has
    assert all(learnt[learnt.index(True) :])

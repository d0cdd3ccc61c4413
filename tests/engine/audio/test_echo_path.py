"""The echo path: found by the delay at which your microphone repeats Them's audio, never between two voices."""

import numpy as np

from engine.audio.echo_path import FORGET_BLOCKS, SAME_DELAY, EchoPath
from engine.audio.files import SAMPLE_RATE

FRAME = SAMPLE_RATE // 100


def _hear(path: EchoPath, near: np.ndarray, far: np.ndarray) -> list[bool]:
    """Whether the path was present after each frame."""
    present = []
    for i in range(0, min(len(near), len(far)) // FRAME * FRAME, FRAME):
        path.hear(near[i : i + FRAME], far[i : i + FRAME])
        present.append(path.present)
    return present


def _them_starts(them: np.ndarray) -> float:
    loud = np.flatnonzero(np.abs(them) > 0.01)
    return loud[0] / SAMPLE_RATE


def test_an_echo_is_found_at_its_delay_within_two_seconds_of_them_speaking(call):
    built, _ = call
    for track in ("you-echo10", "you-echo3"):
        path = EchoPath()
        present = _hear(path, built.tracks[track], built.tracks["them"])
        found = present.index(True) / 100
        assert found < _them_starts(built.tracks["them"]) + 2.0
        assert abs(path.delay - built.echo_delay_s * SAMPLE_RATE) <= SAME_DELAY
        assert all(present[present.index(True) :])  # and kept


def test_two_voices_at_once_are_no_echo(call):
    built, _ = call
    path = EchoPath()
    assert not any(_hear(path, built.tracks["you-noecho"], built.tracks["them"]))


def test_the_path_is_forgotten_after_them_speaks_long_without_an_echo(call):
    """Headphones plugged in during a call: the echo stops, and after FORGET_BLOCKS of Them's speech so does the
    canceller."""
    built, _ = call
    path = EchoPath()
    assert _hear(path, built.tracks["you-echo10"], built.tracks["them"])[-1]
    rounds = 0
    while path.present and rounds < 50:
        _hear(path, built.tracks["you-noecho"], built.tracks["them"])
        rounds += 1
    assert not path.present
    them_speech_s = np.mean(np.abs(built.tracks["them"]) > 0.01) * len(built.tracks["them"]) / SAMPLE_RATE
    assert rounds * them_speech_s >= FORGET_BLOCKS * 0.5 * 0.5  # at least that many half seconds, half speech

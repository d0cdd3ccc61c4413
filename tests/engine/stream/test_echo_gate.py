"""The echo gate: your microphone hearing only Them's echo is quiet; your voice over the echo (double-talk) is not."""

import numpy as np
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.vad import SpeechDetector
from engine.session.events import RoundEvent, StreamUpdate
from engine.stream.echo_gate import EchoGate

START, END = 1.0, 3.0  # Them speaks throughout (LJ001-0003's "although the Chinese took")


def _gate_over(them: np.ndarray) -> EchoGate:
    vad = SpeechDetector()
    vad.accept(them)
    gate = EchoGate(vad)
    chunk = them[int(START * SAMPLE_RATE) : int(END * SAMPLE_RATE)]
    level = float(np.sqrt(np.mean(chunk**2)))
    gate.hear(StreamUpdate([], [], END, 0.0, END, level, RoundEvent(START, END, END)))
    return gate


def test_only_their_echo_is_quiet_your_voice_over_it_is_not():
    them = load_audio(DATA / "LJ001-0003.wav")
    you = load_audio(DATA / "acoustic_corpus_10s.wav")
    gate = _gate_over(them)
    span = slice(int(START * SAMPLE_RATE), int(END * SAMPLE_RATE))
    mine = you[span] / np.sqrt(np.mean(you[span] ** 2)) * np.sqrt(np.mean(them[span] ** 2))  # as loud as Them
    for db in (10, 3):
        echo = them[span] * 10 ** (-db / 20)
        assert gate.quiet(echo, START)
        assert not gate.quiet(echo + mine, START)
    assert gate.gated == 2


def test_nothing_is_gated_while_them_is_silent():
    them = np.zeros(4 * SAMPLE_RATE, np.float32)
    gate = _gate_over(them)
    assert not gate.quiet(np.full(SAMPLE_RATE, 1e-4, np.float32), START)

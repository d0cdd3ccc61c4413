"""The call fixture's parts at speech level: a cough in a clip does not bring its speech under the voice-activity
detector's threshold (You's first turn, cold_corpus.wav 1.65–9.05 s with a cough 20 dB over the speech, went missing
from the stream: the detector heard 0.6 s of its 6 s)."""

import pytest

from engine.audio.vad import SpeechDetector
from tools.call.fixture import CORPUS, build_call, read_recipe


@pytest.mark.skipif(not CORPUS.exists(), reason="needs shared/corpus")
def test_your_first_turn_with_a_cough_is_heard_as_speech():
    call = build_call(read_recipe()[:2], CORPUS, seed=0)  # Them's first turn, then your turn with the cough
    yours = next(p for p in call.placed if p.part.side == "you")
    assert "cold_corpus" in yours.part.path
    detector = SpeechDetector()
    detector.accept(call.tracks["you-noecho"])
    said = sum(w.duration for w in call.references["you"])
    assert detector.speech_between(yours.offset, yours.end) >= 0.9 * said

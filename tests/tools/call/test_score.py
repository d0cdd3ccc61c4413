"""The call's scores: words labelled right counts only the words the call recognized, under either label."""

from engine.session.words import Word
from tools.call.score import labelled


def _words(text: str, speaker: str, start: float) -> list[Word]:
    return [Word(t, start + i * 0.3, start + i * 0.3 + 0.2, speaker=speaker) for i, t in enumerate(text.split())]


def test_a_misrecognized_word_is_not_a_wrong_label():
    reference = "so how was the trip".split()
    heard = _words("so how was a trip", "you", 0.0)  # "the" heard as "a": a recognition error, not a label's
    assert labelled(reference, heard, "you") == 1.0


def test_a_word_under_the_other_side_is_labelled_wrong_in_time_order():
    reference = "so how was the trip".split()
    heard = _words("so how", "you", 0.0) + _words("was the trip", "them", 0.6) + _words("fine thanks", "them", 3.0)
    assert labelled(reference, heard, "you") == 2 / 5
    assert labelled("fine thanks".split(), heard, "them") == 1.0


def test_nothing_recognized_gives_no_share():
    assert labelled("hello there".split(), _words("goodbye", "you", 0.0), "you") is None

"""The call's scores: words labelled right counts only the words the call recognized, under either label."""

from engine.session.words import Word
from tools.call.score import labelled


def _words(text: str, speaker: str, start: float) -> list[Word]:
    return [Word(t, start + i * 0.3, start + i * 0.3 + 0.2, speaker=speaker) for i, t in enumerate(text.split())]


def _reference(text: str, start: float) -> list[dict]:
    return [{"text": w.text, "start": w.start, "end": w.end} for w in _words(text, "", start)]


def test_a_misrecognized_word_is_not_a_wrong_label():
    said = {"you": _words("so how was a trip", "you", 0.0), "them": []}  # "the" heard as "a": not a label's error
    assert labelled(_reference("so how was the trip", 0.0), said, "you") == 1.0


def test_a_word_heard_under_the_other_side_when_it_was_said_is_labelled_wrong():
    said = {
        "you": _words("so how", "you", 0.0),
        "them": _words("was the trip", "them", 0.6) + _words("fine", "them", 3),
    }
    assert labelled(_reference("so how was the trip", 0.0), said, "you") == 2 / 5
    assert labelled(_reference("fine", 3.0), said, "them") == 1.0


def test_the_other_side_saying_the_same_word_later_is_not_this_sides_word():
    said = {"you": _words("so how", "you", 0.0), "them": _words("was the trip", "them", 5.0)}
    assert labelled(_reference("so how was the trip", 0.0), said, "you") == 1.0


def test_nothing_recognized_gives_no_share():
    assert labelled(_reference("hello there", 0.0), {"you": _words("goodbye", "you", 0.0), "them": []}, "you") is None

"""The word type's moves (buffer clock to stream clock, into the audio, confirmed) and the records a confirmed
word makes: the JSONL line and the journal line, byte for byte."""

import json

import pytest

from engine.session.events import word_record
from engine.session.journal import _word_line
from engine.session.words import Word, WordEvent


def test_shifted_moves_both_ends_and_keeps_the_rest():
    word = Word(" printing", 0.25, 0.75, 0.8)
    assert word.shifted(10.0) == Word(" printing", 10.25, 10.75, 0.8)
    assert word.shifted(0.0) == word and word.duration == 0.5


@pytest.mark.parametrize(
    "start, end, clamped",
    [
        (0.5, 1.5, (0.5, 1.5)),  # inside: unchanged
        (-0.3, 0.4, (0.0, 0.4)),  # starts before the audio
        (1.5, 2.5, (1.5, 2.0)),  # runs past its end
        (2.2, 2.6, (2.0, 2.0)),  # wholly after it: an instant at the end
        (0.9, 0.7, (0.9, 0.9)),  # ends before it starts: an instant at its start
        (-0.5, -0.6, (0.0, 0.0)),
    ],
)
def test_clamped_keeps_start_and_end_in_order_within_the_bounds(start, end, clamped):
    assert Word("a", start, end, 0.3).clamped(0.0, 2.0) == Word("a", *clamped, 0.3)


def test_stripped_drops_the_tokenizers_space():
    assert Word(" books,", 1.0, 1.2, 0.9).stripped() == Word("books,", 1.0, 1.2, 0.9)


def test_a_confirmed_word_is_a_word_with_its_confirmation_times():
    word = Word("printing", 0.0, 0.4, 0.95)
    event = word.confirmed(2.0, shown=1.5)
    assert isinstance(event, Word) and event == WordEvent("printing", 0.0, 0.4, 0.95, emitted=2.0, shown=1.5)
    assert (event.text, event.start, event.end, event.probability) == ("printing", 0.0, 0.4, 0.95)
    assert word.confirmed(2.0).shown is None and event.type == "word"
    assert event.shifted(1.0) == WordEvent("printing", 1.0, 1.4, 0.95, emitted=2.0, shown=1.5)  # still confirmed
    with pytest.raises(TypeError):
        WordEvent("printing", 0.0, 0.4, 2.0)  # emitted by name only: positionally it would be the probability


def test_the_jsonl_and_journal_lines_of_a_confirmed_word_are_unchanged():
    event = Word("type,", 1.23456, 1.5, 0.87654).confirmed(3.0004, shown=2.5)
    assert json.dumps(word_record(event)) == (
        '{"type": "word", "text": "type,", "start": 1.235, "end": 1.5, "emitted": 3.0, "shown": 2.5,'
        ' "probability": 0.877}'
    )
    assert json.dumps(word_record(Word("a", 0, 0.1).confirmed(1.0))).endswith(
        '"emitted": 1.0, "shown": 1.0, "probability": 1.0}'
    )
    assert _word_line(event) == _word_line(Word("type,", 1.23456, 1.5, 0.87654))
    assert _word_line(event) == '{"text": "type,", "start": 1.235, "end": 1.5, "probability": 0.8765}\n'

"""Segments get their words from the alignment of all their tokens, with openai-whisper's edits: punctuation
joins its word, each segment takes as many tokens as it has, and overlong words at pauses and edges are cut."""

import pytest

from engine.decoder.options import Segment
from engine.decoder.timing_helpers import WordTiming
from engine.decoder.word_timing import fill_segment_words
from engine.session.words import Word


def timed(*spec: tuple[str, int, float, float]) -> list[WordTiming]:
    """One tokenizer word per (text, token count, start, end), its tokens numbered on from the last."""
    timings, token = [], 0
    for text, count, start, end in spec:
        timings.append(WordTiming(text, list(range(token, token + count)), start, end, 0.5 + token / 100))
        token += count
    return timings


def test_segments_take_their_tokens_words_and_punctuation_joins_its_word():
    alignment = timed((" One", 1, 0.1, 0.5), (" two", 1, 0.5, 0.9), (".", 1, 0.9, 0.9), (" Three", 2, 1.2, 1.601))
    first, second = Segment(0.0, 1.0, " One two.", [0, 1, 2]), Segment(1.0, 1.7, " Three", [3, 4])
    fill_segment_words([first, second], alignment, "en")
    assert first.words == [Word(" One", 0.1, 0.5, 0.5), Word(" two.", 0.5, 0.9, 0.51)]
    assert second.words == [Word(" Three", 1.2, 1.6, 0.53)]  # to 10 ms
    assert (first.start, first.end, second.start, second.end) == (0.1, 0.9, 1.2, 1.6)  # the words' ends


def test_an_overlong_first_word_after_a_pause_is_cut_to_twice_the_median():
    alignment = timed((" x", 1, 2.0, 4.0), (" y", 1, 4.0, 4.2), (" z", 1, 4.2, 4.4))
    segment = Segment(3.5, 4.4, " x y z", [0, 1, 2])
    fill_segment_words([segment], alignment, "en")
    assert [w.text for w in segment.words] == [" x", " y", " z"]
    assert segment.words[0].start == pytest.approx(3.6) and segment.start == segment.words[0].start
    assert segment.words[0].end == 4.0 and segment.end == 4.4


def test_a_last_word_running_far_past_its_segment_ends_with_it():
    alignment = timed((" a", 1, 0.0, 0.2), (" b", 1, 0.2, 0.4), (" c", 1, 0.4, 3.0))
    segment = Segment(0.0, 1.0, " a b c", [0, 1, 2])
    fill_segment_words([segment], alignment, "en")
    assert segment.words[-1] == Word(" c", 0.4, 1.0, 0.52) and (segment.start, segment.end) == (0.0, 1.0)

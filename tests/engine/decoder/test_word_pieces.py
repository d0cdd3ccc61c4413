"""Word pieces join the way Whisper's tokenizer spells the text: "self-substantial", not "self -substantial"."""
from __future__ import annotations

import numpy as np
import pytest

from engine.decoder.timing_helpers import WordTiming, join_word_pieces, median_filter, merge_punctuations
from engine.decoder.word_timing import APPEND_PUNCTUATIONS, PREPEND_PUNCTUATIONS
from engine.session.transcript import join_words
from engine.session.words import Word


def _timed_words(tokenizer, text: str) -> list[WordTiming]:
    """The tokenizer's words for text, timed 0.1 s apart, then merged as engine/decoder/word_timing.py does."""
    tokens = tokenizer.encode(text)
    words, word_tokens = tokenizer.split_to_word_tokens(tokens)
    alignment = [WordTiming(w, t, i / 10, (i + 1) / 10, 0.9) for i, (w, t) in enumerate(zip(words, word_tokens))]
    merge_punctuations(alignment, PREPEND_PUNCTUATIONS, APPEND_PUNCTUATIONS)
    join_word_pieces(alignment, tokenizer.language)
    return [t for t in alignment if t.word]


@pytest.mark.parametrize("text, expected", [
    (" It is self-substantial, he said.", ["It", "is", "self-substantial,", "he", "said."]),
    (" A well-known state-of-the-art model.", ["A", "well-known", "state-of-the-art", "model."]),
    (" It costs 3.5 dollars (about that).", ["It", "costs", "3.5", "dollars", "(about", "that)."]),
])
def test_pieces_without_a_space_join_the_previous_word(tiny_model, text, expected):
    timed = _timed_words(tiny_model.tokenizer(), text)
    assert [t.word.strip() for t in timed] == expected
    words = [Word(t.word.strip(), t.start, t.end, t.probability) for t in timed]
    assert join_words(words) == text.strip()  # captions, transcript and exports read as the tokenizer spells it
    hyphenated = next(t for t in timed if "-" in t.word) if "-" in text else None
    if hyphenated is not None:
        assert hyphenated.end > hyphenated.start and sum(len(t.tokens) for t in timed) == len(
            tiny_model.tokenizer().encode(text))  # no token lost


def test_languages_without_spaces_are_left_alone():
    alignment = [WordTiming("你", [1], 0, .1, .9), WordTiming("好", [2], .1, .2, .9)]
    join_word_pieces(alignment, "zh")
    assert [t.word for t in alignment] == ["你", "好"]


def test_the_numpy_median_filter_matches_a_direct_computation():
    x = np.random.default_rng(0).standard_normal((3, 5, 40)).astype(np.float32)
    padded = np.pad(x, ((0, 0), (0, 0), (3, 3)), mode="reflect")
    direct = np.stack([np.median(padded[..., i:i + 7], axis=-1) for i in range(40)], axis=-1)
    assert np.array_equal(median_filter(x, 7), direct)

"""Word pieces join the way Whisper's tokenizer spells the text ("self-substantial", not "self -substantial"),
and the median filter and DTW behind word times compute what openai-whisper's do."""

from __future__ import annotations

import numpy as np
import pytest

from engine.decoder.timing_helpers import WordTiming, join_word_pieces, median_filter, merge_punctuations
from engine.decoder.word_timing import APPEND_PUNCTUATIONS, PREPEND_PUNCTUATIONS, dtw
from engine.session.transcript import join_words


def _timed_words(tokenizer, text: str) -> list[WordTiming]:
    """The tokenizer's words for text, timed 0.1 s apart, then merged as engine/decoder/word_timing.py does."""
    tokens = tokenizer.encode(text)
    words, word_tokens = tokenizer.split_to_word_tokens(tokens)
    alignment = [WordTiming(w, t, i / 10, (i + 1) / 10, 0.9) for i, (w, t) in enumerate(zip(words, word_tokens))]
    merge_punctuations(alignment, PREPEND_PUNCTUATIONS, APPEND_PUNCTUATIONS)
    join_word_pieces(alignment, tokenizer.language)
    return [t for t in alignment if t.word]


@pytest.mark.parametrize(
    "text, expected",
    [
        (" It is self-substantial, he said.", ["It", "is", "self-substantial,", "he", "said."]),
        (" A well-known state-of-the-art model.", ["A", "well-known", "state-of-the-art", "model."]),
        (" It costs 3.5 dollars (about that).", ["It", "costs", "3.5", "dollars", "(about", "that)."]),
    ],
)
def test_pieces_without_a_space_join_the_previous_word(tiny_model, text, expected):
    timed = _timed_words(tiny_model.tokenizer(), text)
    assert [t.word.strip() for t in timed] == expected
    words = [t.to_word().stripped() for t in timed]
    assert join_words(words) == text.strip()  # captions, transcript and exports read as the tokenizer spells it
    hyphenated = next(t for t in timed if "-" in t.word) if "-" in text else None
    if hyphenated is not None:
        assert hyphenated.end > hyphenated.start and sum(len(t.tokens) for t in timed) == len(
            tiny_model.tokenizer().encode(text)
        )  # no token lost


def test_languages_without_spaces_are_left_alone():
    alignment = [WordTiming("你", [1], 0, 0.1, 0.9), WordTiming("好", [2], 0.1, 0.2, 0.9)]
    join_word_pieces(alignment, "zh")
    assert [t.word for t in alignment] == ["你", "好"]


def test_the_numpy_median_filter_matches_a_direct_computation():
    x = np.random.default_rng(0).standard_normal((3, 5, 40)).astype(np.float32)
    padded = np.pad(x, ((0, 0), (0, 0), (3, 3)), mode="reflect")
    direct = np.stack([np.median(padded[..., i : i + 7], axis=-1) for i in range(40)], axis=-1)
    assert np.array_equal(median_filter(x, 7), direct)


def _dtw_reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """openai-whisper's dtw_cpu, cell by cell."""
    n, m = x.shape
    cost = np.full((n + 1, m + 1), np.inf)
    trace = -np.ones((n + 1, m + 1), dtype=np.int64)
    cost[0, 0] = 0
    for j in range(1, m + 1):
        for i in range(1, n + 1):
            c0, c1, c2 = cost[i - 1, j - 1], cost[i - 1, j], cost[i, j - 1]
            if c0 < c1 and c0 < c2:
                c, t = c0, 0
            elif c1 < c0 and c1 < c2:
                c, t = c1, 1
            else:
                c, t = c2, 2
            cost[i, j] = x[i - 1, j - 1] + c
            trace[i, j] = t
    trace[0, :], trace[:, 0] = 2, 1
    i, j, path = n, m, []
    while i > 0 or j > 0:
        path.append((i - 1, j - 1))
        i, j = (i - 1, j - 1) if trace[i, j] == 0 else (i - 1, j) if trace[i, j] == 1 else (i, j - 1)
    return tuple(np.array(path[::-1]).T)


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (7, 40), (30, 200)])
def test_the_row_scan_dtw_takes_openai_whispers_path(shape):
    rng = np.random.default_rng(sum(shape))
    continuous = rng.standard_normal(shape)
    with_ties = rng.integers(-2, 3, shape).astype(np.float64)  # small integers: many exact ties
    for x in (continuous, with_ties):
        rows, cols = dtw(x)
        expected_rows, expected_cols = _dtw_reference(x)
        assert np.array_equal(rows, expected_rows) and np.array_equal(cols, expected_cols)

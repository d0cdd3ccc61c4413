"""The listed words' prefix tree: a bonus on the tokens that continue a word being spelled, a small one on the first
tokens of a word elsewhere, nothing else."""

import numpy as np

from engine.decoder.word_bias import CONTINUE_BONUS, FIRST_BONUS, WordBias, spellings

BEGIN = 3  # sampled text starts here in each sequence


def bonus(bias: WordBias, *sampled: list[int]) -> np.ndarray:
    logprobs = np.zeros((len(sampled), 20), np.float32)
    bias.add_to(logprobs, [[0, 1, 2, *s] for s in sampled], BEGIN)
    return logprobs


def test_spellings_with_and_without_a_space_as_written_and_capitalised():
    assert spellings("psalters") == [" psalters", "psalters", " Psalters", "Psalters"]
    assert spellings("Gutenberg") == [" Gutenberg", "Gutenberg"]


def test_only_a_word_being_spelled_gets_its_next_tokens_bonus():
    bias = WordBias([[10, 11, 12], [10, 13], [14]], [[10, 11, 12], [10, 13], [14]])
    outside, after_first, after_second, left_the_tree = bonus(bias, [5], [5, 10], [10, 11], [10, 11, 12, 7])
    assert set(np.flatnonzero(outside)) == {10, 14} and outside[10] == FIRST_BONUS
    assert set(np.flatnonzero(after_first)) == {11, 13} and after_first[11] == CONTINUE_BONUS
    assert set(np.flatnonzero(after_second)) == {12}
    assert set(np.flatnonzero(left_the_tree)) == {10, 14}


def test_the_prompt_before_the_sampled_text_does_not_count():
    bias = WordBias([[2, 11]], [[2, 11]])  # the prompt's last token (2) starts a listed word
    (row,) = bonus(bias, [])
    assert set(np.flatnonzero(row)) == {2}


def test_a_spelling_without_a_leading_space_is_continued_but_not_started():
    # " birch" opens a word; "birch" (after a quote or a hyphen) begins with "b", a piece of many other words
    opener, inner = [12, 13], [5, 14]
    bias = WordBias([opener, inner], [opener])
    outside, after_b = bonus(bias, [7], [7, 5])
    assert set(np.flatnonzero(outside)) == {12}
    assert set(np.flatnonzero(after_b)) == {14} and after_b[14] == CONTINUE_BONUS

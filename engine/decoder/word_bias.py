"""Contextual biasing toward listed words: a token prefix tree of their spellings and a log-probability bonus for
the tokens that continue one (hotword boosting, as TCPGen-style trie biasing without the learned part).

Each listed word is spelled four ways (with and without a leading space, as written and capitalised); every
prefix of a spelling is a node of the tree, with the tokens that may follow it. At a decoding step a hypothesis
whose sampled text ends in a node (the longest one) gets CONTINUE_BONUS on that node's next tokens: the word is
being spelled. A hypothesis that is not inside a listed word gets FIRST_BONUS on the first tokens of the spellings
that open a word (those with a leading space). A spelling without one (after a quote or a hyphen) is continued
once the model starts it, but not started: its first token is often a piece of other words too ("b" of "birch"),
and a bonus on it would reach into the middle of every word. Nothing else changes, so a word that was not said
stays unlikely: the first token's bonus is small, and the bonus stops as soon as the text leaves the tree.

The tree is built once per vocabulary; a step costs one dictionary look-up per suffix length per hypothesis and
one indexed add per hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

FIRST_BONUS = 1.0  # nats added to the first token of a listed word's spelling
CONTINUE_BONUS = 3.0  # nats added to a token that continues a listed word being spelled


def spellings(word: str) -> list[str]:
    """The spellings of a word the tree holds: with and without a leading space, as written and capitalised."""
    forms = dict.fromkeys([word, word[:1].upper() + word[1:]])
    return [prefix + form for form in forms for prefix in (" ", "")]


class WordBias:
    """The prefix tree of the listed words' token sequences, and the bonus it gives a batch of hypotheses."""

    def __init__(
        self,
        sequences: Sequence[Sequence[int]],
        openers: Sequence[Sequence[int]],
        first_bonus: float = FIRST_BONUS,
        continue_bonus: float = CONTINUE_BONUS,
    ):
        """sequences: every spelling of every listed word, as tokens; openers: those that open a word (a leading
        space), whose first tokens get first_bonus."""
        following: dict[tuple[int, ...], set[int]] = {}
        for tokens in sequences:
            for n in range(1, len(tokens)):
                following.setdefault(tuple(tokens[:n]), set()).add(tokens[n])
        self.first = np.array(sorted({t[0] for t in openers if t}), dtype=np.int64)
        self.next = {prefix: np.array(sorted(ids), dtype=np.int64) for prefix, ids in following.items()}
        self.longest = max((len(p) for p in self.next), default=0)
        self.first_bonus, self.continue_bonus = first_bonus, continue_bonus

    def add_to(self, logprobs: np.ndarray, sequences: Sequence[Sequence[int]], sample_begin: int) -> None:
        """Add the bonus to logprobs (one row per hypothesis) in place; sequences: the hypotheses' tokens, whose
        sampled text starts at sample_begin."""
        for row, sequence in enumerate(sequences):
            ids, bonus = self.first, self.first_bonus
            sampled = len(sequence) - sample_begin
            for n in range(min(self.longest, sampled), 0, -1):
                found = self.next.get(tuple(sequence[-n:]))
                if found is not None:
                    ids, bonus = found, self.continue_bonus
                    break
            logprobs[row, ids] += bonus

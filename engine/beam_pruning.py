"""Beam pruning (WhisperFlow): run beam 1 while the decoder re-reads what the previous round wrote.

The reference is the previous round's tokens without punctuation, timestamps and special tokens.
While pruned (beam 1) the decoder shows each step's best token to `Pruner.narrow_step`:

- alignment: the first word token is searched for in the reference; found at j, the reference
  position becomes j + 1; not found, the beam falls back to full;
- selective matching: punctuation, timestamps and special tokens are skipped (beam stays 1,
  position unchanged); a token equal to reference[position] keeps beam 1 and advances;
- fallback: any other token (a mismatch, or text past the reference's end) switches to the full beam.

After a fallback (`rematch`): the decoder shows each full-beam step's best hypothesis to
`Pruner.full_step`, and the beam returns to 1 once that hypothesis's last two word tokens equal two
consecutive reference tokens ending at or after the position where it fell back (one token is too
weak an anchor: " the" is everywhere). The position resumes after them. So a substituted or
inserted word costs a couple of full-beam steps and the rest of the re-read text runs at beam 1;
past the reference's end (the new audio) nothing re-matches and the beam stays full. With
rematch=False the beam stays full for the rest of the round after the first fallback.
"""
from __future__ import annotations

import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mlx_whisper.tokenizer import Tokenizer
from tiktoken import Encoding

ANCHOR = 2  # word tokens that must agree with the reference before a full beam returns to 1


def skip_tokens(tokenizer: Tokenizer) -> frozenset[int]:
    """Token ids never matched: specials and timestamps (>= eot), and tokens that are only
    punctuation or whitespace."""
    return _skip_tokens(tokenizer.encoding, tokenizer.eot)


@lru_cache(maxsize=4)
def _skip_tokens(encoding: Encoding, eot: int) -> frozenset[int]:
    skip = set(range(eot, encoding.n_vocab))
    for token in range(eot):
        text = encoding.decode_single_token_bytes(token).decode("utf-8", errors="replace").strip()
        if all(ch in string.punctuation or unicodedata.category(ch).startswith("P") for ch in text):
            skip.add(token)
    return frozenset(skip)


def reference_words(tokens: Sequence[int], skip: frozenset[int]) -> list[int]:
    """The previous round's tokens with punctuation, timestamps and special tokens removed."""
    return [t for t in tokens if t not in skip]


@dataclass
class Pruner:
    """Decides, step by step, whether the beam can stay at 1 (see the module docstring)."""

    reference: list[int]
    skip: frozenset[int]
    rematch: bool = True
    position: int | None = None  # next reference index to match; None until aligned

    def narrow_step(self, token: int) -> bool:
        """The best token of a beam-1 step: True keeps beam 1 (and consumes it), False falls back."""
        if token in self.skip:
            return True
        if self.position is None:
            try:
                self.position = self.reference.index(token) + 1
            except ValueError:
                return False
            return True
        if self.position < len(self.reference) and self.reference[self.position] == token:
            self.position += 1
            return True
        return False

    def full_step(self, sampled: Sequence[int]) -> bool:
        """The best full-beam hypothesis (its sampled tokens): True returns the beam to 1."""
        if not self.rematch or not sampled or sampled[-1] in self.skip:
            return False
        words = [t for t in sampled if t not in self.skip][-ANCHOR:]
        if len(words) < ANCHOR:
            return False
        first = max(self.position or 0, ANCHOR - 1)
        for j in range(first, len(self.reference)):
            if self.reference[j - ANCHOR + 1 : j + 1] == words:
                self.position = j + 1
                return True
        return False


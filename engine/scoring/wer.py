"""Whisper's English text normalizer, and word error rate (jiwer) on normalized text."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import jiwer
from whisper_normalizer.english import EnglishTextNormalizer


@lru_cache(maxsize=1)
def _normalizer() -> EnglishTextNormalizer:
    return EnglishTextNormalizer()


def normalize_text(text: str) -> str:
    """Lower case, no punctuation or fillers, spelling and numbers standardised (openai-whisper's rules).
    A token with no letter or digit is not a word: Whisper's rules leave one "." of a closing "..." behind."""
    return " ".join(t for t in _normalizer()(text).split() if any(c.isalnum() for c in t))


def normalize_words(words: list[str]) -> list[tuple[str, int]]:
    """Each word normalized on its own, as (token, index of the word it came from).

    A word may give several tokens ("I'm" -> "i am") or none ("uh"); normalizing word by word keeps
    every token tied to one timed word, for alignment.
    """
    return [(token, i) for i, word in enumerate(words) for token in normalize_text(word).split()]


@dataclass(frozen=True)
class WerCounts:
    """Word errors of a hypothesis against a reference, after normalization."""

    reference_words: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float | None:
        return self.errors / self.reference_words if self.reference_words else None

    def __add__(self, other: WerCounts) -> WerCounts:
        return WerCounts(
            self.reference_words + other.reference_words,
            self.substitutions + other.substitutions,
            self.deletions + other.deletions,
            self.insertions + other.insertions,
        )


ZERO = WerCounts(0, 0, 0, 0)


def wer_counts(reference: str, hypothesis: str) -> WerCounts:
    """Errors of hypothesis against reference, both normalized first."""
    ref, hyp = normalize_text(reference), normalize_text(hypothesis)
    if not ref:
        return WerCounts(0, 0, 0, len(hyp.split()))
    if not hyp:
        return WerCounts(len(ref.split()), 0, len(ref.split()), 0)
    out = jiwer.process_words(ref, hyp)
    return WerCounts(len(ref.split()), out.substitutions, out.deletions, out.insertions)


def corpus_wer(references: list[str], hypotheses: list[str]) -> float:
    """Word error rate over many utterances: all their errors over all their reference words (after
    normalization); utterances whose reference normalizes to nothing are left out."""
    counts = [wer_counts(r, h) for r, h in zip(references, hypotheses) if normalize_text(r)]
    return sum(counts, ZERO).wer or 0.0

"""A transcript as prose: words joined into paragraphs, the one rule the transcript view and the TXT/Markdown exports
share.

A paragraph ends at a pause of PAUSE_S or more where the sentence does not run on across it, where the speaker
changes (words that carry a ``speaker``), or, once it holds MAX_WORDS words, at its best break: the sentence end with
the widest gap after it, else (a run without punctuation) the widest gap between words. Each paragraph is decided
from its own words only, so regrouping from any paragraph's start gives the paragraphs a whole regrouping gives.

Prose shows each word as `prose_texts` makes it: periods settled (a period the next word contradicts is a comma),
Whisper's ellipses gone ("I regard…" "this activity." reads "I regard this activity."; an ellipsis before a new
sentence or at the end is a period) and a paragraph's first letter in upper case. The words keep what was said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.session.transcript import ends_sentence, sentence_start, settle_periods
from engine.session.words import Word

PAUSE_S = 2.0  # a pause this long between sentences starts a paragraph
MAX_WORDS = 60  # a paragraph this long breaks at its best break
MIN_WORDS = 15  # ... leaving at least this many words in it

_TRAILING_ELLIPSIS = re.compile(r"(?:…|\.{3,})+(?=[\"'”’)\]]*$)")
_LEADING_ELLIPSIS = re.compile(r"^((?:[\"'“‘(\[])*)(?:…|\.{3,})+")


def speaker_of(word: Word) -> object:
    """Who said word, where words say (a ``speaker`` attribute); None otherwise."""
    return getattr(word, "speaker", None)


def _first_letter(text: str) -> str:
    return next((c for c in text if c.isalpha()), "")


def without_ellipses(texts: Sequence[str]) -> list[str]:
    """texts (words in order) without Whisper's ellipses: gone before a word that goes on in lower case (and at a
    word's start), a period before anything else and at the end."""
    out = [_LEADING_ELLIPSIS.sub(r"\1", t.strip()) for t in texts]
    following = ""
    for i in range(len(out) - 1, -1, -1):
        if _TRAILING_ELLIPSIS.search(out[i]):
            ending = "" if _first_letter(following).islower() else "."
            out[i] = _TRAILING_ELLIPSIS.sub(ending, out[i])
        if out[i]:
            following = out[i]
    return out


def prose_texts(words: Sequence[Word]) -> list[str]:
    """Each word's text as prose shows it (periods settled, no ellipses, stripped; "" for a word with no text)."""
    return without_ellipses(settle_periods([w.text for w in words]))


@dataclass(frozen=True)
class Paragraph:
    """words[first:stop] of the list they came from, as said, with texts: each one as the paragraph shows it."""

    words: tuple[Word, ...]
    texts: tuple[str, ...]
    first: int
    stop: int

    @property
    def start(self) -> float:
        return self.words[0].start

    @property
    def end(self) -> float:
        return max(self.words[-1].end, self.start)

    @property
    def speaker(self) -> object:
        return speaker_of(self.words[0])

    @property
    def text(self) -> str:
        return " ".join(t for t in self.texts if t)


def _runs_on(before: str, after: str) -> bool:
    """Whether one sentence goes on from the word before to the word after (no sentence end, lower case after)."""
    return not ends_sentence(before) and _first_letter(after).islower()


def _best_break(items: list[tuple[int, Word, str]], next_start: float) -> int:
    """Where a long paragraph breaks: the count of its items that stay, at least MIN_WORDS."""
    cuts = range(MIN_WORDS, len(items) + 1)

    def gap(k: int) -> float:
        return (items[k][1].start if k < len(items) else next_start) - items[k - 1][1].end

    sentence_ends = [k for k in cuts if ends_sentence(items[k - 1][2])]
    return max(sentence_ends or cuts, key=gap)


def _paragraph(items: list[tuple[int, Word, str]]) -> Paragraph:
    texts = [t for _, _, t in items]
    texts[0] = sentence_start(texts[0])
    return Paragraph(tuple(w for _, w, _ in items), tuple(texts), items[0][0], items[-1][0] + 1)


def paragraphs(words: Sequence[Word]) -> list[Paragraph]:
    """Split words (in time order) into paragraphs (see the module's docstring); words without text are left out."""
    items = [(i, w, t) for i, (w, t) in enumerate(zip(words, prose_texts(words))) if t]
    out: list[Paragraph] = []
    current: list[tuple[int, Word, str]] = []
    for item in items:
        _, word, text = item
        if current:
            _, last, last_text = current[-1]
            paused = word.start - last.end >= PAUSE_S and not _runs_on(last_text, text)
            if paused or speaker_of(word) != speaker_of(last):
                out.append(_paragraph(current))
                current = []
            elif len(current) >= MAX_WORDS:
                keep = _best_break(current, word.start)
                out.append(_paragraph(current[:keep]))
                current = current[keep:]
        current.append(item)
    if current:
        out.append(_paragraph(current))
    return out

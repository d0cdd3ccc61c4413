"""A timestamped word, the one word type from the decoder out, and a confirmed word (no MLX import needed).

Word timing makes a ``Word`` with times in its round's buffer; the stream moves it to the stream clock
(``shifted``), keeps it inside the audio (``clamped``) and, once confirmed, reports it as a ``WordEvent``
(``confirmed``), which the journal, the app and the JSONL output take as a Word with two more times.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Word:
    """A word with start/end seconds (on whatever clock its producer says); speaker: "you" or "them" in a call
    (engine.stream.call), None in a one-source session."""

    text: str
    start: float
    end: float
    probability: float = 1.0
    speaker: str | None = None

    @property
    def duration(self) -> float:
        return self.end - self.start

    def shifted(self, offset: float) -> Word:
        """The same word offset seconds later (from a buffer's clock to the stream's: offset is the buffer start)."""
        return replace(self, start=self.start + offset, end=self.end + offset)

    def clamped(self, lo: float, hi: float) -> Word:
        """The word within [lo, hi], its end no earlier than its start."""
        return replace(self, start=min(max(self.start, lo), hi), end=min(max(self.end, self.start, lo), hi))

    def stripped(self) -> Word:
        """The word without the space the tokenizer writes before it."""
        return replace(self, text=self.text.strip())

    def confirmed(self, emitted: float, shown: float | None = None) -> WordEvent:
        """This word confirmed at stream time emitted, first shown (tentative) at shown (None: when confirmed)."""
        return WordEvent(self.text, self.start, self.end, self.probability, self.speaker, emitted=emitted, shown=shown)


@dataclass(frozen=True, kw_only=True)
class WordEvent(Word):
    """A confirmed word; ``emitted`` is the stream-clock time at which it was confirmed, ``shown`` the time it
    first appeared in the tentative tail (engine.stream.shown; equal to emitted when it never was tentative)."""

    emitted: float
    shown: float | None = None
    type: str = "word"

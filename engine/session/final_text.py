"""A stream's words with each utterance's final text applied (engine.stream.finalize's records)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.session.events import FinalEvent
from engine.session.turns import in_turns
from engine.session.words import Word


class FinalText:
    """Confirmed words as they come, each utterance's replaced by its final record once that arrives.

    Final records cover the confirmed words in order, each from where the last one ended; a record that does not
    (a journal cut short by a crash between the two) leaves the confirmed words as they were.
    """

    def __init__(self) -> None:
        self.utterances: list[list[Word]] = []  # finalized, in order
        self.pending: list[Word] = []  # confirmed words not finalized yet
        self.pending_first = 0  # the stream index of pending[0]

    def confirm(self, words: Iterable[Word]) -> None:
        self.pending.extend(words)

    def apply(self, final: FinalEvent) -> bool:
        """Replace the confirmed words the record covers; False (nothing changed) when it does not fit."""
        if final.first != self.pending_first or final.count > len(self.pending):
            return False
        self.utterances.append(list(final.words))
        del self.pending[: final.count]
        self.pending_first += final.count
        return True

    @property
    def words(self) -> list[Word]:
        """Every word: the final text, then the confirmed words still waiting for theirs."""
        return [w for u in self.utterances for w in u] + self.pending

    def lines(self) -> list[str]:
        """One line per utterance (the words still pending make the last line)."""
        groups: Sequence[list[Word]] = [*self.utterances, self.pending]
        return [" ".join(w.text for w in g) for g in groups if g]


class SideTexts:
    """A FinalText per side of a call (a word's or a final record's speaker; one, None, for a one-source stream):
    each side's final records count that side's confirmed words."""

    def __init__(self) -> None:
        self.sides: dict[str | None, FinalText] = {}

    def _side(self, speaker: str | None) -> FinalText:
        return self.sides.setdefault(speaker, FinalText())

    def confirm(self, words: Iterable[Word]) -> None:
        for w in words:
            self._side(w.speaker).confirm([w])

    def apply(self, final: FinalEvent) -> bool:
        return self._side(final.speaker).apply(final)

    @property
    def words(self) -> list[Word]:
        """Every side's words (FinalText.words), a call's turn by turn in the order they began."""
        return in_turns([w for text in self.sides.values() for w in text.words])


class FinalPlacer:
    """Applies final records to a list that holds a stream's words in order, from its first confirmed word less
    those dropped from its front (a caption window's scrolled lines): where each record's words now stand."""

    def __init__(self) -> None:
        self.shift = 0  # words the final records applied so far added (or, when negative, removed)

    def apply(self, words: list, final: FinalEvent, dropped: int = 0, convert=lambda w: w) -> bool:
        """Replace the confirmed words final covers by its words (each through convert); False where they are no
        longer all in the list (dropped from its front), which then stays as it is."""
        start = final.first + self.shift - dropped
        self.shift += len(final.words) - final.count
        if start < 0 or start + final.count > len(words):
            return False
        words[start : start + final.count] = [convert(w) for w in final.words]
        return True

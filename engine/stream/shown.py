"""When each word was first shown: the tentative tail is on screen (dimmed) before its words are confirmed.

After every round the stream shows its confirmed words and its tentative tail. A word keeps the time it first
appeared while later rounds repeat it (the same word at about the same time); a shown word that a later round
neither confirms nor repeats was corrected.
"""

from __future__ import annotations

from engine.session.words import Word
from engine.stream.agreement import same_word

SAME_PLACE_S = 0.5  # a later round's word this close in time to a shown one is that word again


def _same(a: Word, b: Word) -> bool:
    """The same word at about the same place in the audio."""
    return same_word(a.text, b.text) and abs(a.start - b.start) < SAME_PLACE_S


class ShownTracker:
    """The words on screen with the stream-clock time each first appeared, and the count of corrections."""

    def __init__(self) -> None:
        self.on_screen: list[tuple[Word, float]] = []
        self.corrections = 0

    def _first_shown(self, word: Word) -> float | None:
        return next((at for shown, at in self.on_screen if _same(shown, word)), None)

    def update(self, confirmed: list[Word], tentative: list[Word], now: float) -> list[float]:
        """Take a round's confirmed words and new tentative tail, shown at `now`; return when each confirmed
        word was first shown (now for a word confirmed the moment it appeared)."""

        def first(word: Word) -> float:
            at = self._first_shown(word)
            return now if at is None else at

        shown = [first(w) for w in confirmed]
        still = confirmed + tentative
        self.corrections += sum(1 for word, _ in self.on_screen if not any(_same(word, w) for w in still))
        self.on_screen = [(w, first(w)) for w in tentative]
        return shown

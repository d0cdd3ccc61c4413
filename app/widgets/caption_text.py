"""What the caption window holds: each side's confirmed words (final texts applied) and unconfirmed tail, and the
words it draws from them. A one-source session has one side (None) and reads as it was said; a call's sides
(engine.stream.call) are shown turn by turn in the order they began, each turn that changes side opening with the
side's name, or Them's words alone when the person chose so."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.widgets.call_sides import side_label
from app.widgets.caption_layout import CaptionWord
from engine.session.events import StreamUpdate
from engine.session.final_text import FinalPlacer
from engine.session.transcript import settle_periods
from engine.session.turns import speaker_turns
from engine.session.words import Word


def _said(words: list[Word]) -> list[tuple[str, float]]:
    """What a change of the tail is judged by: its texts and probabilities (not its times)."""
    return [(w.text, w.probability) for w in words]


@dataclass
class CaptionSide:
    """One side's words: confirmed (less those scrolled away, `dropped`) and the unconfirmed tail."""

    confirmed: list[Word] = field(default_factory=list)
    tentative: list[Word] = field(default_factory=list)
    placer: FinalPlacer = field(default_factory=FinalPlacer)  # where final texts go
    dropped: int = 0

    def take(self, update: StreamUpdate) -> tuple[bool, bool]:
        """Add the update's confirmed words and final texts and replace the tail: (whether the tail changed,
        whether a final text changed words still held)."""
        finalized = [self.placer.apply(self.confirmed, f, self.dropped) for f in update.finals]
        self.confirmed.extend(update.confirmed)
        tentative = list(update.tentative)
        tail_changed = _said(tentative) != _said(self.tentative)
        self.tentative = tentative
        return tail_changed, any(finalized)

    def drop(self, count: int) -> None:
        """Forget the first count confirmed words (scrolled away)."""
        self.confirmed = self.confirmed[count:]
        self.dropped += count


class CaptionText:
    """The sides of what the caption window shows, and the words it draws (`words`)."""

    def __init__(self) -> None:
        self.sides: dict[str | None, CaptionSide] = {}
        self.only_them = False  # a call shows Them's side alone

    def side(self, speaker: str | None) -> CaptionSide:
        return self.sides.setdefault(speaker, CaptionSide())

    def shows(self, speaker: str | None) -> bool:
        """Whether a side's words are drawn (a one-source session's always are)."""
        return not (self.only_them and speaker == "you")

    def has_words(self) -> bool:
        return any(s.confirmed or s.tentative for k, s in self.sides.items() if self.shows(k))

    def words(self, unsure_below: float) -> list[CaptionWord]:
        """The words to draw: each side's run of turns with periods settled by the words after them (the tail's
        too); where both sides show, each run opens with its side's name."""
        shown = {k: s for k, s in self.sides.items() if self.shows(k)}
        if list(shown) in ([], [None]):
            side = shown.get(None, CaptionSide())
            return self._run(None, side.confirmed + side.tentative, len(side.confirmed), unsure_below)
        confirmed = {id(w) for s in shown.values() for w in s.confirmed}
        runs: list[tuple[str, list[Word]]] = []
        for turn in speaker_turns([w for s in shown.values() for w in s.confirmed + s.tentative]):
            if runs and runs[-1][0] == turn.speaker:
                runs[-1][1].extend(turn.words)
            else:
                runs.append((turn.speaker, list(turn.words)))
        labelled = len(shown) > 1
        out: list[CaptionWord] = []
        for speaker, words in runs:
            if labelled:
                out.append(CaptionWord(f"{side_label(speaker)}:", True, speaker=speaker, label=True))
            held = sum(1 for w in words if id(w) in confirmed)  # a side's confirmed words come before its tail
            out += self._run(speaker, words, held, unsure_below)
        return out

    @staticmethod
    def _run(speaker: str | None, words: list[Word], confirmed: int, unsure_below: float) -> list[CaptionWord]:
        texts = settle_periods([w.text for w in words])
        return [
            CaptionWord(t, k < confirmed, w.probability < unsure_below, speaker=speaker)
            for k, (t, w) in enumerate(zip(texts, words))
        ]

    def drop_lines(self, lines: list[list[CaptionWord]]) -> None:
        """Forget the confirmed words on these lines (scrolled far away), each side's from its front."""
        for speaker, side in self.sides.items():
            side.drop(sum(1 for line in lines for w in line if w.confirmed and not w.label and w.speaker == speaker))

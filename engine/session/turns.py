"""A call's words as turns: each side's speech up to a pause, the turns of both sides ordered by time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.session.words import Word

LABELS = {"you": "You", "them": "Them"}  # how a side is named in a transcript
TURN_GAP_S = 1.5  # a side's pause this long ends its turn


@dataclass(frozen=True)
class Turn:
    """One side's words from its first to a pause."""

    speaker: str
    words: list[Word]

    @property
    def label(self) -> str:
        return LABELS.get(self.speaker, self.speaker.title())

    @property
    def start(self) -> float:
        return self.words[0].start


def labelled(words: Sequence[Word]) -> bool:
    """Whether the words are a call's (they carry a speaker)."""
    return any(w.speaker is not None for w in words)


def speaker_turns(words: Sequence[Word], gap_s: float = TURN_GAP_S) -> list[Turn]:
    """Each side's words in turns, split at pauses of gap_s, ordered by their first word's start (a turn that
    starts while the other side's goes on comes after it)."""
    turns: list[Turn] = []
    current: dict[str | None, Turn] = {}
    for w in words:
        turn = current.get(w.speaker)
        if turn is None or w.start - turn.words[-1].end >= gap_s:
            turn = current[w.speaker] = Turn(w.speaker or "", [])
            turns.append(turn)
        turn.words.append(w)
    return sorted(turns, key=lambda t: t.start)


def in_turns(words: Sequence[Word]) -> list[Word]:
    """The words turn by turn (speaker_turns); unlabelled words as they are."""
    return [w for t in speaker_turns(words) for w in t.words] if labelled(words) else list(words)

"""Wrap caption words into lines, remembering which words are confirmed, which the model was unsure of and, in a
call, whose they are."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class CaptionWord:
    text: str
    confirmed: bool
    unsure: bool = False  # the decoder's probability was below the person's threshold
    speaker: str | None = None  # a call's side (engine.stream.call); None in a one-source session
    label: bool = False  # the side's name opening its turn, not a word said


def wrap_words(words: list[CaptionWord], width: float, measure: Callable[[str], float]) -> list[list[CaptionWord]]:
    """Greedy word wrap of words to `width` (a word wider than the line gets a line of its own); a call's side name
    starts a line, so each turn does.

    Wrapping forwards from a fixed first word keeps earlier line breaks stable as words arrive, so
    the text does not jump; the caller drops whole lines from the front once they scroll away.
    """
    space = measure(" ")
    lines: list[list[CaptionWord]] = []
    used = 0.0
    for word in words:
        w = measure(word.text)
        if not lines or (lines[-1] and (word.label or used + space + w > width)):
            lines.append([])
            used = 0.0
        used += (space if lines[-1] else 0.0) + w
        lines[-1].append(word)
    return lines

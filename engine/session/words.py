"""A timestamped word: the unit transcripts, journals and exporters share (no MLX import needed)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Word:
    """A word with start/end seconds (on whatever clock its producer says)."""

    text: str
    start: float
    end: float
    probability: float = 1.0

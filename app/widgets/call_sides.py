"""How the app shows the two sides of a call (a word's ``speaker``, engine.stream.call): each side's name and a
colour of its own, darker on a light background and lighter on a dark one."""

from __future__ import annotations

from PySide6.QtGui import QColor

from engine.session.turns import LABELS

# (on a light background, on a dark one)
SIDE_COLOURS = {"you": ("#1f6fbf", "#7ab8f5"), "them": ("#b35a00", "#f5a95c")}


def side_label(speaker: str) -> str:
    """A side's name as the transcript and the exports write it ("You", "Them")."""
    return LABELS.get(speaker, speaker.title())


def side_colour(speaker: str, background: QColor) -> QColor:
    """The side's colour for text drawn on background (the text colour of a side it does not know)."""
    light, dark = SIDE_COLOURS.get(speaker, ("#000000", "#ffffff"))
    return QColor(dark if background.lightnessF() < 0.5 else light)

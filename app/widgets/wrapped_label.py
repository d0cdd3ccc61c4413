"""A word-wrapped label that asks a layout for the height of its lines at the width it was given.

A wrapped QLabel's size hint is its text laid out at a narrow guessed width (four or five lines for two at the
settings dialog's width), and a form row in the field column takes that height: blank lines above and below the
text. This one's size hint is its height at its current width, and a new width that changes it asks the layout again.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrappedLabel(QLabel):
    """A QLabel with word wrap whose size hint follows its width."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent, wordWrap=True)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self.width() <= hint.width():  # not laid out yet, or narrower than its guess
            return hint
        return QSize(hint.width(), self.heightForWidth(self.width()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()

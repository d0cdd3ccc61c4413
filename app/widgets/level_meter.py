"""A horizontal input level meter (dBFS scale) with a slowly falling peak mark. Silence, and a meter with no source,
draw an empty trough in the window's own colours: only sound fills it."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

FLOOR_DB = -60.0
PEAK_FALL_DB = 1.5  # per update


def level_fraction(rms: float) -> float:
    """RMS of float samples → 0..1 on a -60..0 dBFS scale."""
    if rms <= 0:
        return 0.0
    db = 20 * math.log10(rms)
    return min(1.0, max(0.0, (db - FLOOR_DB) / -FLOOR_DB))


def level_colour(fraction: float) -> QColor:
    """Green while the level is comfortable, amber when loud, red near clipping."""
    return QColor("#3fb950" if fraction < 0.75 else "#d29922" if fraction < 0.92 else "#f85149")


class LevelMeter(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setToolTip("Input level")
        self.fraction = 0.0
        self.peak = 0.0

    def sizeHint(self) -> QSize:
        return QSize(160, 12)

    def set_level(self, rms: float) -> None:
        self.fraction = level_fraction(rms)
        self.peak = max(self.fraction, self.peak - PEAK_FALL_DB / -FLOOR_DB)
        self.update()

    def reset(self) -> None:
        self.fraction = self.peak = 0.0
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        r = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(self.palette().color(QPalette.Mid))
        painter.setBrush(self.palette().color(QPalette.Base))
        painter.drawRoundedRect(r, 3, 3)
        painter.setPen(Qt.NoPen)
        if self.fraction > 0:
            painter.setBrush(level_colour(self.fraction))
            painter.drawRoundedRect(
                QRectF(r.left() + 1, r.top() + 1, (r.width() - 2) * self.fraction, r.height() - 2), 2, 2
            )
        if self.peak > 0:
            x = r.left() + 1 + (r.width() - 2) * self.peak
            painter.setPen(self.palette().color(QPalette.Text))
            painter.drawLine(int(x), int(r.top() + 1), int(x), int(r.bottom() - 1))
        painter.end()

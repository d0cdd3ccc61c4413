"""The WhisperFlow icon, drawn in code (a caption bubble with two text lines); red dot while captioning."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPixmap

SIZES = (16, 22, 32, 48, 64, 128, 256)


def _draw(size: int, live: bool) -> QPixmap:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.Antialiasing)
    s = size / 64
    bubble = QPainterPath()
    bubble.addRoundedRect(QRectF(4 * s, 8 * s, 56 * s, 38 * s), 10 * s, 10 * s)
    tail = QPainterPath()
    tail.moveTo(16 * s, 44 * s)
    tail.lineTo(14 * s, 58 * s)
    tail.lineTo(28 * s, 44 * s)
    p.fillPath(bubble.united(tail), QColor("#2f81f7"))
    p.setPen(Qt.NoPen)
    p.setBrush(QColor("#ffffff"))
    p.drawRoundedRect(QRectF(12 * s, 17 * s, 40 * s, 6 * s), 3 * s, 3 * s)
    p.setBrush(QColor(255, 255, 255, 150))
    p.drawRoundedRect(QRectF(12 * s, 30 * s, 28 * s, 6 * s), 3 * s, 3 * s)
    if live:
        p.setBrush(QColor("#f85149"))
        p.drawEllipse(QRectF(44 * s, 38 * s, 18 * s, 18 * s))
    p.end()
    return pixmap


def app_icon(live: bool = False) -> QIcon:
    icon = QIcon()
    for size in SIZES:
        icon.addPixmap(_draw(size, live))
    return icon

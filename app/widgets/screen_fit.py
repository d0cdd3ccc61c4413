"""Keep a window's rectangle on a screen: whether it is mostly on one, the nearest screen, moving it inside.

Screens are measured by their available geometry (without docks, panels and taskbars).
"""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QScreen

MOSTLY = 0.5  # the share of a window that must lie on one screen for it to count as on screen


def _size(rect: QRect) -> int:
    return max(0, rect.width()) * max(0, rect.height())


def mostly_on_a_screen(rect: QRect) -> bool:
    """Whether at least half of rect lies on one screen's available area."""
    total = _size(rect)
    return total > 0 and any(
        _size(rect.intersected(screen.availableGeometry())) >= MOSTLY * total for screen in QGuiApplication.screens()
    )


def nearest_screen(rect: QRect) -> QScreen:
    """The screen whose available area is nearest rect's centre (the one holding it, if any)."""
    centre = rect.center()

    def distance(screen: QScreen) -> int:
        area = screen.availableGeometry()
        dx = max(area.left() - centre.x(), 0, centre.x() - area.right())
        dy = max(area.top() - centre.y(), 0, centre.y() - area.bottom())
        return dx * dx + dy * dy

    return min(QGuiApplication.screens(), key=distance, default=QGuiApplication.primaryScreen())


def clamped(rect: QRect, area: QRect) -> QRect:
    """rect moved (and made smaller where it is larger than area) to lie inside area."""
    width, height = min(rect.width(), area.width()), min(rect.height(), area.height())
    x = min(max(rect.x(), area.x()), area.x() + area.width() - width)
    y = min(max(rect.y(), area.y()), area.y() + area.height() - height)
    return QRect(x, y, width, height)


def with_height(rect: QRect, height: int, area: QRect) -> QRect:
    """rect given a new height inside area: in area's lower half its bottom edge stays (it grows upward), in the
    upper half its top edge."""
    result = QRect(rect.x(), rect.y(), rect.width(), height)
    if rect.center().y() > area.center().y():
        result.moveBottom(rect.bottom())
    return clamped(result, area)

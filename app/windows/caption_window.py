"""The floating caption window: frameless, always on top, translucent, on every desktop.

Confirmed words are drawn solid and the unconfirmed tail dimmed, with a dotted line under the words the model
was unsure of (probability below Settings' threshold). In a call each turn opens with its side's name in the side's
colour, or only Them's words show (app.widgets.caption_text). The text is painted in one pass
only when it changed, so updates happen in place without flicker. Drag anywhere to move, drag an
edge or corner to resize; right-click for appearance. It shows once there are words, hides after a
configurable silence and comes back on speech. Its place is saved where it is really shown, and a place off
every screen (a screen unplugged, a bad save) is brought back to the default one.
"""

from __future__ import annotations

import time

from PySide6.QtCore import SIGNAL, QPoint, QPointF, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QFont, QFontMetricsF, QGuiApplication, QPainter, QPen
from PySide6.QtWidgets import QColorDialog, QMenu, QWidget

from app.settings import CaptionStyle
from app.widgets.all_desktops import show_on_all_desktops
from app.widgets.call_sides import side_colour
from app.widgets.caption_layout import CaptionWord, wrap_words
from app.widgets.caption_text import CaptionText
from app.widgets.screen_fit import mostly_on_a_screen, nearest_screen, with_height
from engine.session.events import StreamUpdate
from engine.session.words import Word

EDGE = 8  # px from the border where dragging resizes instead of moving
PADDING = 14
SPEECH_LEVEL = 0.01  # RMS above which a round counts as speech even before words appear
MAX_HISTORY_LINES = 12
DIM_ALPHA = 0.5
FONT_SIZES = (14, 18, 22, 28, 36, 48)
OPACITIES = (0.4, 0.6, 0.8, 0.95)
HIDE_AFTER = (0.0, 4.0, 8.0, 15.0, 30.0)
UNSURE_BELOW = (0.0, 0.3, 0.5, 0.7)  # probability thresholds offered in the menu


def _edges_at(rect: QRect, pos: QPoint) -> Qt.Edge:
    edges = Qt.Edge(0)
    if pos.x() < EDGE:
        edges |= Qt.LeftEdge
    if pos.x() > rect.width() - EDGE:
        edges |= Qt.RightEdge
    if pos.y() < EDGE:
        edges |= Qt.TopEdge
    if pos.y() > rect.height() - EDGE:
        edges |= Qt.BottomEdge
    return edges


_CURSORS = {
    Qt.LeftEdge: Qt.SizeHorCursor,
    Qt.RightEdge: Qt.SizeHorCursor,
    Qt.TopEdge: Qt.SizeVerCursor,
    Qt.BottomEdge: Qt.SizeVerCursor,
    Qt.LeftEdge | Qt.TopEdge: Qt.SizeFDiagCursor,
    Qt.RightEdge | Qt.BottomEdge: Qt.SizeFDiagCursor,
    Qt.RightEdge | Qt.TopEdge: Qt.SizeBDiagCursor,
    Qt.LeftEdge | Qt.BottomEdge: Qt.SizeBDiagCursor,
}


class CaptionWindow(QWidget):
    """Shows live captions. `caption_style` is edited in place; `style_changed` fires after every change."""

    style_changed = Signal()
    settings_requested = Signal()
    hide_requested = Signal()  # "Hide captions" from its own menu: the main window hides them (and its menu follows)

    def __init__(self, caption_style: CaptionStyle, parent: QWidget | None = None, floating: bool = True):
        flags = Qt.FramelessWindowHint | Qt.WindowStaysOnTopHint | Qt.Tool if floating else Qt.Widget
        super().__init__(parent, flags)
        self.floating = floating  # False: a preview inside another window (no moving, hiding or geometry)
        self.setWindowTitle("WhisperFlow captions")
        self.setAttribute(Qt.WA_TranslucentBackground)
        self.setAttribute(Qt.WA_ShowWithoutActivating)
        self.setMouseTracking(True)
        self.setMinimumSize(QSize(220, 60))
        self.caption_style = caption_style
        self.enabled = True  # the person wants captions; silence only hides them for a while
        self.held = CaptionText()  # each side's confirmed words and unconfirmed tail
        self.held.only_them = caption_style.only_them
        self._latency_s: float | None = None
        self._last_speech = time.monotonic()
        self._press: tuple[QPoint, QRect, Qt.Edge] | None = None
        self._silence_timer = QTimer(self, interval=250, timeout=self._hide_if_silent)
        self._save_timer = QTimer(self, singleShot=True, interval=400, timeout=self._save_shown_geometry)
        self.setMinimumHeight(self.preferred_height())
        if not floating:
            self.setFixedHeight(self.preferred_height())
        self.on_all_desktops = False
        if floating:
            self._silence_timer.start()
            self._restore_geometry()
            self.on_all_desktops = show_on_all_desktops(self)

    # --- content -------------------------------------------------------------------------------
    def show_words(self, confirmed: list[str], tentative: list[str]) -> None:
        """Replace the content (the wizard's preview)."""
        self.held = CaptionText()
        side = self.held.side(None)
        side.confirmed, side.tentative = [Word(t, 0.0, 0.0) for t in confirmed], [Word(t, 0.0, 0.0) for t in tentative]
        self.update()

    def show_update(self, update: StreamUpdate) -> None:
        """Add the round's confirmed words and replace the unconfirmed tail (of the update's side, in a call); a
        side not shown changes nothing on screen."""
        tail_changed, finalized = self.held.side(update.speaker).take(update)
        if not self.held.shows(update.speaker):
            return
        if update.confirmed:
            self._latency_s = max(0.0, update.confirmed[-1].emitted - update.confirmed[-1].end)
        speech = bool(update.confirmed) or tail_changed or update.level > SPEECH_LEVEL
        changed = bool(update.confirmed) or tail_changed or finalized
        if speech:
            self._count_silence_from_now()
            if self.floating and self.enabled and not self.isVisible() and self.held.has_words():
                self.show()
        if changed:
            self._drop_scrolled_lines()
            self.update()

    def clear(self) -> None:
        """Forget the words; the floating window hides until there are words again (no empty box)."""
        self.held, self._latency_s = CaptionText(), None
        self.held.only_them = self.caption_style.only_them
        if self.floating:
            self.hide()
        self.update()

    def text(self) -> str:
        """What the window holds: confirmed words, then the unconfirmed tail (periods settled)."""
        return " ".join(word.text for word in self._words())

    def visible_lines(self) -> list[list[CaptionWord]]:
        """The lines on screen now, newest last."""
        return self._lines()[-self.caption_style.lines :]

    def _words(self) -> list[CaptionWord]:
        """The words to draw (CaptionText.words): periods settled by the words after them, a call's turns named."""
        return self.held.words(self.caption_style.unsure_below)

    def _lines(self) -> list[list[CaptionWord]]:
        metrics = QFontMetricsF(self._font())
        return wrap_words(self._words(), self._text_rect().width(), metrics.horizontalAdvance)

    def _drop_scrolled_lines(self) -> None:
        """Forget confirmed words on lines far above the visible ones (whole lines, so breaks stay put)."""
        lines = self._lines()
        extra = len(lines) - MAX_HISTORY_LINES
        if extra > 0:
            self.held.drop_lines(lines[:extra])

    # --- appearance ----------------------------------------------------------------------------
    def _font(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(self.caption_style.font_size)
        font.setWeight(QFont.DemiBold)
        return font

    def _small_font(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(max(8.0, self.caption_style.font_size * 0.42))
        return font

    def _footer_height(self) -> float:
        return QFontMetricsF(self._small_font()).height() + 2 if self.caption_style.show_latency else 0.0

    def _text_rect(self) -> QRect:
        return self.rect().adjusted(PADDING, PADDING - 4, -PADDING, -PADDING + 4 - int(self._footer_height()))

    def preferred_height(self) -> int:
        line = QFontMetricsF(self._font()).lineSpacing()
        return int(line * self.caption_style.lines + 2 * PADDING + self._footer_height())

    def apply_style(self) -> None:
        """Re-read `caption_style` (after settings changed it) and fit the height to the number of lines; a
        floating window stays on its screen (near the bottom it grows upward)."""
        self.held.only_them = self.caption_style.only_them
        height, before = self.preferred_height(), self.geometry()
        self.setMinimumHeight(height)  # (this alone would grow it downward)
        if self.floating:
            self.setGeometry(with_height(before, height, nearest_screen(before).availableGeometry()))
        else:
            self.setFixedHeight(height)
        self.update()

    def _restore_geometry(self) -> None:
        geometry = self.caption_style.geometry
        if geometry and len(geometry) == 4:
            self.setGeometry(QRect(*geometry))
            self._bring_onto_a_screen()
            return
        self.place_default(QGuiApplication.primaryScreen())

    def place_default(self, screen=None) -> None:
        """Bottom centre of screen (default: the primary one), just above the dock or taskbar (its available
        geometry). Only while the person has not placed the window themselves (no saved geometry)."""
        if not self.caption_style.geometry:
            self.setGeometry(self._default_rect(screen or QGuiApplication.primaryScreen()))

    def reset_position(self, screen=None) -> None:
        """Back to the default place on screen (default: the primary one), saved as the window's place."""
        self.setGeometry(self._default_rect(screen or QGuiApplication.primaryScreen()))
        self._save_geometry()

    def _default_rect(self, screen) -> QRect:
        area = screen.availableGeometry()
        width = min(900, int(area.width() * 0.7))
        height = self.preferred_height()
        margin = max(12, area.height() // 40)
        return QRect(area.x() + (area.width() - width) // 2, area.y() + area.height() - height - margin, width, height)

    def _bring_onto_a_screen(self) -> None:
        """A window mostly off every screen goes to the default place on the screen nearest to it."""
        if not mostly_on_a_screen(self.geometry()):
            self.setGeometry(self._default_rect(nearest_screen(self.geometry())))

    def _style_edited(self) -> None:
        self.apply_style()
        self.style_changed.emit()

    # --- painting ------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        background = QColor(self.caption_style.background_color)
        background.setAlphaF(self.caption_style.opacity)
        painter.setPen(Qt.NoPen)
        painter.setBrush(background)
        painter.drawRoundedRect(self.rect(), 10, 10)
        font = self._font()
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        solid = QColor(self.caption_style.text_color)
        dim = QColor(solid)
        dim.setAlphaF(DIM_ALPHA)
        area = self._text_rect()
        lines = self.visible_lines()
        y = area.bottom() - metrics.lineSpacing() * len(lines) + metrics.ascent()
        space = metrics.horizontalAdvance(" ")
        for line in lines:
            x = float(area.left())
            for word in line:
                colour = solid if word.confirmed else dim
                if word.label:
                    colour = side_colour(word.speaker, background)
                painter.setPen(colour)
                painter.drawText(QPoint(int(x), int(y)), word.text)
                advance = metrics.horizontalAdvance(word.text)
                if word.unsure:
                    self._underline_dotted(painter, colour, x, y + metrics.underlinePos() + 1, advance)
                x += advance + space
            y += metrics.lineSpacing()
        if self.caption_style.show_latency:
            painter.setFont(self._small_font())
            painter.setPen(dim)
            painter.drawText(
                self.rect().adjusted(PADDING, 0, -PADDING, -6), Qt.AlignRight | Qt.AlignBottom, self.latency_text()
            )
        painter.end()

    def _underline_dotted(self, painter: QPainter, colour: QColor, x: float, y: float, width: float) -> None:
        """The mark of a word the model was unsure of: a dotted line under it."""
        pen = QPen(colour, max(1.5, self.caption_style.font_size / 12), Qt.DotLine)
        pen.setCapStyle(Qt.RoundCap)
        painter.setPen(pen)
        painter.drawLine(QPointF(x, y), QPointF(x + width, y))

    def latency_text(self) -> str:
        return "latency –" if self._latency_s is None else f"latency {self._latency_s:.1f} s"

    # --- silence -------------------------------------------------------------------------------
    def _hide_if_silent(self) -> None:
        limit = self.caption_style.hide_after_s
        menu_open = any(menu.isVisible() for menu in self.findChildren(QMenu))
        if limit > 0 and self.isVisible() and not menu_open and time.monotonic() - self._last_speech > limit:
            self.hide()

    def _count_silence_from_now(self) -> None:
        self._last_speech = time.monotonic()

    def _hide_requested(self) -> None:
        if self.receivers(SIGNAL("hide_requested()")) > 0:
            self.hide_requested.emit()
        else:
            self.set_enabled(False)

    def set_enabled(self, enabled: bool) -> None:
        """Show (and keep showing on speech) or hide the captions for good."""
        self.enabled = enabled
        self._count_silence_from_now()
        self.setVisible(enabled)

    # --- move and resize -----------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        if event.button() != Qt.LeftButton or not self.floating:
            return
        edges = _edges_at(self.rect(), event.position().toPoint())
        handle = self.windowHandle()
        started = handle.startSystemResize(edges) if edges else handle.startSystemMove()
        if not started:  # platforms without system move/resize: track the drag ourselves
            self._press = (event.globalPosition().toPoint(), self._shown_geometry(event), edges)

    def _shown_geometry(self, event) -> QRect:
        """Where the window really is on screen, from the mouse: before the window manager told Qt where it put
        the window, geometry() may still be where Qt asked for it (or 0, 0)."""
        return QRect(event.globalPosition().toPoint() - event.position().toPoint(), self.size())

    def mouseMoveEvent(self, event) -> None:
        if self._press is None:
            edges = _edges_at(self.rect(), event.position().toPoint())
            self.setCursor(_CURSORS.get(edges, Qt.ArrowCursor))
            return
        start, geometry, edges = self._press
        delta = event.globalPosition().toPoint() - start
        self.setGeometry(self._dragged(geometry, edges, delta))

    def _dragged(self, geometry: QRect, edges: Qt.Edge, delta: QPoint) -> QRect:
        g = QRect(geometry)
        if not edges:
            g.translate(delta)
            return g
        minimum = self.minimumSize()
        if edges & Qt.LeftEdge:
            g.setLeft(min(g.left() + delta.x(), g.right() - minimum.width()))
        if edges & Qt.RightEdge:
            g.setRight(max(g.right() + delta.x(), g.left() + minimum.width()))
        if edges & Qt.TopEdge:
            g.setTop(min(g.top() + delta.y(), g.bottom() - minimum.height()))
        if edges & Qt.BottomEdge:
            g.setBottom(max(g.bottom() + delta.y(), g.top() + minimum.height()))
        return g

    def mouseReleaseEvent(self, event) -> None:
        self._press = None

    def showEvent(self, event) -> None:
        if self.floating:
            self._bring_onto_a_screen()
            self._save_timer.start()

    def moveEvent(self, event) -> None:
        self._geometry_changed()

    def resizeEvent(self, event) -> None:
        self._geometry_changed()

    def _geometry_changed(self) -> None:
        """Save the new place once it settles, and only while shown: a hidden window's place is not yet real."""
        if self.floating and self.isVisible():
            self._save_timer.start()

    def _save_shown_geometry(self) -> None:
        if self.isVisible():
            self._save_geometry()

    def _save_geometry(self) -> None:
        g = self.geometry()
        self.caption_style.geometry = [g.x(), g.y(), g.width(), g.height()]
        self.style_changed.emit()

    # --- context menu --------------------------------------------------------------------------
    def contextMenuEvent(self, event) -> None:
        if self.floating:
            menu = self.build_menu()
            menu.aboutToHide.connect(self._count_silence_from_now)  # before exec returns: ticks in between see it
            menu.exec(event.globalPos())  # the silence timer leaves the window shown while a menu is open
            menu.deleteLater()  # a new menu each time: free this one now, not with the window

    def build_menu(self) -> QMenu:
        menu = QMenu(self)
        self._choice_menu(menu, "Font size", FONT_SIZES, "font_size", lambda v: f"{v} pt")
        self._choice_menu(menu, "Lines", (1, 2, 3, 4), "lines", str)
        self._choice_menu(menu, "Opacity", OPACITIES, "opacity", lambda v: f"{round(v * 100)} %")
        self._choice_menu(
            menu, "Hide after silence", HIDE_AFTER, "hide_after_s", lambda v: "never" if v == 0 else f"{v:g} s"
        )
        self._choice_menu(
            menu,
            "Underline unsure words",
            UNSURE_BELOW,
            "unsure_below",
            lambda v: "never" if v == 0 else f"below {round(v * 100)} % confidence",
        )
        menu.addAction("Text colour…", lambda: self._pick_colour("text_color"))
        menu.addAction("Background colour…", lambda: self._pick_colour("background_color"))
        latency = menu.addAction("Show latency")
        latency.setCheckable(True)
        latency.setChecked(self.caption_style.show_latency)
        latency.toggled.connect(lambda on: self._set("show_latency", on))
        only_them = menu.addAction("In a call, only Them")
        only_them.setCheckable(True)
        only_them.setChecked(self.caption_style.only_them)
        only_them.toggled.connect(lambda on: self._set("only_them", on))
        menu.addSeparator()
        menu.addAction("Settings…", self.settings_requested.emit)
        menu.addAction("Hide captions", self._hide_requested)
        return menu

    def _choice_menu(self, menu: QMenu, title: str, values, attr: str, label) -> None:
        sub = menu.addMenu(title)
        group = QActionGroup(sub)
        for value in values:
            action = QAction(label(value), sub, checkable=True)
            action.setChecked(getattr(self.caption_style, attr) == value)
            action.triggered.connect(lambda _=False, v=value: self._set(attr, v))
            group.addAction(action)
            sub.addAction(action)

    def _set(self, attr: str, value) -> None:
        setattr(self.caption_style, attr, value)
        self._style_edited()

    def _pick_colour(self, attr: str) -> None:
        colour = QColorDialog.getColor(QColor(getattr(self.caption_style, attr)), self, "Caption colour")
        if colour.isValid():
            self._set(attr, colour.name())

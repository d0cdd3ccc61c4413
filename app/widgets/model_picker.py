"""The model picker: what is installed, what can be installed or downloaded (with its size), and what cannot run
here, greyed out with the reason (shown beside the name and as a tooltip)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QWidget

from engine.model.store import PACKAGED, list_models

ABOUT = {"tiny.en": "English, fastest", "base": "99 languages"}
PACKAGED_MB = {"tiny.en": 75, "base": 145}  # the CTranslate2 float16 files the packages carry
# Whisper models converted by mlx-community on the Hugging Face hub: download size in MB.
HUB_MODELS = {
    "mlx-community/whisper-tiny-mlx": 75,
    "mlx-community/whisper-base-mlx": 145,
    "mlx-community/whisper-small-mlx": 480,
    "mlx-community/whisper-medium-mlx": 1530,
    "mlx-community/whisper-large-v3-turbo": 1610,
}
INSTALL_HINT = "not installed: install it in Settings ▸ Transcription (it downloads {size})"


@dataclass(frozen=True)
class ModelChoice:
    name: str
    label: str
    usable: bool
    reason: str = ""  # why it cannot be chosen here


def _mb(mb: float) -> str:
    return f"{mb / 1000:.1f} GB" if mb >= 1000 else f"{mb:.0f} MB"


def model_choices(on_mac: bool | None = None) -> list[ModelChoice]:
    """Installed packaged models, prepared downloads, then what could be installed or downloaded."""
    on_mac = sys.platform == "darwin" if on_mac is None else on_mac
    choices, seen = [], set()
    for info in list_models():
        seen.add(info.name)
        about = ABOUT.get(info.name, "downloaded")
        if info.name in PACKAGED:
            size = _mb(PACKAGED_MB.get(info.name, info.size_mb))
            if info.available:
                choices.append(ModelChoice(info.name, f"{info.name} — {about}, {size}, installed", True))
            else:
                reason = INSTALL_HINT.format(size=size)
                choices.append(
                    ModelChoice(info.name, f"{info.name} — {about}, {size}, {reason.split(':')[0]}", False, reason)
                )
        else:
            choices.append(ModelChoice(info.name, f"{info.name} — downloaded, {_mb(info.size_mb)}", True))
    for name, mb in HUB_MODELS.items():
        if name in seen:
            continue
        if on_mac:
            choices.append(ModelChoice(name, f"{name} — download {_mb(mb)}", True))
        else:
            reason = (
                "downloaded models are offered on Apple-silicon Macs, whose GPU runs them; this computer's "
                "processor is too slow for them to caption live"
            )
            choices.append(ModelChoice(name, f"{name} — {_mb(mb)}, needs an Apple-silicon Mac", False, reason))
    return choices


class _Installs(QObject):
    """Announces that a model was installed, so every picker shows it as installed."""

    changed = Signal()


_installs: _Installs | None = None


def installs() -> _Installs:
    """The one announcer of installed models (made on first use, on the GUI thread)."""
    global _installs
    if _installs is None:
        _installs = _Installs()
    return _installs


class ModelPicker(QComboBox):
    """A combo of ModelChoice; `name_changed(name)` fires when the person picks a usable model."""

    name_changed = Signal(str)

    def __init__(self, current: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(30)
        self.refresh(current)
        installs().changed.connect(self._model_installed)  # a method: disconnected when the picker is deleted
        self.currentIndexChanged.connect(lambda _i: self.name_changed.emit(self.name()))

    def refresh(self, current: str) -> None:
        self.blockSignals(True)
        self.clear()
        choices = model_choices()
        if current not in [c.name for c in choices]:
            choices.insert(0, ModelChoice(current, current, True))
        for choice in choices:
            self.addItem(choice.label, choice.name)
            item = self.model().item(self.count() - 1)
            if not choice.usable:
                item.setFlags(item.flags() & ~Qt.ItemIsEnabled)
                item.setToolTip(choice.reason)
        self.set_name(current)
        self.blockSignals(False)

    def _model_installed(self) -> None:
        self.refresh(self.name())

    def name(self) -> str:
        return self.currentData() or ""

    def set_name(self, name: str) -> None:
        index = self.findData(name)
        if index < 0:
            self.addItem(name, name)
            index = self.count() - 1
        self.setCurrentIndex(index)

    def choice_labels(self) -> list[tuple[str, bool, str]]:
        """(label, usable, reason) per entry, as shown."""
        items = (self.model().item(i) for i in range(self.count()))
        return [(item.text(), bool(item.flags() & Qt.ItemIsEnabled), item.toolTip()) for item in items]

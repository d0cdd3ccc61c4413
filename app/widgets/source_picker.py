"""Where the sound comes from: every input device, the computer's own audio, or an audio file."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.widgets import text_styles
from engine.audio.devices import InputDevice, call_system_source, list_input_devices, pulse_sources, rescan_devices
from engine.audio.sources import AudioSource, FileSource, MicrophoneSource
from engine.audio.system_audio import system_audio_availability
from engine.errors import DeviceError

SCREEN_CAPTURE_KEY = "screencapture"  # macOS 13+: everything the Mac plays, through ScreenCaptureKit
CALL_KEY = "call"  # both sides of a call: the default microphone (you) and the first system audio (them)
CALL_LABEL = "Call (you and them)"
AUDIO_FILES = "Audio files (*.wav *.flac *.mp3 *.ogg *.m4a *.opus *.aac *.webm *.mp4);;All files (*)"


@dataclass(frozen=True)
class SourceChoice:
    """One entry of the picker. `key` is what settings remember (a device name, ``pulse:…`` or a path)."""

    kind: Literal["microphone", "system", "file", "call"]
    key: str
    label: str
    sides: tuple[SourceChoice, SourceChoice] | None = None  # a call's: you, them

    def open(self) -> AudioSource:
        """A new, not yet started source for this choice."""
        if self.kind == "file":
            return FileSource(self.key)
        if self.sides is not None:
            from engine.audio.call_sources import CallSources

            return CallSources(self.sides[0].open(), self.sides[1].open())
        if self.key == SCREEN_CAPTURE_KEY:
            from engine.audio.screencapture import ScreenCaptureSource

            return ScreenCaptureSource()
        return MicrophoneSource(self.key)

    @property
    def pace(self) -> str:
        """Files are transcribed as fast as the machine can; live inputs arrive in real time."""
        return "fast" if self.kind == "file" else "realtime"


# ALSA's plugin devices (routes to the sound server, mixers, resamplers): PortAudio lists them beside the real cards,
# but a person recognises the devices, not these names.
ALSA_PLUGIN_DEVICES = {
    "default",
    "pulse",
    "pipewire",
    "sysdefault",
    "dmix",
    "dsnoop",
    "jack",
    "oss",
    "null",
    "samplerate",
    "speexrate",
    "lavrate",
    "upmix",
    "vdownmix",
    "front",
    "surround40",
    "surround51",
    "surround71",
    "iec958",
    "spdif",
    "hdmi",
    "usbstream",
}


def _choice(device: InputDevice) -> SourceChoice:
    key = device.id if isinstance(device.id, str) else device.name
    name = device.name
    if device.kind == "system":
        name = name.removeprefix("Monitor of ")
        return SourceChoice("system", key, f"System audio: {name}")
    suffix = " (default)" if device.is_default else ""
    return SourceChoice(device.kind, key, name + suffix)


def _is_alsa_plugin(device: InputDevice) -> bool:
    return sys.platform.startswith("linux") and device.name.split(":")[0].strip().lower() in ALSA_PLUGIN_DEVICES


def available_sources() -> tuple[list[SourceChoice], str | None]:
    """The default microphone first, the other microphones, then system audio; and, where PortAudio cannot be
    loaded, why no microphone is listed.

    With a sound server (PulseAudio/PipeWire) its sources are the devices a person knows by name, and PortAudio's
    ALSA view (the same cards as hw:N names, plus plugin devices such as "default" and "pulse") is left out;
    without one, PortAudio's devices without ALSA's plugin devices (the default still comes first).
    """
    pulse = pulse_sources()
    mics = [_choice(d) for d in pulse if d.kind == "microphone"]
    problem = None
    if not mics:
        try:
            portaudio = list_input_devices()
        except DeviceError as exc:
            portaudio, problem = [], str(exc)
        real = [d for d in portaudio if not _is_alsa_plugin(d)]
        mics = [_choice(d) for d in real]
        if not real and portaudio:  # only plugin devices: offer the default route, under a person's name
            default = next((d for d in portaudio if d.is_default), portaudio[0])
            mics = [SourceChoice("microphone", default.name, "Default microphone (default)")]
    mics.sort(key=lambda c: not c.label.endswith("(default)"))
    system = [_choice(d) for d in pulse if d.kind == "system"]
    if sys.platform == "darwin" and system_audio_availability().available:
        system.append(SourceChoice("system", SCREEN_CAPTURE_KEY, "System audio (everything the Mac plays)"))
    return mics + system + _call(mics, system), problem


def _call(mics: list[SourceChoice], system: list[SourceChoice]) -> list[SourceChoice]:
    """The call entry: the default microphone and the system audio of the default sink (or the Mac's)."""
    if not mics or not system:
        return []
    monitor = call_system_source()
    them = next((c for c in system if monitor is not None and c.key == monitor.id), system[-1])
    return [SourceChoice("call", CALL_KEY, CALL_LABEL, (mics[0], them))]


class SourcePicker(QWidget):
    """A combo box of sources, with a note under it when system audio is unavailable."""

    changed = Signal(object)  # SourceChoice | None

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setMinimumContentsLength(28)
        self.combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.note = QLabel(wordWrap=True)
        self.note.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.note.setStyleSheet(text_styles.HINT)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.combo, 1)
        self.rescan_button = QToolButton(text="Rescan", toolTip="Look for devices plugged in since the last scan")
        self.rescan_button.clicked.connect(self.rescan)
        row.addWidget(self.rescan_button)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self._file: SourceChoice | None = None
        self._last_index = 0
        self.combo.activated.connect(self._activated)
        self.refresh()

    def refresh(self, select_key: str | None = None) -> None:
        """Re-list the sources, keeping the current choice (or selecting select_key) when it still exists."""
        keep = select_key or (self.current().key if self.current() else None)
        self.combo.blockSignals(True)
        self.combo.clear()
        choices, problem = available_sources()
        for choice in choices:
            self.combo.addItem(choice.label, choice)
        if self._file is not None:
            self.combo.addItem(f"File: {Path(self._file.key).name}", self._file)
        self.combo.addItem("Audio file…", None)
        has_system = any(c.kind == "system" for c in choices)
        notes = [problem] if problem else []
        if not has_system:
            notes.append(system_audio_availability().message)
        self.note.setVisible(bool(notes))
        self.note.setText("\n".join(notes))
        index = next(
            (
                i
                for i in range(self.combo.count())
                if self.combo.itemData(i) is not None and self.combo.itemData(i).key == keep
            ),
            0,
        )
        self.combo.setCurrentIndex(index)
        self._last_index = index
        self.combo.blockSignals(False)

    def rescan(self) -> None:
        """Ask PortAudio and the sound server again (only while no source is open)."""
        try:
            rescan_devices()
        except DeviceError:
            pass  # PortAudio cannot be loaded: refresh says so under the list
        self.refresh()

    def current(self) -> SourceChoice | None:
        return self.combo.currentData()

    def choose_file(self, path: str) -> None:
        """Make the audio file at path the current source."""
        self._file = SourceChoice("file", path, f"File: {Path(path).name}")
        self.refresh(select_key=path)
        self.changed.emit(self._file)

    def _activated(self, index: int) -> None:
        if self.combo.itemData(index) is not None:
            self._last_index = index
            self.changed.emit(self.current())
            return
        path, _ = QFileDialog.getOpenFileName(self, "Transcribe an audio file", str(Path.home()), AUDIO_FILES)
        if path:
            self.choose_file(path)
        else:
            self.combo.setCurrentIndex(self._last_index)

"""The source list shows what a person recognises: the default microphone first, the devices by name, system
audio, and a file; not ALSA's plugin devices ("default", "pulse")."""
from __future__ import annotations

from app.widgets.source_picker import SourcePicker


def test_the_source_list_names_real_devices_the_default_and_system_audio(qtbot, virtual_mic):
    picker = SourcePicker()
    qtbot.addWidget(picker)
    labels = [picker.combo.itemText(i) for i in range(picker.combo.count())]
    assert labels == ["WhisperFlowTestMic (default)", "System audio: WhisperFlowTestSink", "Audio file…"]
    assert picker.current().kind == "microphone" and picker.current().key == f"pulse:{virtual_mic.mic}"
    assert not any(label.split(" ")[0] in ("default", "pulse") for label in labels)

"""The source list shows what a person recognises: the default microphone first, the devices by name, system
audio, a call (both), and a file; not ALSA's plugin devices ("default", "pulse")."""

from __future__ import annotations

from app.widgets.source_picker import SourcePicker


def test_the_source_list_names_real_devices_the_default_and_system_audio(qtbot, virtual_mic):
    picker = SourcePicker()
    qtbot.addWidget(picker)
    labels = [picker.combo.itemText(i) for i in range(picker.combo.count())]
    assert labels == [
        "WhisperFlowTestMic (default)",
        "System audio: WhisperFlowTestSink",
        "Call (you and them)",  # both: the microphone and the system audio
        "Audio file…",
    ]
    assert picker.current().kind == "microphone" and picker.current().key == f"pulse:{virtual_mic.mic}"
    assert not any(label.split(" ")[0] in ("default", "pulse") for label in labels)


def test_without_portaudio_the_list_offers_files_and_says_what_to_install(tmp_path):
    """In a process where PortAudio cannot be loaded (its library search finds none) and no sound server answers."""
    import os
    import subprocess
    import sys

    program = (
        "import ctypes.util; ctypes.util.find_library = lambda name: None\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from app.widgets.source_picker import SourcePicker\n"
        "picker = SourcePicker()\n"
        "picker.rescan()\n"
        "print([picker.combo.itemText(i) for i in range(picker.combo.count())])\n"
        "print(picker.note.isVisibleTo(picker), picker.note.text())\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PULSE_SERVER=f"unix:{tmp_path}/no-server")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    labels, note = run.stdout.splitlines()[:2]
    assert labels == "['Audio file…']"
    assert note.startswith("True Audio inputs need the PortAudio library") and "libportaudio2" in note

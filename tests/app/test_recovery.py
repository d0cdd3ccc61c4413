"""Killing the app mid-session loses no confirmed word: the next start offers the session for recovery."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import soundfile as sf

from app.main import WhisperFlowApp
from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.journal import list_sessions
from testdata import DATA, REPO


CLIP = DATA / "LJ001-0009.wav"
WORDS_BEFORE_KILL = 5

# The app in a child process: it captions a long recording at real-time pace and prints every word the
# moment the GUI shows it, so the test knows exactly which words a person had seen when the app died.
CHILD = """
import sys
import engine
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.main import WhisperFlowApp
from engine.audio.sources import PacedFileSource
from engine.model.whisper_model import load_model

wf = WhisperFlowApp(preloaded=(load_model("tiny.en"),))
wf.settings.first_run_done = True
wf.settings.hush, wf.settings.beam_size, wf.settings.beam_pruning, wf.settings.pipeline = False, 1, False, False
wf.start()
wf.window.controller.update.connect(lambda u: [print("WORD", w.text, flush=True) for w in u.confirmed])
wf.window.controller.start("long recording", lambda: PacedFileSource(sys.argv[1]), "realtime")
app.exec()
"""


def test_killing_the_app_mid_session_offers_recovery_with_every_word(qtbot, isolated_dirs, tiny_model, tmp_path):
    long_clip = tmp_path / "long.wav"
    sf.write(long_clip, np.tile(load_audio(CLIP), 4), SAMPLE_RATE)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(long_clip)], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    shown: list[str] = []
    deadline = time.monotonic() + 120
    try:
        while len(shown) < WORDS_BEFORE_KILL:
            line = child.stdout.readline()
            assert line and time.monotonic() < deadline, f"the app stopped before showing words: {shown}"
            if line.startswith("WORD "):
                shown.append(line.split(" ", 1)[1].strip())
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL

    [interrupted] = list_sessions()
    assert not interrupted.complete and not interrupted.recording

    wf = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(wf.window)
    dialog = wf.start()
    assert dialog is not None and dialog.isVisible() and wf.wizard is None
    assert "stopped unexpectedly" in dialog.intro.text()
    assert dialog.list.count() == 1
    dialog.recover_button.click()
    recovered = [w.text for w in wf.window.transcript.words()]
    assert recovered[:len(shown)] == shown  # every word that was on screen, in order
    assert list_sessions()[0].recovered
    wf.window.quit()

    again = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(again.window)
    assert again.start() is None  # offered once, not at every start
    again.window.quit()

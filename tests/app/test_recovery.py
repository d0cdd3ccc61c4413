"""Killing the app mid-session loses no confirmed word: the next start offers the session for recovery."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import soundfile as sf
from testdata import DATA, REPO

from app.main import WhisperFlowApp
from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.journal import list_sessions
from tools.kill9 import APP_CHILD  # the app in a child process, printing each word as it shows it

CLIP = DATA / "LJ001-0009.wav"
WORDS_BEFORE_KILL = 5


def test_killing_the_app_mid_session_offers_recovery_with_every_word(qtbot, isolated_dirs, tiny_model, tmp_path):
    long_clip = tmp_path / "long.wav"
    sf.write(long_clip, np.tile(load_audio(CLIP), 4), SAMPLE_RATE)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", APP_CHILD, str(long_clip), "greedy"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
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
    assert recovered[: len(shown)] == shown  # every word that was on screen, in order
    assert list_sessions()[0].recovered
    wf.window.quit()

    again = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(again.window)
    assert again.start() is None  # offered once, not at every start
    again.window.quit()

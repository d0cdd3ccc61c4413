"""The dialogs the app opens at start-up (the first-run wizard, crash recovery) open centred over the main window,
which has a known place before it is shown (the primary screen's centre on a first start)."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from app.main import WhisperFlowApp
from engine.session.journal import COMPLETE_FILE, SessionJournal
from engine.session.transcript import SessionMeta
from engine.session.words import Word

NEAR = 50  # px: Qt centres a dialog's frame allowing for a title bar it guesses


def _centre_distance(a, b) -> int:
    return (a.center() - b.center()).manhattanLength()


def _start(qtbot, tiny_model):
    wf = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(wf.window)
    return wf, wf.start()


def test_the_first_start_centres_the_window_and_the_wizard_over_it(qtbot, isolated_dirs, tiny_model):
    wf, _ = _start(qtbot, tiny_model)
    try:
        area = QGuiApplication.primaryScreen().availableGeometry()
        assert _centre_distance(wf.window.geometry(), area) <= 2
        assert wf.wizard is not None and wf.wizard.isVisible()
        assert _centre_distance(wf.wizard.frameGeometry(), wf.window.frameGeometry()) <= NEAR
    finally:
        wf.wizard.reject()
        wf.window.quit()


def test_the_recovery_dialog_opens_centred_over_the_main_window(qtbot, isolated_dirs, tiny_model):
    meta = SessionMeta.new("Microphone", "tiny.en")
    with SessionJournal.create(None, meta) as journal:
        journal.append([Word(t, i * 0.4, i * 0.4 + 0.3).confirmed(2.0) for i, t in enumerate("saved words".split())])
    (journal.path / COMPLETE_FILE).unlink()  # as if the app had died before closing the session
    wf, dialog = _start(qtbot, tiny_model)
    try:
        assert dialog is not None and dialog.isVisible()
        assert _centre_distance(dialog.frameGeometry(), wf.window.frameGeometry()) <= NEAR
    finally:
        dialog.reject()
        wf.window.quit()

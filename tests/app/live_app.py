"""Driving the app as a person does, shared by the app's tests: the app on the cheapest stable settings, a session
started on the virtual microphone (tests/pulse_mic.py), exports made through the save dialog and read back."""

from __future__ import annotations

import json

import jiwer
import srt
import webvtt
from PySide6.QtWidgets import QFileDialog
from whisper_normalizer.english import EnglishTextNormalizer

from app.main import WhisperFlowApp
from engine.session.paragraphs import paragraphs
from engine.session.transcript import settled

MIC_KEY = "pulse:wf_test_mic"
normalize = EnglishTextNormalizer()


def wer(reference: str, hypothesis: str) -> float:
    return jiwer.wer(normalize(reference), normalize(hypothesis))


def cheap_app(tiny_model) -> WhisperFlowApp:
    """The app past its first run, on tiny.en: greedy, serial, padded to 30 s, the cheapest settings that are stable
    on a shared 2-core machine (the hush word currently loops on 1 s first rounds with tiny.en)."""
    wf = WhisperFlowApp(preloaded=(tiny_model,))
    wf.settings.first_run_done = True
    wf.settings.hush, wf.settings.beam_size, wf.settings.beam_pruning, wf.settings.pipeline = False, 1, False, False
    return wf


def start_on_virtual_mic(qtbot, wf: WhisperFlowApp) -> None:
    """Choose the virtual microphone as the source and press Start; returns once it listens."""
    picker = wf.window.source_picker
    picker.refresh(select_key=MIC_KEY)
    assert picker.current().key == MIC_KEY, [picker.combo.itemText(i) for i in range(picker.combo.count())]
    with qtbot.waitSignals([wf.window.controller.session_started, wf.window.controller.listening], timeout=20000):
        wf.window.start_button.click()
    assert wf.window.statusBar().currentMessage().startswith("Listening to WhisperFlowTestMic")


def export_through_dialog(window, fmt: str, typed: str | None = None, selection: bool = False) -> QFileDialog:
    """Export as a person does: open the save dialog, choose fmt's file type, type a name (or keep the proposed
    one) and press Save."""
    dialog = window.export_dialog(selection=selection)
    dialog.selectNameFilter(next(f for f in dialog.nameFilters() if f"(*.{fmt})" in f))
    if typed is not None:
        dialog.selectFile(typed)
    dialog.accept()
    return dialog


READ_BACK = {  # an export's words, read back as its format is read
    "txt": lambda path: [  # the paragraphs after "0:01  "
        word
        for line in path.read_text(encoding="utf-8").splitlines()
        if line
        for word in line.split("  ", 1)[1].split()
    ],
    "md": lambda path: [  # the paragraphs after "**[0:01]** "
        word
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("**[")
        for word in line.split("** ", 1)[1].split()
    ],
    "srt": lambda path: " ".join(c.content for c in srt.parse(path.read_text(encoding="utf-8"))).split(),
    "vtt": lambda path: " ".join(c.text for c in webvtt.read(str(path))).split(),
    "json": lambda path: [w["text"] for w in json.loads(path.read_text(encoding="utf-8"))["words"]],
}


def said(window, fmt: str) -> list[str]:
    """The transcript's words as fmt writes them: as prose (engine.session.paragraphs) in TXT and Markdown, with
    their periods settled (engine.session.transcript.settled) in the others, as every export writes them."""
    words = window.transcript.words()
    if fmt in ("txt", "md"):
        return [text for p in paragraphs(words) for text in p.text.split()]
    return [w.text for w in settled(words)]

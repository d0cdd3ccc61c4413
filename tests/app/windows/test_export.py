"""A transcript made by the real engine exports to every format (and each parses), under the name the save dialog
proposes or one a person types; past sessions reopen."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest
import srt
import webvtt
from live_app import READ_BACK, cheap_app, export_through_dialog, said
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QMessageBox
from testdata import DATA

from engine.audio.sources import FileSource
from engine.session.exporters import FORMATS
from engine.session.paragraphs import paragraphs

CLIPS = [DATA / "LJ001-0013.wav", DATA / "LJ001-0008.wav"]  # 2.6 s and 1.8 s of speech


def wait_until(app, condition, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        app.processEvents(QEventLoop.AllEvents, 50)
        time.sleep(0.01)


@pytest.fixture(scope="module")
def captioned(qapp, tmp_path_factory, tiny_model):
    """The app after captioning both clips (two sessions, fast pace): made once for this module's tests."""
    root = tmp_path_factory.mktemp("export")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("CACHE", "CONFIG", "DATA"):
            mp.setenv(f"WHISPERFLOW_{name}_DIR", str(root / name.lower()))
        wf = cheap_app(tiny_model)
        wf.start()
        for clip in CLIPS:
            ended = []
            on_end = ended.append
            wf.window.controller.session_ended.connect(on_end)
            wf.window.controller.start(clip.name, lambda c=clip: FileSource(c), "fast")
            wait_until(qapp, lambda ended=ended: ended, 60)
            wf.window.controller.session_ended.disconnect(on_end)
        yield wf
        wf.window.quit()


def test_export_writes_every_format_and_each_parses(captioned, tmp_path):
    wf = captioned
    assert wf.window.open_session(wf.window.open_sessions().sessions[1].session_id)  # the first (older) clip
    words = wf.window.transcript.words()
    assert "operations" in wf.window.transcript.text().lower()
    written = {fmt: wf.window.export_to(tmp_path / f"out.{fmt}", fmt) for fmt in FORMATS}
    assert all(written.values())

    cues = list(srt.parse(written["srt"].read_text(encoding="utf-8")))
    assert " ".join(c.content for c in cues).split() == [w.text for w in words]
    assert all(a.start <= b.start for a, b in zip(cues, cues[1:]))
    vtt = webvtt.read(str(written["vtt"]))
    assert " ".join(c.text for c in vtt).split() == [w.text for w in words]
    data = json.loads(written["json"].read_text(encoding="utf-8"))
    exported = data["words"]
    assert [w["text"] for w in exported] == [w.text for w in words]
    assert all(0 <= w["start"] <= w["end"] and 0 <= w["confidence"] <= 1 for w in exported)
    paragraphs_written = written["txt"].read_text(encoding="utf-8").strip().split("\n\n")
    assert [line.split("  ", 1)[1] for line in paragraphs_written] == [p.text for p in paragraphs(words)]
    assert paragraphs_written[0].startswith("0:00  ")
    assert "operations" in written["md"].read_text(encoding="utf-8")


def test_exporting_a_selection_writes_only_the_selected_lines(captioned, tmp_path):
    view = captioned.window.transcript
    assert view.paragraphs
    view.list.item(len(view.paragraphs) - 1).setSelected(True)
    path = captioned.window.export_to(tmp_path / "part.txt", "txt", selection=True)
    assert (
        path.read_text(encoding="utf-8")
        == f"{view.margin_time(len(view.paragraphs) - 1)}  {view.paragraphs[-1].text}\n"
    )
    view.list.clearSelection()
    assert captioned.window.export_to(tmp_path / "none.txt", "txt", selection=True) is None
    assert "Select one or more lines" in captioned.window.banner_text.text()


def test_past_sessions_are_listed_and_reopened(captioned):
    dialog = captioned.window.open_sessions()
    assert [s.complete for s in dialog.sessions] == [True, True]
    assert dialog.table.rowCount() == 2 and dialog.table.item(0, 4).text() == "complete"
    newest = dialog.sessions[0]
    assert newest.source == "LJ001-0008.wav" and "surpassed" in newest.preview
    dialog.table.selectRow(1)
    dialog.open_button.click()
    assert "ugly" in captioned.window.transcript.text().lower()
    assert captioned.window.meta.session_id == dialog.sessions[1].session_id


def test_export_to_a_missing_folder_is_a_clear_message(captioned, tmp_path):
    assert captioned.window.export_to(tmp_path / "no" / "such" / "dir.srt") is None
    assert "does not exist" in captioned.window.banner_text.text()


def proposed_stem(window) -> str:
    """The session's local start time as the export names it, worked out here from the session's metadata."""
    return datetime.fromisoformat(window.meta.started_at).strftime("WhisperFlow %Y-%m-%d %Hh%M")


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_proposed_name_and_a_name_with_dots_get_the_chosen_formats_extension(captioned, tmp_path, fmt):
    window = captioned.window
    assert window.open_session(window.open_sessions().sessions[0].session_id)
    window.settings.export_dir = str(tmp_path)
    export_through_dialog(window, fmt)
    export_through_dialog(window, fmt, "Call 1.5 notes")
    stem = proposed_stem(window)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{stem}.{fmt}", f"Call 1.5 notes.{fmt}"])
    assert all(READ_BACK[fmt](path) == said(window, fmt) for path in tmp_path.iterdir())


def test_export_selection_proposes_a_name_of_its_own(captioned, tmp_path):
    window = captioned.window
    assert window.open_session(window.open_sessions().sessions[0].session_id)
    window.settings.export_dir = str(tmp_path)
    stem = proposed_stem(window)
    proposed = {}
    for selection in (False, True):
        dialog = window.export_dialog(selection=selection)
        proposed[selection] = Path(dialog.selectedFiles()[0]).name
        dialog.reject()
    assert proposed == {False: stem, True: f"{stem} (selection)"}
    export_through_dialog(window, "txt")
    window.transcript.list.item(0).setSelected(True)
    dialog = export_through_dialog(window, "txt", selection=True)
    assert dialog.windowTitle() == "Export selection"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem} (selection).txt", f"{stem}.txt"]
    selected = window.transcript.paragraphs[0].text
    assert (tmp_path / f"{stem} (selection).txt").read_text(encoding="utf-8").split("  ", 1)[1] == selected + "\n"
    window.transcript.list.clearSelection()


def test_a_file_the_added_extension_names_is_replaced_only_when_confirmed(qtbot, captioned, tmp_path):
    window = captioned.window
    window.settings.export_dir = str(tmp_path)
    existing = tmp_path / "Call 1.5 notes.txt"
    existing.write_text("kept\n", encoding="utf-8")
    export_through_dialog(window, "txt", "Call 1.5 notes")
    box = [b for b in window.findChildren(QMessageBox) if b.isVisible()][-1]
    assert "Call 1.5 notes.txt" in box.text() and existing.read_text(encoding="utf-8") == "kept\n"
    box.button(QMessageBox.No).click()
    assert existing.read_text(encoding="utf-8") == "kept\n"
    export_through_dialog(window, "txt", "Call 1.5 notes")
    box = [b for b in window.findChildren(QMessageBox) if b.isVisible()][-1]
    box.button(QMessageBox.Yes).click()
    assert READ_BACK["txt"](existing) == said(window, "txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Call 1.5 notes.txt"]

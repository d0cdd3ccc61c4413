"""A transcript made by the real engine exports to every format (and each parses); past sessions reopen."""

from __future__ import annotations

import json
import time

import pytest
import srt
import webvtt
from PySide6.QtCore import QEventLoop
from testdata import DATA

from app.main import WhisperFlowApp
from engine.audio.sources import FileSource
from engine.session.exporters import FORMATS

CLIPS = [DATA / "LJ001-0009.wav", DATA / "LJ001-0008.wav"]


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
        wf = WhisperFlowApp(preloaded=(tiny_model,))
        wf.settings.first_run_done = True
        wf.settings.hush, wf.settings.beam_size, wf.settings.beam_pruning, wf.settings.pipeline = False, 1, False, False
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
    assert "books" in wf.window.transcript.text().lower()
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
    assert written["txt"].read_text(encoding="utf-8").split() == [w.text for w in words]
    assert "books" in written["md"].read_text(encoding="utf-8")


def test_exporting_a_selection_writes_only_the_selected_lines(captioned, tmp_path):
    view = captioned.window.transcript
    assert view.lines
    view.list.item(len(view.lines) - 1).setSelected(True)
    path = captioned.window.export_to(tmp_path / "part.txt", "txt", selection=True)
    assert path.read_text(encoding="utf-8").split() == [w.text for w in view.lines[-1].words]
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
    assert "movable" in captioned.window.transcript.text().lower()
    assert captioned.window.meta.session_id == dialog.sessions[1].session_id


def test_export_to_a_missing_folder_is_a_clear_message(captioned, tmp_path):
    assert captioned.window.export_to(tmp_path / "no" / "such" / "dir.srt") is None
    assert "does not exist" in captioned.window.banner_text.text()

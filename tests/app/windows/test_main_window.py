"""The main window as a person meets it: one Start/Stop button, the source with its live level, the transcript as
paragraphs, search and Export in the toolbar; a file's subtitles count from the file's start; a call's turns name
their side, and its exports keep the labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import srt
from live_app import export_through_dialog
from PySide6.QtWidgets import QFileDialog, QToolBar
from testdata import ACOUSTIC_FIRST_SENTENCE_S, DATA, clip_start

from app.main import WhisperFlowApp
from engine.audio.call_sources import CallSources, open_side
from engine.audio.files import SAMPLE_RATE, load_audio

SILENCE_S = 20.0  # before the speech in the file: longer than the whole session takes at the fast pace


@pytest.fixture()
def wf(qtbot, isolated_dirs, tiny_model):
    wf = WhisperFlowApp(preloaded=(tiny_model,))
    wf.settings.first_run_done = True
    wf.settings.hush, wf.settings.beam_size, wf.settings.beam_pruning, wf.settings.pipeline = False, 1, False, False
    qtbot.addWidget(wf.window)
    wf.start()
    yield wf
    wf.window.quit()


def test_the_toolbar_holds_search_and_export_and_the_recording_bar_the_source_and_its_level(wf):
    window = wf.window
    [toolbar] = window.findChildren(QToolBar)
    assert window.transcript.search.parent() is toolbar and window.export_button.parent() is toolbar
    assert window.level_meter.isVisible() and window.source_picker.isVisible()
    assert window.level_meter.parent() is window.source_picker.parent()  # beside the source
    assert window.start_button.text() == "Start" and window.start_button.property("running") is False


def test_a_file_session_started_and_exported_from_the_window_has_subtitles_timed_from_the_file(
    qtbot, wf, tmp_path: Path
):
    window = wf.window
    clip = tmp_path / "late start.wav"
    speech = load_audio(DATA / "LJ001-0008.wav")  # "has never been surpassed." (1.8 s)
    sf.write(clip, np.concatenate([np.zeros(int(SILENCE_S * SAMPLE_RATE), np.float32), speech]), SAMPLE_RATE)
    window.source_picker.choose_file(str(clip))
    levels = []
    window.controller.level.connect(levels.append)
    with qtbot.waitSignal(window.controller.session_ended, timeout=90000):
        window.start_button.click()
        assert window.start_button.text() == "Stop" and window.start_button.property("running") is True
    assert window.start_button.text() == "Start" and max(levels) > 0.02
    view = window.transcript
    # tiny.en hears "As never been surpassed", ending it with a period or, where the stream ends, a comma
    assert len(view.paragraphs) == 1 and view.paragraphs[0].text.rstrip(".,").endswith("never been surpassed")
    assert view.margin_time(0) in ("0:18", "0:19", "0:20")

    window.settings.export_dir = str(tmp_path)
    window.export_button.click()
    [dialog] = [d for d in window.findChildren(QFileDialog) if d.isVisible()]
    dialog.selectNameFilter(next(f for f in dialog.nameFilters() if "*.srt" in f))
    dialog.selectFile(str(tmp_path / "talk.srt"))
    dialog.accept()
    cues = list(srt.parse((tmp_path / "talk.srt").read_text(encoding="utf-8")))
    assert "surpassed" in cues[0].content
    assert SILENCE_S - 1.5 <= cues[0].start.total_seconds() <= SILENCE_S + 1.0  # the file's time, not the session's


def test_a_call_from_files_shows_each_turns_side_and_exports_labelled_txt_srt_and_vtt(qtbot, wf, tmp_path: Path):
    window = wf.window
    you, them = clip_start("acoustic_corpus_10s.wav", ACOUSTIC_FIRST_SENTENCE_S, tmp_path), DATA / "LJ001-0008.wav"
    with qtbot.waitSignal(window.controller.session_ended, timeout=240000):  # 70 s on a slow host, 120+ shared
        window.controller.start(
            "Call", lambda: CallSources(open_side(str(you), "fast"), open_side(str(them), "fast")), "fast"
        )
    view = window.transcript
    sides = [view.margin_side(row) for row in range(view.list.count())]
    assert {"You", "Them"} <= set(sides) and "" not in sides
    assert [p.start for p in view.paragraphs] == sorted(p.start for p in view.paragraphs)  # turns in time order
    said = {s: " ".join(p.text for p in view.paragraphs if p.speaker == s).lower() for s in ("you", "them")}
    assert "surpassed" in said["them"] and "surpassed" not in said["you"]

    window.settings.export_dir = str(tmp_path)
    for fmt in ("txt", "srt", "vtt"):
        export_through_dialog(window, fmt, str(tmp_path / f"call.{fmt}"))
    txt = (tmp_path / "call.txt").read_text(encoding="utf-8")
    assert "You: " in txt and "Them: " in txt
    cues = list(srt.parse((tmp_path / "call.srt").read_text(encoding="utf-8")))
    assert all(c.content.startswith(("You: ", "Them: ")) for c in cues)
    assert any("surpassed" in c.content and c.content.startswith("Them: ") for c in cues)
    vtt = (tmp_path / "call.vtt").read_text(encoding="utf-8")
    assert "<v You>" in vtt and "<v Them>" in vtt

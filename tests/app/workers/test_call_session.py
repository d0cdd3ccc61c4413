"""A call session in the app: the source picker offers "Call (you and them)"; with a virtual microphone (you) and a
null sink's monitor (them, the default sink: what the computer plays), each word lands in the journal under its
side's label, and the session exports labelled TXT, SRT and VTT."""

from __future__ import annotations

from test_session_controller import whisperflow  # noqa: F401 (the app fixture)
from testdata import ACOUSTIC_FIRST_SENTENCE_S, DATA, clip_start

from app.widgets.source_picker import CALL_KEY
from engine.session.exporters import render
from engine.session.journal import list_sessions, load_session

THEM_SINK = "wf_them"


def test_a_call_session_keeps_both_sides_labelled(qtbot, virtual_mic, whisperflow, tmp_path):  # noqa: F811
    virtual_mic.load_module("module-null-sink", f"sink_name={THEM_SINK}", "norewinds=1")
    virtual_mic.pactl("set-default-sink", THEM_SINK)
    wf = whisperflow
    picker = wf.window.source_picker
    picker.refresh(select_key=CALL_KEY)
    assert picker.current().key == CALL_KEY and picker.combo.currentText() == "Call (you and them)"
    with qtbot.waitSignals([wf.window.controller.session_started, wf.window.controller.listening], timeout=20000):
        wf.window.start_button.click()
    you = clip_start("acoustic_corpus_10s.wav", ACOUSTIC_FIRST_SENTENCE_S, tmp_path)
    players = [virtual_mic.play(you), virtual_mic.play(DATA / "LJ001-0008.wav", THEM_SINK)]
    qtbot.waitUntil(lambda: all(p.poll() is not None for p in players), timeout=30000)
    qtbot.waitUntil(lambda: "surpassed" in wf.window.transcript.text().lower(), timeout=30000)
    with qtbot.waitSignal(wf.window.controller.session_ended, timeout=30000):
        wf.window.start_button.click()

    [session] = list_sessions()
    transcript = load_session(None, session.session_id)
    by_side = {s: " ".join(w.text.lower() for w in transcript.words if w.speaker == s) for s in ("you", "them")}
    assert "surpassed" in by_side["them"] and "surpassed" not in by_side["you"]
    assert "corpus" in by_side["you"] and "corpus" not in by_side["them"]
    assert "Them: " in render(transcript, "txt") and "You: " in render(transcript, "txt")
    assert "Them: " in render(transcript, "srt") and "<v You>" in render(transcript, "vtt")

"""Live sessions through a PulseAudio virtual microphone: words reach the captions, the transcript and
the journal; an input that disappears mid-session gives a clear message and keeps what was captured."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from live_app import cheap_app, start_on_virtual_mic, wer
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.journal import list_sessions, load_session

CLIP = DATA / "LJ001-0009.wav"
REFERENCE = "Printing, then, for our purpose, may be considered as the art of making books by means of movable types."


@pytest.fixture()
def whisperflow(qtbot, isolated_dirs, tiny_model):
    wf = cheap_app(tiny_model)
    wf.settings.caption.hide_after_s = 0.0
    qtbot.addWidget(wf.window)
    wf.start()
    yield wf
    wf.window.quit()


def test_speech_into_the_virtual_mic_appears_in_captions_transcript_and_journal(qtbot, virtual_mic, whisperflow):
    wf = whisperflow
    start_on_virtual_mic(qtbot, wf)
    levels = []
    wf.window.controller.level.connect(levels.append)
    player = virtual_mic.play(CLIP)
    qtbot.waitUntil(lambda: player.poll() is not None, timeout=30000)
    qtbot.waitUntil(lambda: "books" in wf.window.captions.text().lower(), timeout=30000)
    assert wf.window.captions.isVisible()
    with qtbot.waitSignal(wf.window.controller.session_ended, timeout=30000):
        wf.window.start_button.click()  # Stop: the rest of the buffer is confirmed

    transcript = wf.window.transcript.text()
    assert wer(REFERENCE, transcript) < 0.25, transcript
    assert wer(REFERENCE, wf.window.captions.text()) < 0.25
    assert wf.window.transcript.paragraphs and wf.window.transcript.margin_time(0).startswith("0:0")
    assert max(levels) > 0.02  # the meter saw the speech
    [session] = list_sessions()
    assert session.complete and session.source.startswith("WhisperFlowTestMic")
    assert load_session(None, session.session_id).text == transcript


def test_a_device_that_disappears_mid_session_keeps_the_transcript(qtbot, virtual_mic, whisperflow, tmp_path):
    wf = whisperflow
    long_clip = tmp_path / "long.wav"
    sf.write(long_clip, np.tile(load_audio(CLIP), 3), SAMPLE_RATE)
    start_on_virtual_mic(qtbot, wf)
    virtual_mic.play(long_clip)
    qtbot.waitUntil(lambda: len(wf.window.transcript.words()) >= 4, timeout=40000)
    with qtbot.waitSignal(wf.window.controller.session_ended, timeout=15000):
        virtual_mic.pactl("unload-module", str(virtual_mic.module_index("module-null-sink", virtual_mic.sink)))

    assert wf.window.banner.isVisible()
    message = wf.window.banner_text.text()
    assert "stopped working" in message and "kept" in message
    assert "Switch device" in message and "stop here" in message and wf.window.switch_button.isVisible()
    kept = wf.window.transcript.text()
    assert len(kept.split()) >= 4 and "printing" in kept.lower()
    [session] = list_sessions()
    assert load_session(None, session.session_id).text == kept  # every word shown is on disk
    assert wf.window.controller.state == "idle" and wf.window.start_button.text() == "Start"
    assert wf.window.export_to(tmp_path / "kept.txt") is not None  # the app carries on
    wf.window.switch_button.click()  # "Switch device…" opens the list of sources to pick another
    qtbot.waitUntil(lambda: wf.window.source_picker.combo.view().isVisible(), timeout=3000)
    assert not wf.window.banner.isVisible()
    wf.window.source_picker.combo.hidePopup()

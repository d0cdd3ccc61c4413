"""Issue 53's trial, repeated by script: a person records a reading through a microphone, watches the captions,
stops, exports the transcript in every format and finds the session again after starting the app anew.

The display is Qt's offscreen one (tests/conftest.py), the microphone a private PulseAudio server's virtual source
(tests/pulse_mic.py) with a real recording played into it, and the app is driven through its widgets."""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf
import srt
import webvtt
from live_app import READ_BACK, cheap_app, export_through_dialog, said, start_on_virtual_mic, wer
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.exporters import FORMATS
from engine.session.paragraphs import paragraphs

PAUSE_S = 3.0  # between the two sentences: longer than a paragraph's pause (engine.session.paragraphs.PAUSE_S)
READING = (  # tests/data/ATTRIBUTION.md
    (
        DATA / "LJ001-0009.wav",
        "Printing, then, for our purpose, may be considered as the art of making books by means of movable types.",
    ),
    (DATA / "LJ001-0011.wav", "It is of the first importance that the letter used should be fine in form;"),
)
REFERENCE = " ".join(text for _, text in READING)


def write_reading(path):
    """The two sentences with a pause between them (about 15 s), as one file to play into the microphone."""
    first, second = (load_audio(clip) for clip, _ in READING)
    sf.write(path, np.concatenate([first, np.zeros(int(PAUSE_S * SAMPLE_RATE), np.float32), second]), SAMPLE_RATE)
    return len(first) / SAMPLE_RATE


def cue_times(cues) -> list[tuple[float, float]]:
    return [(c.start.total_seconds(), c.end.total_seconds()) for c in cues]


def seconds(stamp: str) -> float:
    """A WebVTT time ("00:01:02.345") in seconds."""
    hours, minutes, secs = stamp.split(":")
    return round(int(hours) * 3600 + int(minutes) * 60 + float(secs), 3)


def check_exports(folder, window, first_sentence_s: float) -> None:
    """Each format holds the transcript's words, its paragraphs or cues at the media's times."""
    files = {path.suffix[1:]: path for path in folder.iterdir()}
    assert sorted(files) == sorted(FORMATS) and len({path.stem for path in files.values()}) == 1, files
    for fmt, path in files.items():
        assert READ_BACK[fmt](path) == said(window, fmt), fmt
        assert wer(REFERENCE, " ".join(READ_BACK[fmt](path))) < 0.25, fmt

    words = window.transcript.words()
    prose = paragraphs(words)
    assert len(prose) == 2 and prose[0].text.endswith("types.") and prose[1].text.startswith("It")
    assert abs(prose[1].start - prose[0].start - (first_sentence_s + PAUSE_S)) < 1.5
    txt = files["txt"].read_text(encoding="utf-8")
    assert txt == "\n".join(f"{window.transcript.margin_time(i)}  {p.text}\n" for i, p in enumerate(prose))
    md = files["md"].read_text(encoding="utf-8")
    assert md.startswith("# Transcript, ") and "- **Source:** WhisperFlowTestMic" in md
    assert [line.split("** ", 1)[0] + "**" for line in md.splitlines() if line.startswith("**[")] == [
        f"**[{window.transcript.margin_time(i)}]**" for i in range(2)
    ]

    data = json.loads(files["json"].read_text(encoding="utf-8"))
    assert data["source"].startswith("WhisperFlowTestMic") and data["session_id"] == window.meta.session_id
    assert [(w["start"], w["end"]) for w in data["words"]] == [(round(w.start, 3), round(w.end, 3)) for w in words]
    assert all(0 <= w["start"] <= w["end"] <= data["duration_s"] for w in data["words"])
    cues = list(srt.parse(files["srt"].read_text(encoding="utf-8")))
    times = cue_times(cues)
    assert all(a[0] <= b[0] and start < end for a, b, (start, end) in zip(times, times[1:], times))
    assert abs(times[0][0] - words[0].start) < 0.5 and times[-1][1] <= data["duration_s"] + 0.5
    vtt = webvtt.read(str(files["vtt"]))
    assert [(seconds(c.start), seconds(c.end)) for c in vtt] == times


def test_a_reading_into_the_microphone_is_captioned_exported_in_every_format_and_found_after_a_relaunch(
    qtbot, isolated_dirs, virtual_mic, tiny_model, tmp_path
):
    reading = tmp_path / "reading.wav"
    first_sentence_s = write_reading(reading)
    wf = cheap_app(tiny_model)
    wf.settings.caption.hide_after_s = 0.0  # the captions stay up through the pause
    qtbot.addWidget(wf.window)
    assert wf.start() is None and wf.wizard is None
    window = wf.window

    start_on_virtual_mic(qtbot, wf)
    assert window.start_button.text() == "Stop"
    player = virtual_mic.play(reading)
    qtbot.waitUntil(lambda: len(window.captions.text().split()) >= 4, timeout=20000)
    assert window.captions.isVisible() and player.poll() is None  # captions while the reading goes on
    qtbot.waitUntil(lambda: len(window.transcript.words()) >= 4, timeout=20000)
    qtbot.waitUntil(lambda: player.poll() is not None, timeout=40000)
    qtbot.waitUntil(lambda: "form" in window.captions.text().lower(), timeout=20000)
    with qtbot.waitSignal(window.controller.session_ended, timeout=30000):
        window.start_button.click()  # Stop
    assert window.start_button.text() == "Start"
    transcript = window.transcript.text()
    assert wer(REFERENCE, transcript) < 0.25, transcript
    assert wer(REFERENCE, window.captions.text()) < 0.25
    assert window.transcript.visible_paragraph_texts() == [p.text for p in paragraphs(window.transcript.words())]

    exports = tmp_path / "exports"
    exports.mkdir()
    window.settings.export_dir = str(exports)
    for fmt in FORMATS:
        export_through_dialog(window, fmt)  # the proposed name, each format's file type
    check_exports(exports, window, first_sentence_s)
    # to the millisecond, as the journal keeps them
    words = [
        (w.text, round(w.start, 3), round(w.end, 3)) for w in window.transcript.words()
    ]  # as the journal keeps them
    window.quit()

    again = cheap_app(tiny_model)  # a new start on the same folders
    qtbot.addWidget(again.window)
    assert again.start() is None  # the session ended cleanly: nothing to recover
    assert again.window.suggested_export_path().parent == exports  # the last export's folder is remembered
    dialog = again.window.open_sessions()
    assert [info.complete for info in dialog.sessions] == [True]
    assert dialog.table.item(0, 1).text().startswith("WhisperFlowTestMic")
    assert dialog.table.item(0, 2).text() == str(len(words))  # the final text's words, as the transcript's
    dialog.open_button.click()
    assert [(w.text, round(w.start, 3), round(w.end, 3)) for w in again.window.transcript.words()] == words
    assert again.window.transcript.text() == transcript
    again.window.quit()

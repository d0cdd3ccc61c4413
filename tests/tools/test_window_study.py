"""The window study decodes the windows around a word, each starting at a confirmed word's end, and prints what
each transcriber writes there."""

import json

from testdata import DATA

from engine.audio.files import load_audio
from engine.session.events import WordEvent
from tools.window_study import flow_transcriber, main, window_start


def test_a_window_starts_at_the_end_of_the_last_word_that_far_before_the_span():
    words = [WordEvent(t, start, start + 1.0, emitted=start + 1.0) for start, t in enumerate("abc")]
    assert window_start(words, 3.5, 1.0) == 2.0
    assert window_start(words, 3.5, 0.5) == 3.0
    assert window_start(words, 3.5, 10.0) == 0.0  # no word ends that early: the audio's start


def test_the_study_prints_a_row_per_transcriber_with_the_words_near_the_span(tiny_model, tmp_path, capsys):
    clip = DATA / "LJ001-0009.wav"  # "Printing, then, for our purpose, may be considered as the art of making books…"
    words = flow_transcriber(tiny_model).transcribe(load_audio(clip)).words
    run = tmp_path / "run.jsonl"
    run.write_text(
        "".join(
            json.dumps(dict(type="word", text=w.text, start=w.start, end=w.end, emitted=w.end)) + "\n" for w in words
        )
    )
    considered = next(w for w in words if "considered" in w.text)
    assert (
        main(
            [
                str(clip),
                str(run),
                "--span",
                str(considered.start),
                str(considered.end),
                "--before",
                "1",
                "--after",
                "0.5",
                "--beam",
                "1",
            ]
        )
        == 0
    )
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "|---" not in line][1:]
    assert [row.split(" | ")[:2] for row in rows] == [["| hush word", "1"], ["| padded to 30 s", "1"]]
    for row in rows:
        assert "considered" in row.split(" | ")[-1]

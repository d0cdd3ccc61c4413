"""Cue grouping and every export format, read back with standard parsers (srt, webvtt-py, json)."""
import html
import json

import numpy as np
import pytest
import srt
import webvtt

from engine.audio.files import load_audio
from engine.errors import WhisperFlowError
from engine.session.exporters import FORMATS, export, format_for_path, render, short_clock
from engine.session.transcript import LINE_LIMITS, SUBTITLE_LIMITS, CueLimits, Transcript, group_cues
from engine.session.words import Word
from testdata import DATA



def words_at(spec: list[tuple[str, float, float]]) -> list[Word]:
    return [Word(text, start, end, 0.5 + 0.01 * i) for i, (text, start, end) in enumerate(spec)]


def test_cues_break_at_sentences_pauses_length_and_duration():
    words = words_at([
        ("Hello", 0.0, 0.4), ("there.", 0.5, 0.9),                     # sentence end
        ("After", 1.0, 1.3), ("this", 1.4, 1.6),                       # then a 1.5 s pause
        ("pause", 3.1, 3.5), ("a", 3.6, 3.7), ("rather", 3.8, 4.1), ("long", 4.2, 4.5),
        ("stretch", 4.6, 5.0), ("of", 5.1, 5.2), ("words", 5.3, 5.6), ("without", 5.7, 6.0),  # 42 chars
        ("end.", 6.1, 6.3),
        ("slow", 7.0, 8.0), ("slow", 9.0, 9.9), ("slow", 10.5, 11.4), ("slow", 12.0, 12.9),
        ("slow", 13.5, 14.4), ("slow", 15.0, 15.9),  # 7 s limit (pauses under 1 s)
    ])
    cues = group_cues(words, SUBTITLE_LIMITS)
    texts = [c.text for c in cues]
    assert texts[:4] == ["Hello there.", "After this", "pause a rather long stretch of words", "without end."]
    assert all(len(t) <= 42 for t in texts)
    assert all(c.end - c.start <= 7.0 for c in cues)
    assert texts[4:] == ["slow slow slow slow", "slow slow"]
    # the cues tile the word list: indices are contiguous and cover every word once
    assert [i for c in cues for i in range(c.first, c.stop)] == list(range(len(words)))
    assert all(c.words == tuple(words[c.first:c.stop]) for c in cues)
    # a long word gets a cue of its own; punctuation inside quotes still ends a sentence
    long = group_cues(words_at([("x" * 50, 0, 1), ("He", 1, 1.2), ('said "yes."', 1.3, 1.6), ("Then", 1.7, 2)]),
                      CueLimits(42, 7.0, 1.0))
    assert [c.text for c in long] == ["x" * 50, 'He said "yes."', "Then"]


@pytest.fixture(scope="module")
def real_transcript(tiny_model) -> Transcript:
    """tiny.en's words for two LJ Speech sentences with a 1.5 s pause between them."""
    from engine.stream.round import Transcriber
    from engine.stream.offline import transcribe_audio

    a, b = load_audio(DATA / "LJ001-0009.wav"), load_audio(DATA / "LJ001-0008.wav")
    audio = np.concatenate([a, np.zeros(24000, np.float32), b])
    words = transcribe_audio(Transcriber(tiny_model), audio)
    return Transcript("20250314-093005-abcdef", "2025-03-14T09:30:05+01:00", "Test <mic> #1", "tiny.en", words)


def assert_cues(got: list[tuple[float, float, str]], transcript: Transcript) -> None:
    """Parsed (start, end, text) cues equal the transcript's subtitle cues, times to the millisecond."""
    cues = group_cues(transcript.words, SUBTITLE_LIMITS)
    assert [text for _, _, text in got] == [c.text for c in cues]
    times = [t for start, end, _ in got for t in (start, end)]
    assert times == pytest.approx([t for c in cues for t in (c.start, c.end)], abs=1.5e-3)


def test_every_format_written_and_parsed_back(real_transcript, tmp_path):
    t = real_transcript
    assert "printing" in t.text.lower() and "surpassed" in t.text.lower()
    paths = {fmt: export(t, tmp_path / f"session.{fmt}") for fmt in FORMATS}
    assert all(p.stat().st_size > 0 for p in paths.values())
    assert len(group_cues(t.words, SUBTITLE_LIMITS)) >= 2

    subs = list(srt.parse(paths["srt"].read_text(encoding="utf-8")))
    assert_cues([(s.start.total_seconds(), s.end.total_seconds(), s.content) for s in subs], t)
    assert [s.index for s in subs] == list(range(1, len(subs) + 1))

    captions = webvtt.read(str(paths["vtt"])).captions
    assert_cues([(c.start_time.in_milliseconds() / 1000, c.end_time.in_milliseconds() / 1000,
                  html.unescape(c.text)) for c in captions], t)

    doc = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert (doc["session_id"], doc["source"], doc["model"]) == (t.session_id, t.source, t.model)
    assert doc["text"] == t.text
    assert [w["text"] for w in doc["words"]] == [w.text for w in t.words]
    assert [v for w in doc["words"] for v in (w["start"], w["end"], w["confidence"])] == pytest.approx(
        [v for w in t.words for v in (w.start, w.end, w.probability)], abs=1e-3)

    lines = paths["txt"].read_text(encoding="utf-8").splitlines()
    assert " ".join(lines) == t.text
    assert len(lines) == len(group_cues(t.words, LINE_LIMITS)) >= 2  # the pause starts a new line

    md = paths["md"].read_text(encoding="utf-8")
    assert md.startswith("# Transcript, 2025-03-14 09:30\n")
    assert r"Test \<mic\> \#1" in md and "tiny.en" in md
    for cue in group_cues(t.words, LINE_LIMITS):
        assert f"**[{short_clock(cue.start)}]** " in md


def test_selection_exports(real_transcript, tmp_path):
    t = real_transcript
    first = export(t, tmp_path / "first.srt", word_range=(0, 3))
    subs = list(srt.parse(first.read_text(encoding="utf-8")))
    assert " ".join(s.content for s in subs) == " ".join(w.text for w in t.words[:3])
    assert subs[0].start.total_seconds() == pytest.approx(t.words[0].start, abs=1e-3)  # session times kept

    second_sentence = [w for w in t.words if w.start >= 8.3]  # 8.3 s lies in the pause
    part = export(t, tmp_path / "part.vtt", time_range=(8.3, 60.0))
    text = " ".join(html.unescape(c.text) for c in webvtt.read(str(part)).captions)
    assert text == " ".join(w.text for w in second_sentence) and "surpassed" in text
    assert "Printing" not in text

    doc = json.loads(export(t, tmp_path / "part.json", time_range=(8.3, 60.0)).read_text(encoding="utf-8"))
    assert [w["text"] for w in doc["words"]] == [w.text for w in second_sentence]

    with pytest.raises(WhisperFlowError, match="no words"):
        export(t, tmp_path / "none.txt", time_range=(100.0, 200.0))
    with pytest.raises(ValueError):
        export(t, tmp_path / "both.txt", word_range=(0, 1), time_range=(0.0, 1.0))
    assert not (tmp_path / "none.txt").exists()


def test_markup_is_escaped_and_format_comes_from_suffix_or_argument(tmp_path):
    t = Transcript("s", "2025-01-02T03:04:05+00:00", "mic", "tiny.en",
                   words_at([("<b>AT&T", 0.0, 0.5), ("-->", 0.6, 0.6), ("rocks.", 0.7, 1.0)]))
    vtt = export(t, tmp_path / "x.vtt")
    caption = webvtt.read(str(vtt)).captions[0]
    assert html.unescape(caption.text) == "<b>AT&T --> rocks."
    sub = next(srt.parse((export(t, tmp_path / "x.srt")).read_text(encoding="utf-8")))
    assert sub.content == "<b>AT&T --> rocks."
    # a word with no duration still yields a cue (srt/vtt readers drop zero-length cues)
    zero = Transcript("s", "2025-01-02T03:04:05+00:00", "mic", "tiny.en", words_at([("Hi.", 2.0, 2.0)]))
    assert [s.content for s in srt.parse(render(zero, "srt"))] == ["Hi."]

    out = export(t, tmp_path / "notes.log", fmt="md")
    assert out.read_text(encoding="utf-8").startswith("# Transcript")
    assert format_for_path("A.MARKDOWN") == "md"
    with pytest.raises(WhisperFlowError, match=r"\.txt, \.srt"):
        export(t, tmp_path / "x.docx")
    with pytest.raises(WhisperFlowError, match="Unknown export format"):
        export(t, tmp_path / "x.txt", fmt="pdf")
    with pytest.raises(WhisperFlowError, match="does not exist"):
        export(t, tmp_path / "missing" / "x.txt")


def test_export_replaces_a_file_whole_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old contents\n")
    t = Transcript("s", "2025-01-02T03:04:05+00:00", "mic", "tiny.en", words_at([("New", 0, 1), ("words.", 1, 2)]))
    export(t, target)
    assert target.read_text(encoding="utf-8") == "New words.\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    empty = Transcript("s", "2025-01-02T03:04:05+00:00", "mic", "tiny.en")
    for fmt in FORMATS:  # an empty session still exports valid files
        export(empty, tmp_path / f"empty.{fmt}")
    assert list(srt.parse((tmp_path / "empty.srt").read_text())) == []
    assert webvtt.read(str(tmp_path / "empty.vtt")).captions == []
    assert json.loads((tmp_path / "empty.json").read_text())["words"] == []

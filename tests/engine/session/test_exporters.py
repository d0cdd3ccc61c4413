"""Every export format, read back with standard parsers (srt, webvtt-py, json)."""

import html
import json
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import srt
import webvtt
from testdata import DATA

from engine.audio.files import load_audio
from engine.errors import WhisperFlowError
from engine.session.exporters import FORMATS, export, export_target, format_for_path, render, short_clock
from engine.session.paragraphs import paragraphs
from engine.session.transcript import Transcript, settled, subtitle_cues
from engine.session.words import Word


def words_at(spec: list[tuple[str, float, float]]) -> list[Word]:
    return [Word(text, start, end, 0.5 + 0.01 * i) for i, (text, start, end) in enumerate(spec)]


@pytest.fixture(scope="module")
def real_transcript(tiny_model) -> Transcript:
    """tiny.en's words for two LJ Speech sentences with a 1.5 s pause between them."""
    from engine.stream.offline import transcribe_audio
    from engine.stream.round import Transcriber

    a, b = load_audio(DATA / "LJ001-0009.wav"), load_audio(DATA / "LJ001-0008.wav")
    audio = np.concatenate([a, np.zeros(24000, np.float32), b])
    words = transcribe_audio(Transcriber(tiny_model), audio)
    return Transcript("20250314-093005-abcdef", "2025-03-14T09:30:05+01:00", "Test <mic> #1", "tiny.en", words)


def assert_cues(got: list[tuple[float, float, str]], transcript: Transcript) -> None:
    """Parsed (start, end, text) cues equal the transcript's subtitle cues, times to the millisecond."""
    cues = subtitle_cues(transcript.words)
    assert [text for _, _, text in got] == [c.text for c in cues]
    times = [t for start, end, _ in got for t in (start, end)]
    assert times == pytest.approx([t for c in cues for t in (c.start, c.end)], abs=1.5e-3)


def test_a_period_the_next_word_contradicts_is_a_comma_in_every_format():
    """flow, long-form file: a word confirmed at the end of a round's audio kept the period the round guessed there
    ("represented in the exhibition. in being comparatively modern"); the words after it go on in lower case."""
    words = words_at(
        [
            ("represented", 0.0, 0.5),
            ("in", 0.5, 0.6),
            ("the", 0.6, 0.7),
            ("exhibition.", 0.7, 1.3),
            ("in", 1.4, 1.5),
            ("being", 1.5, 1.8),
            ("modern.", 1.8, 2.3),
            ("For", 2.4, 2.6),
            ("missals,", 2.7, 3.1),
            ("psalters,", 3.1, 3.6),
            ("etc.", 3.6, 4.0),
            ("produced", 4.0, 4.5),
            ("i.e.", 4.6, 4.9),
            ("the", 4.9, 5.0),
            ("letter.", 5.0, 5.4),
        ]
    )
    transcript = Transcript("s", "2026-11-25T10:00:00+00:00", "file", "tiny.en", words)
    said = "represented in the exhibition, in being modern. For missals, psalters, etc. produced i.e. the letter."
    assert transcript.text == said
    assert [p.text for p in paragraphs(words)] == ["R" + said[1:]]
    assert " ".join(w["text"] for w in json.loads(render(transcript, "json"))["words"]) == said
    first_subtitle = next(srt.parse(render(transcript, "srt"))).content
    assert first_subtitle.replace("\n", " ") == "represented in the exhibition, in being modern."
    assert [w.text for w in transcript.words][3] == "exhibition."  # the words themselves keep what was said


def test_every_format_written_and_parsed_back(real_transcript, tmp_path):
    t = real_transcript
    assert "printing" in t.text.lower() and "surpassed" in t.text.lower()
    paths = {fmt: export(t, tmp_path / f"session.{fmt}") for fmt in FORMATS}
    assert all(p.stat().st_size > 0 for p in paths.values())
    assert len(subtitle_cues(t.words)) >= 2

    subs = list(srt.parse(paths["srt"].read_text(encoding="utf-8")))
    assert_cues([(s.start.total_seconds(), s.end.total_seconds(), s.content) for s in subs], t)
    assert [s.index for s in subs] == list(range(1, len(subs) + 1))

    captions = webvtt.read(str(paths["vtt"])).captions
    assert_cues(
        [
            (c.start_time.in_milliseconds() / 1000, c.end_time.in_milliseconds() / 1000, html.unescape(c.text))
            for c in captions
        ],
        t,
    )

    doc = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert (doc["session_id"], doc["source"], doc["model"]) == (t.session_id, t.source, t.model)
    assert doc["text"] == t.text
    assert [w["text"] for w in doc["words"]] == [w.text for w in t.words]
    assert [v for w in doc["words"] for v in (w["start"], w["end"], w["confidence"])] == pytest.approx(
        [v for w in t.words for v in (w.start, w.end, w.probability)], abs=1e-3
    )

    txt = paths["txt"].read_text(encoding="utf-8")
    assert txt == "\n".join(f"{short_clock(p.start)}  {p.text}\n" for p in paragraphs(t.words))

    md = paths["md"].read_text(encoding="utf-8")
    assert md.startswith("# Transcript, 2025-03-14 09:30\n")
    assert r"Test \<mic\> \#1" in md and "tiny.en" in md
    for paragraph in paragraphs(t.words):
        assert f"**[{short_clock(paragraph.start)}]** {paragraph.text}" in md


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
    t = Transcript(
        "s",
        "2025-01-02T03:04:05+00:00",
        "mic",
        "tiny.en",
        words_at([("<b>AT&T", 0.0, 0.5), ("-->", 0.6, 0.6), ("rocks.", 0.7, 1.0)]),
    )
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


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_name_gets_the_chosen_formats_extension_unless_it_ends_in_one_of_ours(fmt):
    folder = Path("/exports")
    assert export_target(folder / "Call 1.5 notes", fmt) == (folder / f"Call 1.5 notes.{fmt}", fmt)
    assert export_target(folder / "WhisperFlow 2026-11-27 16h18", fmt) == (
        folder / f"WhisperFlow 2026-11-27 16h18.{fmt}",
        fmt,
    )
    assert export_target(folder / "notes.log", fmt) == (folder / f"notes.log.{fmt}", fmt)
    for typed, its_format in (("talk.srt", "srt"), ("Talk.VTT", "vtt"), ("a.b.markdown", "md"), ("x.json", "json")):
        assert export_target(folder / typed, fmt) == (folder / typed, its_format)


def test_export_replaces_a_file_whole_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old contents\n")
    t = Transcript("s", "2025-01-02T03:04:05+00:00", "mic", "tiny.en", words_at([("New", 0, 1), ("words.", 1, 2)]))
    export(t, target)
    assert target.read_text(encoding="utf-8") == "0:00  New words.\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    empty = Transcript("s", "2025-01-02T03:04:05+00:00", "mic", "tiny.en")
    for fmt in FORMATS:  # an empty session still exports valid files
        export(empty, tmp_path / f"empty.{fmt}")
    assert list(srt.parse((tmp_path / "empty.srt").read_text())) == []
    assert webvtt.read(str(tmp_path / "empty.vtt")).captions == []
    assert json.loads((tmp_path / "empty.json").read_text())["words"] == []


def assert_subtitle_rules(cues, words) -> None:
    """At most 2 lines of at most 42 characters; no one-word cue; on screen at least 1 s (or until the next cue);
    every word once, in order; no overlaps."""
    assert [i for c in cues for i in range(c.first, c.stop)] == [i for i, w in enumerate(words) if w.text.strip()]
    for k, cue in enumerate(cues):
        assert 1 <= len(cue.lines) <= 2 and all(len(line) <= 42 for line in cue.lines), cue.lines
        assert len(cue.words) >= 2 or len(cues) == 1, f"orphan cue {cue.text!r}"
        following = cues[k + 1].start if k + 1 < len(cues) else None
        assert cue.end - cue.start >= 1.0 - 1e-9 or (following is not None and cue.end == following), cue
        assert following is None or cue.end <= following + 1e-9


def test_subtitle_rules_on_a_real_session(tiny_model, tmp_path):
    """A real captioned session (four LJ Speech sentences streamed through the engine) as SRT and VTT."""
    from engine.audio.sources import FileSource
    from engine.runtime.paths import SAMPLE_AUDIO
    from engine.stream.config import StreamConfig, build_processor
    from engine.stream.runner import run_stream

    clips = [SAMPLE_AUDIO, DATA / "LJ001-0008.wav", DATA / "LJ001-0009.wav", DATA / "LJ001-0013.wav"]
    audio = np.concatenate([np.concatenate([load_audio(c), np.zeros(8000, np.float32)]) for c in clips])
    path = tmp_path / "session.wav"
    import soundfile as sf

    sf.write(path, audio, 16000)
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", beam_size=1, pipeline=False))
    words = []
    run_stream(processor, FileSource(path), pace="fast", on_update=lambda u: words.extend(u.confirmed))
    assert len(words) > 30
    t = Transcript("s", "2025-03-14T09:30:05+01:00", "mic", "tiny.en", words)
    cues = subtitle_cues(t.words)
    assert_subtitle_rules(cues, t.words)
    assert any(len(c.lines) == 2 for c in cues)  # long sentences use the second line
    subs = list(srt.parse(export(t, tmp_path / "s.srt").read_text(encoding="utf-8")))
    assert [s.content for s in subs] == [c.text for c in cues]
    assert all(s.end - s.start >= timedelta(milliseconds=999) or s.end == n.start for s, n in zip(subs, subs[1:]))
    vtt = webvtt.read(str(export(t, tmp_path / "s.vtt")))
    assert [c.text for c in vtt] == [c.text for c in cues]
    assert " ".join(c.text for c in vtt).split() == [w.text for w in settled(t.words)]  # periods settled


def test_subtitle_cues_split_long_sentences_at_phrase_ends_and_keep_no_orphans():
    words = words_at(
        [
            ("When", 0, 0.2),
            ("the", 0.2, 0.3),
            ("bench", 0.3, 0.6),
            ("ran,", 0.6, 0.9),
            ("every", 1, 1.2),
            ("allocation", 1.2, 1.7),
            ("was", 1.7, 1.8),
            ("measured", 1.8, 2.2),
            ("twice", 2.2, 2.5),
            ("on", 2.5, 2.6),
            ("the", 2.6, 2.7),
            ("sample", 2.7, 3.0),
            ("recording,", 3.0, 3.5),
            ("and", 3.6, 3.7),
            ("the", 3.7, 3.8),
            ("fastest", 3.8, 4.2),
            ("one", 4.2, 4.4),
            ("won.", 4.4, 4.6),
            ("Yes.", 4.62, 4.64),
            ("Then", 9.0, 9.02),
        ]
    )
    cues = subtitle_cues(words)
    assert_subtitle_rules(cues, words)
    assert cues[0].lines[-1].endswith("recording,") or cues[0].lines[0].endswith("ran,")
    assert all(c.text.split()[-1] != "Then" or len(c.words) > 1 for c in cues)

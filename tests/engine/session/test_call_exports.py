"""A call's transcript exports with its labels: TXT turns, SRT labels, VTT voice tags, a JSON field."""

import json

import srt
import webvtt

from engine.session.exporters import render
from engine.session.transcript import Transcript
from engine.session.words import Word

WORDS = [  # as a journal holds them: Them's turn, your backchannel inside it, then your turn
    Word("Printing,", 0.5, 1.0, speaker="them"),
    Word("differs", 1.1, 1.6, speaker="them"),
    Word("Yeah.", 1.2, 1.5, speaker="you"),
    Word("modern.", 1.7, 2.3, speaker="them"),
    Word("So", 4.0, 4.2, speaker="you"),
    Word("this", 4.2, 4.4, speaker="you"),
    Word("is", 4.4, 4.6, speaker="you"),
]


def _call() -> Transcript:
    return Transcript("s1", "2026-01-01T10:00:00", "Call (you and them)", "tiny.en", list(WORDS))


def test_txt_and_md_have_one_labelled_turn_a_line_in_time_order():
    assert render(_call(), "txt") == "Them: Printing, differs modern.\nYou: Yeah.\nYou: So this is\n"
    md = render(_call(), "md")
    assert "**[0:00] Them:** Printing, differs modern." in md and "**[0:04] You:** So this is" in md


def test_srt_cues_start_with_who_speaks(tmp_path):
    cues = list(srt.parse(render(_call(), "srt")))
    assert [c.content.split(":")[0] for c in cues] == ["Them", "You", "You"]
    assert [c.start.total_seconds() for c in cues] == sorted(c.start.total_seconds() for c in cues)


def test_vtt_cues_carry_voice_tags(tmp_path):
    path = tmp_path / "call.vtt"
    path.write_text(render(_call(), "vtt"))
    captions = webvtt.read(path)
    assert [c.voice for c in captions] == ["Them", "You", "You"]
    assert captions[2].text == "So this is"


def test_json_words_carry_their_speaker_and_a_one_source_session_none():
    words = json.loads(render(_call(), "json"))["words"]
    assert [w["speaker"] for w in words] == [w.speaker for w in WORDS]
    alone = Transcript("s2", "2026-01-01T10:00:00", "mic", "tiny.en", [Word("Hello", 0.0, 0.5)])
    assert "speaker" not in json.loads(render(alone, "json"))["words"][0]
    assert "Them" not in render(alone, "srt") + render(alone, "vtt") and render(alone, "txt") == "0:00  Hello\n"

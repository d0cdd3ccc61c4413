"""Paragraphs: caption fragments joined into prose, broken at long pauses between sentences, at a speaker change and,
in a long run, at its widest gap; the TXT export shows each with its start time."""

from dataclasses import dataclass

from engine.session.exporters import render
from engine.session.paragraphs import MAX_WORDS, PAUSE_S, paragraphs, without_ellipses
from engine.session.transcript import Transcript
from engine.session.words import Word


def spoken(text: str, start: float = 0.0, step: float = 0.4) -> list[Word]:
    """text's words, one every step seconds from start."""
    return [Word(w, start + i * step, start + i * step + 0.3) for i, w in enumerate(text.split())]


def test_fragments_after_short_pauses_join_into_one_sentence_without_ellipses():
    # as a stream confirmed them: "I regard…" then, 1.2 s later, "this activity."
    words = spoken("I regard…") + spoken("this activity. And then...", start=1.8) + spoken("we left.", start=4.5)
    assert [p.text for p in paragraphs(words)] == ["I regard this activity. And then we left."]
    assert [w.text for w in words][1] == "regard…"  # the words keep what was said


def test_a_long_pause_between_sentences_starts_a_paragraph_but_not_inside_one():
    words = spoken("We start here.") + spoken("Later on we go", start=1.2 + PAUSE_S) + spoken("on and on.", start=8.0)
    result = paragraphs(words)
    assert [p.text for p in result] == ["We start here.", "Later on we go on and on."]
    assert (result[1].start, result[1].first, result[1].stop) == (words[3].start, 3, len(words))


def test_an_ellipsis_before_a_new_sentence_or_at_the_end_is_a_period():
    assert without_ellipses(["Well...", "So", "…maybe", "not…"]) == ["Well.", "So", "maybe", "not."]


def test_a_long_run_without_punctuation_breaks_at_its_widest_gap_and_starts_in_upper_case():
    words = spoken(" ".join(["word"] * 30)) + spoken(" ".join(["more"] * 60), start=12.0 + 1.5)
    result = paragraphs(words)
    assert len(result) == 2 and all(len(p.words) <= MAX_WORDS for p in result)
    assert result[1].first == 30 and result[1].text.startswith("More more")


def test_a_long_paragraph_breaks_at_a_sentence_end():
    sentence = "this is one sentence of about ten words in it."
    words = spoken(" ".join(sentence.capitalize() for _ in range(9)))
    result = paragraphs(words)
    assert len(result) >= 2 and all(p.text.endswith(".") and p.text[0].isupper() for p in result)
    assert all(len(p.words) <= MAX_WORDS for p in result)


@dataclass(frozen=True)
class SpokenWord(Word):
    speaker: str = ""


def test_a_speaker_change_starts_a_paragraph():
    words = [
        SpokenWord(w.text, w.start, w.end, speaker="You" if i < 2 else "Them")
        for i, w in enumerate(spoken("Hi there how are you?"))
    ]
    assert [(p.speaker, p.text) for p in paragraphs(words)] == [("You", "Hi there"), ("Them", "How are you?")]


def test_txt_shows_paragraphs_with_their_start_times():
    words = spoken("I regard…") + spoken("this activity.", start=1.8) + spoken("A new thought.", start=65.0)
    transcript = Transcript("s", "2026-11-25T10:00:00+00:00", "file", "tiny.en", words)
    assert render(transcript, "txt") == "0:00  I regard this activity.\n\n1:05  A new thought.\n"

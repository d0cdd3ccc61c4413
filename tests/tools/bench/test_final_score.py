"""Scoring final text on scripted streams: final records applied to confirmed words, their latency, and the words
they changed."""

from dataclasses import asdict

import pytest

from engine.scoring.wer import wer_counts
from engine.session.events import FinalEvent, WordEvent, final_record
from engine.session.words import Word
from tools.bench.final_score import changed_per_100, final_events, score_finals, text_counts

REFERENCE = "has never been surpassed. it was therefore fine."


def _confirmed(texts: str) -> list[WordEvent]:
    return [Word(t, i * 0.3, i * 0.3 + 0.2).confirmed(i * 0.3 + 1.0) for i, t in enumerate(texts.split())]


def _final(first: int, texts: str, count: int, ended: float, clock: float) -> FinalEvent:
    return FinalEvent(first, count, [Word(t, 0.0, 0.1, 0.9) for t in texts.split()], ended, clock)


def test_a_final_that_corrects_a_confirmed_word_lowers_the_final_wer():
    words = _confirmed("has never bean surpassed. it was there for fine.")
    finals = [_final(0, "Has never been surpassed.", 4, ended=2.0, clock=2.6)]
    scored = score_finals(words, finals, REFERENCE)
    record = {"wer": asdict(wer_counts(REFERENCE, " ".join(w.text for w in words))), **scored}
    assert text_counts(record, "confirmed").errors == 3  # bean, there, for
    assert text_counts(record, "final").errors == 2  # "there for" is left
    assert scored["final_latencies"] == [pytest.approx(0.6)]
    assert scored["changed"] == {"edits": 1, "words": 4}  # "bean" -> "been"; case and punctuation are no change


def test_changed_words_count_substitutions_insertions_and_deletions_per_utterance():
    words = _confirmed("has never bean surpassed. it was there for fine.")
    finals = [
        _final(0, "has never been surpassed.", 4, ended=2.0, clock=2.5),
        _final(4, "it was therefore fine. Yes.", 5, ended=4.0, clock=4.25),  # for -> therefore, there gone, yes added
    ]
    scored = score_finals(words, finals, REFERENCE)
    assert scored["changed"] == {"edits": 4, "words": 9}
    assert scored["final_wer"] == {"reference_words": 8, "substitutions": 0, "deletions": 0, "insertions": 1}
    assert scored["final_latencies"] == [pytest.approx(0.5), pytest.approx(0.25)]
    records = [{"changed": scored["changed"]}, {"changed": {"edits": 0, "words": 11}}, {}]
    assert changed_per_100(records) == pytest.approx(20.0)
    assert changed_per_100([{}]) is None  # no final pass: nothing to count


def test_a_final_that_does_not_fit_leaves_the_confirmed_words():
    words = _confirmed("has never bean surpassed.")
    scored = score_finals(words, [_final(1, "never been surpassed.", 3, 2.0, 2.5)], "has never been surpassed")
    assert scored["final_wer"]["substitutions"] == 1 and scored["final_latencies"] == []
    assert scored["changed"] == {"edits": 0, "words": 0}


def test_final_records_read_back_as_events():
    event = _final(3, "it was therefore", 4, ended=4.0, clock=4.25)
    records = [{"type": "word", "text": "x", "emitted": 1.0}, final_record(event)]
    assert final_events(records) == [event]
    before_finals = {"wer": {"reference_words": 4, "substitutions": 1, "deletions": 0, "insertions": 0}}
    assert text_counts(before_finals, "final") == text_counts(before_finals, "confirmed")

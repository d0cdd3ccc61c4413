"""LocalAgreement-2 and buffer trimming on hand-made rounds."""

import logging

import numpy as np
import pytest
from fake_transcriber import FakeTranscriber

from engine.audio.files import SAMPLE_RATE
from engine.session.transcript import sentence_start
from engine.session.words import Word
from engine.stream.agreement import HypothesisBuffer
from engine.stream.processor import KEPT_WORDS, OnlineProcessor
from engine.stream.round import RoundResult, Segment


def words(*spec):
    return [Word(t, s, e) for t, s, e in spec]


def test_word_confirmed_only_when_two_rounds_agree():
    hb = HypothesisBuffer()
    hb.insert(words(("the", 0.0, 0.2), ("cat", 0.3, 0.5)), 0.0)
    assert hb.flush() == []
    hb.insert(words(("the", 0.0, 0.2), ("cat", 0.3, 0.5), ("sat", 0.6, 0.9)), 0.0)
    assert [w.text for w in hb.flush()] == ["the", "cat"]
    assert [w.text for w in hb.tentative()] == ["sat"]


def test_disagreement_stops_confirmation_at_first_difference():
    hb = HypothesisBuffer()
    hb.insert(words(("a", 0.0, 0.1), ("red", 0.2, 0.4), ("box", 0.5, 0.7)), 0.0)
    hb.flush()
    hb.insert(words(("a", 0.0, 0.1), ("bed", 0.2, 0.4), ("box", 0.5, 0.7)), 0.0)
    assert [w.text for w in hb.flush()] == ["a"]


def test_offset_shifts_to_stream_clock_and_repeated_ngram_is_dropped():
    hb = HypothesisBuffer()
    hb.insert(words(("hello", 0.0, 0.4), ("world", 0.5, 0.9)), 10.0)
    hb.flush()
    hb.insert(words(("hello", 0.0, 0.4), ("world", 0.5, 0.9)), 10.0)
    confirmed = hb.flush()
    assert [(w.text, w.start) for w in confirmed] == [("hello", 10.0), ("world", 10.5)]
    # a later round re-transcribes the confirmed tail "world" just before new words: it must not repeat
    hb.insert(words(("world", 0.45, 0.9), ("again", 1.0, 1.3)), 10.0)
    hb.flush()
    hb.insert(words(("world", 0.45, 0.9), ("again", 1.0, 1.3)), 10.0)
    assert [w.text for w in hb.flush()] == ["again"]


class ScriptedTranscriber(FakeTranscriber):
    """Plays back hand-made round results; stands in for the model only in trimming arithmetic."""

    def __init__(self, results):
        self.results = list(results)
        self.prompts = []

    def transcribe(self, audio, prompt, reference):
        self.prompts.append(prompt)
        return self.results.pop(0)


def result(segments):
    return RoundResult(segments, [], 0.0, 0.0, 0.0, 0.0, 0, 0.0, [])


def test_buffer_trimmed_at_confirmed_segment_end_after_15s_and_prompt_is_trimmed_text():
    seg1 = Segment(0.0, 6.0, "first", [], words(("first", 0.5, 5.8)))
    seg2 = Segment(6.0, 12.0, "second", [], words(("second", 6.2, 11.8)))
    seg3 = Segment(12.0, 16.0, "third", [], words(("third", 12.2, 15.9)))
    tr = ScriptedTranscriber([result([seg1, seg2, seg3])] * 3)
    proc = OnlineProcessor(tr, buffer_trimming_s=15.0)
    proc.insert_audio_chunk(np.zeros(16 * SAMPLE_RATE, np.float32))
    proc.process_iter()
    assert proc.buffer_offset == 0.0  # nothing confirmed yet: no trimming
    proc.process_iter()  # second agreeing round confirms all three words
    assert [w.text for w in proc.committed] == ["First", "second", "third"]  # a stream begins with a capital
    # cut at the end of the second-to-last segment (12.0 s), which ends before the last confirmed word
    assert proc.buffer_offset == 12.0
    assert abs(proc.buffer_s - 4.0) < 1e-6
    proc.process_iter()
    assert tr.prompts[-1] == "First second"


def test_a_long_session_keeps_a_bounded_number_of_confirmed_words_and_the_same_prompt():
    consonants = "bcdfgklmnprstvwz"
    texts = [a + b + c + d for a in consonants for b in "aeiou" for c in consonants for d in "aeiou"]
    texts = texts[: 3 * KEPT_WORDS]  # distinct words, none a number
    said = words(*((t, i * 0.05, i * 0.05 + 0.045) for i, t in enumerate(texts)))  # 75 s of words
    tr = ScriptedTranscriber([result([Segment(0.0, 75.0, "many", [], said)])] * 2)
    tr.max_buffer_s = 90.0  # one window holds them all
    proc = OnlineProcessor(tr, buffer_trimming_s=90.0)
    proc.insert_audio_chunk(np.zeros(80 * SAMPLE_RATE, np.float32))
    proc.process_iter()
    assert len(proc.process_iter()) == 3 * KEPT_WORDS  # all confirmed and returned
    assert proc.committed == said[-KEPT_WORDS:]
    prompt = proc.prompt(start=80.0)
    assert prompt == " ".join(texts[-len(prompt.split()) :])
    assert len(prompt) <= proc.prompt_chars < len(prompt) + 1 + len(texts[-len(prompt.split()) - 1])


def test_finish_decodes_the_speech_after_the_confirmed_words_when_the_last_round_stopped_before_it():
    """cold_corpus3 streamed in real time: rounds over "… here.", a pause and "Yeah so that just happened …" kept
    ending after "here.", and the stream ended with those 13 words unsaid."""
    said = result([Segment(0.0, 1.0, "old", [], words(("old", 0.2, 1.0)))])
    after = result([Segment(2.0, 2.5, "new", [], words(("new", 2.0, 2.5)))])  # in the buffer cut at 1.0 s
    tr = ScriptedTranscriber([said, said, after, result([])])
    proc = OnlineProcessor(tr)
    proc.insert_audio_chunk(np.zeros(6 * SAMPLE_RATE, np.float32))
    proc.process_iter()
    assert [w.text for w in proc.process_iter()] == ["Old"]
    assert [(w.text, w.start) for w in proc.finish()] == [("new", 3.0)]


def test_finish_flushes_unconfirmed_tail():
    tr = ScriptedTranscriber([result([Segment(0.0, 1.0, "x", [], words(("only", 0.1, 0.9)))])])
    proc = OnlineProcessor(tr)
    proc.insert_audio_chunk(np.zeros(SAMPLE_RATE, np.float32))
    assert proc.process_iter() == []
    assert [w.text for w in proc.finish()] == ["Only"]


def test_rounds_agree_on_words_that_differ_only_in_punctuation_or_case():
    hb = HypothesisBuffer()
    hb.insert(words(("books,", 0.0, 0.4), ("which", 0.5, 0.8)), 0.0)
    hb.flush()
    hb.insert(words(("Books", 0.0, 0.4), ("which", 0.5, 0.8)), 0.0)
    assert [w.text for w in hb.flush()] == ["Books", "which"]


def test_the_streams_first_word_begins_its_transcript_with_a_capital_and_later_words_keep_their_case():
    def said(*texts):
        timed = [(t, 0.1 + 0.3 * i, 0.3 + 0.3 * i) for i, t in enumerate(texts)]
        return result([Segment(0.0, 2.0, "x", [], words(*timed))])

    spoken = ("printing", "in", "the", "only", "sense")
    tr = ScriptedTranscriber([said(*spoken[:n]) for n in (2, 3, 4, 5)])
    proc = OnlineProcessor(tr)
    confirmed, shown = [], []
    for _ in range(4):
        proc.insert_audio_chunk(np.zeros(SAMPLE_RATE, np.float32))
        confirmed += proc.process_iter()
        shown.append([w.text for w in proc.tentative()])
    assert shown[0] == ["Printing", "in"]  # shown with its capital before it is confirmed
    assert [w.text for w in confirmed] == ["Printing", "in", "the", "only"]  # the rounds after it say it again as
    # "printing": the same word, so it keeps its capital and the words after it keep their case


@pytest.mark.parametrize(
    "text, start",
    [
        ("printing", "Printing"),
        ("however.", "However."),
        ("'tis", "'Tis"),
        ("Printing,", "Printing,"),
        ("iPhone", "iPhone"),
        ("42", "42"),
    ],
)
def test_sentence_start_capitalizes_a_lower_case_word_only(text, start):
    assert sentence_start(text) == start


def test_full_buffer_without_agreement_confirms_oldest_words_instead_of_dropping_audio():
    first = result([Segment(0.0, 30.0, "x", [], words(("alpha", 1.0, 2.0), ("beta", 20.0, 21.0)))])
    second = result([Segment(0.0, 31.0, "y", [], words(("gamma", 1.0, 2.0)))])
    tr = ScriptedTranscriber([first, second])
    proc = OnlineProcessor(tr, buffer_trimming_s=15.0)
    proc.insert_audio_chunk(np.zeros(29 * SAMPLE_RATE, np.float32))
    assert proc.process_iter() == []
    proc.insert_audio_chunk(np.zeros(2 * SAMPLE_RATE, np.float32))  # 31 s: over the encoder's 30 s
    forced = proc.process_iter()
    assert [w.text for w in forced] == ["Alpha"]  # ends before 31 - 15 = 16 s: confirmed, not lost
    assert proc.buffer_offset == 2.0


def test_two_of_the_last_three_rounds_confirm_despite_one_odd_round():
    hb = HypothesisBuffer()
    hb.insert(words(("a", 0.0, 0.1), ("red", 0.2, 0.4), ("box", 0.5, 0.7)), 0.0)
    hb.flush()
    hb.insert(words(("a", 0.0, 0.1), ("bed", 0.2, 0.4), ("box", 0.5, 0.7)), 0.0)
    assert [w.text for w in hb.flush()] == ["a"]
    hb.insert(words(("a", 0.0, 0.1), ("red", 0.2, 0.4), ("box", 0.5, 0.7), ("now", 0.8, 0.9)), 0.0)
    assert [w.text for w in hb.flush()] == ["red", "box"]  # agrees with the round before the odd one


def test_forced_confirmation_stops_at_a_collapsed_word():
    hb = HypothesisBuffer()
    spread = [Word("as", 39.0, 39.3, 0.9), Word("art", 42.04, 48.48, 0.0), Word("of", 48.48, 57.0, 0.9)]
    hb.insert(spread, 0.0)
    hb.flush()
    assert [w.text for w in hb.confirm_until(60.0, 38.0)] == ["as"]
    late = HypothesisBuffer()
    late.insert([Word("of", 76.5, 77.7, 0.58), Word("making", 77.7, 77.9, 0.94)], 0.0)
    late.flush()
    assert late.confirm_until(90.0, 56.66) == []  # 20 s after the buffer's start: skipped audio before it


def test_a_full_window_without_words_is_dropped_and_reported_but_unconfirmed_words_are_decoded_again():
    late = result([Segment(0.0, 25.0, "x", [], words(("late", 20.0, 29.0)))])  # 9 s long: not forced
    tr = ScriptedTranscriber([late, result([]), result([])])
    proc = OnlineProcessor(tr, buffer_trimming_s=15.0)
    proc.insert_audio_chunk(np.zeros(20 * SAMPLE_RATE, np.float32))
    proc.process_iter()
    proc.insert_audio_chunk(np.zeros(12 * SAMPLE_RATE, np.float32))  # 32 s
    proc.process_iter()  # hears nothing this time
    assert proc.dropped == [] and proc.buffer_offset == 0.0  # the same window was decoded again
    assert proc.process_iter() == []  # the round before heard no words in that window
    assert [(d.start, d.end) for d in proc.dropped] == [(0.0, 17.0)] and proc.buffer_offset == 17.0


def test_the_max_delay_rule_waits_for_a_word_shown_for_the_first_time():
    """A word whose end is long past but which no earlier round showed has not been tentative for the delay
    (a stream's first rounds often hear nothing): the rule confirms it only once a round that ended by the
    due time had a word at its place."""
    hb = HypothesisBuffer()
    hb.insert([], 0.0)
    hb.flush(round_end=1.0)
    hb.insert(words(("many", 0.1, 0.3), ("people", 0.35, 0.7)), 0.0)
    hb.flush(agree=False, round_end=3.0)
    assert hb.confirm_until(1.0, 0.0, shown_by=1.0) == []  # first shown by the round that ended at 3.0
    assert [w.text for w in hb.confirm_until(1.0, 0.0)] == ["many", "people"]  # the window rule does not wait
    again = HypothesisBuffer()
    again.insert(words(("many", 0.1, 0.3)), 0.0)
    again.flush(agree=False, round_end=1.0)
    again.insert(words(("money", 0.1, 0.32), ("people", 0.35, 0.7)), 0.0)
    again.flush(agree=False, round_end=3.0)
    assert [w.text for w in again.confirm_until(1.0, 0.0, shown_by=1.0)] == ["money"]  # its place was shown


def agree_twice(hb: HypothesisBuffer, *spec) -> list[Word]:
    """Insert the same round twice; return what the second confirmed."""
    for _ in range(2):
        hb.insert(words(*spec), 0.0)
        confirmed = hb.flush()
    return confirmed


@pytest.mark.parametrize(
    "confirmed_first, then, new",
    [
        # The long-form file in 0.31 s rounds: "15th" was confirmed ending at 31.20 s, the next rounds heard "century"
        # at 31.04-31.40 s; by its start it looked already confirmed, and the word was lost.
        (
            (("the", 30.38, 30.6), ("15th", 30.6, 31.2)),
            (("the", 30.38, 30.6), ("15th", 30.62, 31.04), ("century", 31.04, 31.4), ("may", 31.46, 32.1)),
            ["century", "may"],
        ),
        # A FLEURS clip with the hush word: "in" was confirmed at 7.82-8.16 s, the next rounds timed "modern" at
        # 8.14-8.14, inside it; by its middle it looked already said, and the word was lost.
        (
            (("built", 7.6, 7.82), ("in", 7.82, 8.16)),
            (("built", 7.6, 7.82), ("in", 7.82, 8.16), ("modern", 8.14, 8.14), ("times.", 8.14, 8.6)),
            ["modern", "times."],
        ),
        # Without the round's own copy of the last confirmed word before it, a word timed inside the confirmed words
        # is that word said again, however the round spells it.
        (
            (("the", 30.38, 30.6), ("15th", 30.6, 31.2)),
            (("the", 30.38, 30.6), ("fifteenth", 30.6, 31.1), ("century", 31.1, 31.5)),
            ["century"],
        ),
        # LJ001-0009 cut at 4.48 s with silence before the hush word: "maybe" was confirmed at 2.66-2.78 s, the next
        # rounds said "may be" at 2.06-2.64 and 2.64-2.98; by its middle "be" looked new, and "maybe be" came out.
        (
            (("purpose,", 1.52, 2.04), ("maybe", 2.66, 2.78)),
            (("purpose", 1.5, 2.06), ("may", 2.06, 2.64), ("be", 2.64, 2.98), ("considered", 2.98, 3.24)),
            ["considered"],
        ),
        # The long-form file, the buffer cut before the confirmed "movable type the" (139.9-141.1 s): a round said only
        # those words again, timed at the end of its audio. By time they were new, and once confirmed, the speech
        # between ("the aforesaid Gutenberg Bible is printed in letters which are an exact imitation of") was lost.
        (
            (("movable", 139.9, 140.34), ("type", 140.34, 140.86), ("the", 140.86, 141.1)),
            (("movable", 146.46, 146.9), ("type", 146.9, 147.1), ("the", 147.1, 147.3)),
            [],
        ),
        # The round after it said them again in place, then the words they were waiting for.
        (
            (("movable", 139.9, 140.34), ("type", 140.34, 140.86), ("the", 140.86, 141.1)),
            (("movable", 139.9, 140.3), ("type", 140.3, 140.9), ("the", 140.9, 141.3), ("aforesaid", 141.3, 141.9)),
            ["aforesaid"],
        ),
        # The same file: the confirmed "an" timed to the end of the audio, where the next word was squeezed
        # (224.48-225.2 s). The next round said the confirmed words again and "exceedingly" at 224.82-225.3, inside
        # "an": it is new, because it comes after the round's copy of every confirmed word.
        (
            (("and", 223.66, 224.22), ("used", 224.22, 224.48), ("an", 224.48, 225.2)),
            (
                ("and", 223.66, 224.24),
                ("used", 224.24, 224.5),
                ("an", 224.5, 224.82),
                ("exceedingly", 224.82, 225.3),
                ("beautiful", 225.3, 225.88),
            ),
            ["exceedingly", "beautiful"],
        ),
        # The long-form file in `baseline`'s 1.2 s rounds: "the" was confirmed at 47.78 s, at the end of a round's
        # audio, though it was said at 46.2. The next round said the confirmed words again and then "aforementioned
        # Gutenberg Bible" at 46.32-48.14 s; by time they were already said, and two words were lost. Its first word,
        # cut by the buffer's start, came out otherwise ("respectively," then "satisfactorily").
        (
            (
                ("respectively,", 43.64, 44.6),
                ("with", 44.6, 44.9),
                ("movable", 44.9, 45.36),
                ("type,", 45.36, 45.84),
                ("the", 47.78, 47.8),
            ),
            (
                ("satisfactorily", 43.64, 44.58),
                ("with", 44.58, 44.9),
                ("movable", 44.9, 45.36),
                ("type", 45.36, 45.84),
                ("the", 46.2, 46.32),
                ("aforementioned", 46.32, 46.74),
                ("Gutenberg", 46.74, 47.44),
                ("Bible,", 47.44, 48.14),
            ),
            ["aforementioned", "Gutenberg", "Bible,"],
        ),
        # A confirmed word said again later in the round: the round's first copy is the confirmed one.
        (
            (("the", 1.0, 1.2),),
            (("the", 1.0, 1.2), ("cat", 1.3, 1.6), ("the", 1.7, 1.8), ("dog", 1.9, 2.2)),
            ["cat", "the", "dog"],
        ),
        # The long-form file with a 12 s buffer: rounds stuck on "the Chinese took a", the "a" stretched to the end of
        # their audio, confirmed it at 13.78-15.18 s. The round that said the speech after it paired that "a" with the
        # one in "by a similar", and "impressions from wood blocks … by" counted as already said. Words said among the
        # confirmed ones are no copy of them: the time rule decides, and keeps what was said after the stretched "a".
        (
            (("Chinese", 12.98, 13.42), ("took", 13.42, 13.72), ("a", 13.78, 15.18)),
            (
                ("Chinese", 12.98, 13.42),
                ("took", 13.42, 13.72),
                ("impressions", 13.72, 14.28),
                ("from", 14.28, 14.84),
                ("wood", 14.84, 15.16),
                ("blocks", 15.16, 15.68),
                ("engraved", 15.68, 16.46),
                ("in", 16.46, 16.72),
                ("relief", 16.72, 17.14),
                ("by", 19.84, 20.6),
                ("a", 20.6, 20.86),
                ("similar", 20.86, 21.02),
            ),
            ["blocks", "engraved", "in", "relief", "by", "a", "similar"],
        ),
    ],
    ids=[
        "confirmed-word-timed-into-the-next",
        "word-squeezed-into-the-confirmed-end",
        "confirmed-word-respelled",
        "confirmed-word-said-in-two",
        "confirmed-words-said-again-late",
        "confirmed-words-said-again-in-place",
        "word-after-the-confirmed-words-timed-inside-them",
        "confirmed-word-timed-late",
        "confirmed-word-said-again-later",
        "words-said-among-the-confirmed-ones",
    ],
)
def test_which_words_of_a_later_round_are_new(confirmed_first, then, new):
    hb = HypothesisBuffer()
    agree_twice(hb, *confirmed_first)
    assert hb.last_committed_time == confirmed_first[-1][2]
    assert [w.text for w in agree_twice(hb, *then)] == new


def debug_lines(caplog, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger and r.levelno == logging.DEBUG]


def test_agreement_logs_the_words_it_confirms_and_the_repeat_it_drops(caplog):
    caplog.set_level(logging.DEBUG, logger="engine.stream.agreement")
    hb = HypothesisBuffer()
    for _ in range(2):
        hb.insert(words(("hello", 0.0, 0.4), ("world", 0.5, 0.9)), 10.0)
        hb.flush(round_end=11.0)
    hb.insert(words(("world", 0.95, 1.0), ("again", 1.0, 1.3)), 10.0)  # "world" said again after itself
    assert [w.text for w in hb.new] == ["again"]
    assert debug_lines(caplog, "engine.stream.agreement") == [
        "agreement: confirmed 'hello' 10.00-10.40, 'world' 10.50-10.90 (round ending 11.00 s: 2 agreed, 0 aligned, "
        "all heard)",
        "agreement: dropped 'world' 10.95-11.00, a repeat of the last confirmed words",
    ]


def test_a_word_left_unconfirmed_without_agreement_is_logged_with_the_reason(caplog):
    caplog.set_level(logging.DEBUG, logger="engine.stream.agreement")
    hb = HypothesisBuffer()
    hb.insert([Word("as", 39.0, 39.3, 0.9), Word("art", 42.04, 48.48, 0.0), Word("of", 48.48, 57.0, 0.9)], 0.0)
    hb.flush()
    hb.confirm_until(60.0, 38.0)
    late = HypothesisBuffer()
    late.insert([Word("of", 76.5, 77.7, 0.58)], 0.0)
    late.flush()
    late.confirm_until(90.0, 56.66)
    assert debug_lines(caplog, "engine.stream.agreement") == [
        "without agreement: not confirmed: 'art' 42.04-48.48, stretched 6.4 s",
        "without agreement: not confirmed: 'of' 76.50-77.70, starts 19.8 s after the word before",
    ]


def test_the_processor_logs_its_rounds_the_stream_end_and_where_it_cuts_the_buffer(caplog):
    caplog.set_level(logging.DEBUG, logger="engine.stream.processor")
    said = result([Segment(0.0, 1.0, "old", [], words(("old", 0.2, 1.0)))])
    after = result([Segment(2.0, 2.5, "new", [], words(("new", 2.0, 2.5)))])
    proc = OnlineProcessor(ScriptedTranscriber([said, said, after, result([])]))
    proc.insert_audio_chunk(np.zeros(6 * SAMPLE_RATE, np.float32))
    proc.process_iter()
    proc.process_iter()
    proc.finish()
    assert debug_lines(caplog, "engine.stream.processor") == [
        "round 0.00-0.00 s: 'Old' 0.20-1.00",
        "round 0.00-0.00 s: 'Old' 0.20-1.00",
        "stream end: decoding the 5.00 s after the last confirmed word again",
        "buffer cut at 1.00 s (it started at 0.00 s)",
        "round 1.00-1.00 s: 'new' 3.00-3.50",
        "stream end: confirmed 'new' 3.00-3.50",
        "stream end: decoding the 2.50 s after the last confirmed word again",
        "buffer cut at 3.50 s (it started at 1.00 s)",
        "round 3.50-3.50 s: no words",  # (these rounds' audio_s is 0)
    ]


def test_with_logging_off_the_rules_format_nothing(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="engine")

    def formatted(self):
        raise AssertionError("a word list was formatted with DEBUG off")

    monkeypatch.setattr("engine.runtime.logs.WordList.__str__", formatted)
    tr = ScriptedTranscriber([result([Segment(0.0, 1.0, "x", [], words(("only", 0.1, 0.9)))])] * 2)
    proc = OnlineProcessor(tr)
    proc.insert_audio_chunk(np.zeros(SAMPLE_RATE, np.float32))
    proc.process_iter()
    assert [w.text for w in proc.process_iter() + proc.finish()] == ["Only"]
    assert caplog.records == []

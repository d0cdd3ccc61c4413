"""Scoring on hand-made cases with known answers: alignment, WER after Whisper's normalisation, per-word latency."""

import random

import jiwer
import pytest

from engine.scoring.align import Pair, align
from engine.scoring.latency import summarize, word_latencies
from engine.scoring.wer import normalize_text, normalize_words, wer_counts
from engine.session.events import WordEvent
from engine.session.words import Word


def test_alignment_pairs_hits_substitutions_and_gaps():
    assert align("a b c d".split(), "a x c d e".split()) == [
        Pair(0, 0, "hit"),
        Pair(1, 1, "sub"),
        Pair(2, 2, "hit"),
        Pair(3, 3, "hit"),
        Pair(None, 4, "ins"),
    ]
    assert align("a b c".split(), "a c".split()) == [Pair(0, 0, "hit"), Pair(1, None, "del"), Pair(2, 1, "hit")]
    # equally cheap: two substitutions, or a deletion and an insertion that pair "mat" with "mat"
    assert align("the mat".split(), "mat today".split()) == [
        Pair(0, None, "del"),
        Pair(1, 0, "hit"),
        Pair(None, 1, "ins"),
    ]
    assert align([], ["a"]) == [Pair(None, 0, "ins")]
    assert align(["a"], []) == [Pair(0, None, "del")]
    assert align([], []) == []


def test_alignment_cost_is_the_minimal_edit_distance_that_jiwer_finds():
    rng = random.Random(7)
    for _ in range(40):
        ref = [rng.choice("abcde") for _ in range(rng.randint(1, 12))]
        hyp = [rng.choice("abcde") for _ in range(rng.randint(1, 12))]
        out = jiwer.process_words(" ".join(ref), " ".join(hyp))
        assert sum(p.op != "hit" for p in align(ref, hyp)) == out.substitutions + out.deletions + out.insertions
        pairs = align(ref, hyp)
        assert [p.ref for p in pairs if p.ref is not None] == list(range(len(ref)))
        assert [p.hyp for p in pairs if p.hyp is not None] == list(range(len(hyp)))


# --- normalisation and WER ----------------------------------------------------------------------------


def test_normalisation_follows_whisper_rules():
    assert normalize_text("Mr. Smith's colour, forty-two!") == "mister smith is color 42"
    assert normalize_text("Uh, I'm [noise] here.") == "i am here"
    assert normalize_words(["I'm", "uh", "Home."]) == [("i", 0), ("am", 0), ("home", 2)]
    assert normalize_text("natural therefore...") == "natural therefore"  # Whisper's rules keep a "." here


def test_wer_is_measured_on_normalised_text():
    clean = wer_counts(
        "Mr. Brown paid forty-two dollars for the colour print.", "mister brown paid 42 dollars for the color print"
    )
    assert clean.errors == 0 and clean.wer == 0.0
    counts = wer_counts("the cat sat on the mat", "The cat sat on mat.")
    assert (counts.reference_words, counts.substitutions, counts.deletions, counts.insertions) == (6, 0, 1, 0)
    counts = wer_counts("a cat sat", "A black cat sat, sir!")
    assert (counts.reference_words, counts.substitutions, counts.deletions, counts.insertions) == (3, 0, 0, 2)
    assert counts.wer == pytest.approx(2 / 3)
    assert wer_counts("go forward", "").wer == 1.0
    assert wer_counts("uh", "hello").wer is None  # nothing to score against after normalisation
    total = wer_counts("a b", "a b") + wer_counts("c d", "c x")
    assert total.wer == pytest.approx(1 / 4)


# --- per-word latency ------------------------------------------------------------------------------


def test_word_latency_is_confirmation_time_minus_spoken_end_over_aligned_words():
    reference = [Word("I'm", 0.0, 0.4), Word("going", 0.4, 0.8), Word("home", 0.8, 1.2), Word("now", 1.2, 1.5)]
    stream = [
        WordEvent("I'm", 0, 0, emitted=2.0),
        WordEvent("going", 0, 0, emitted=2.0),
        WordEvent("hole,", 0, 0, emitted=3.0),
        WordEvent("uh", 0, 0, emitted=3.0),
    ]
    lat = word_latencies(reference, stream)
    assert [(x.text, x.hit) for x in lat] == [("I'm", True), ("going", True), ("home", False)]  # "now" was missed
    assert [x.latency for x in lat] == pytest.approx([1.6, 1.2, 1.8])
    stats = summarize([x.latency for x in lat])
    assert stats.words == 3
    assert stats.mean == pytest.approx(4.6 / 3)
    assert stats.median == pytest.approx(1.6)
    assert stats.p90 == pytest.approx(1.76)  # linear interpolation between 1.6 and 1.8
    assert summarize([]).mean is None


def test_word_latency_skips_inserted_words_and_takes_the_first_emission():
    reference = [Word("go", 0.0, 0.3), Word("forward", 0.3, 0.9)]
    stream = [
        WordEvent("well", 0, 0, emitted=0.5),
        WordEvent("go", 0, 0, emitted=1.0),
        WordEvent("forward", 0, 0, emitted=1.5),
    ]
    assert [x.latency for x in word_latencies(reference, stream)] == pytest.approx([0.7, 0.6])

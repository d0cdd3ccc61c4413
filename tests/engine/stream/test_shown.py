"""First shown: each confirmed word carries the time it first appeared in the tentative tail, which comes before
its confirmation; tentative words that a later round changes are counted as corrections."""

import json

from testdata import DATA

from engine.audio.sources import FileSource
from engine.session.events import word_record
from engine.session.words import Word
from engine.stream.config import StreamConfig, build_processor
from engine.stream.runner import run_stream
from engine.stream.shown import ShownTracker


def test_a_word_keeps_the_time_it_first_appeared_and_changed_words_count_as_corrections():
    tracker = ShownTracker()
    assert tracker.update([], [Word("Printing,", 0.0, 0.4), Word("than", 0.4, 0.9)], now=1.0) == []
    # round 2: "Printing" confirmed (its comma and times moved a little); "than" became "then"; "for" is new
    shown = tracker.update([Word("printing", 0.02, 0.41)], [Word("then", 0.42, 0.95), Word("for", 0.98, 1.2)], now=2.0)
    assert shown == [1.0] and tracker.corrections == 1
    # round 3: both confirmed; "then" first appeared in round 2, "for" too
    assert tracker.update([Word("then", 0.4, 0.97), Word("for", 0.99, 1.24)], [], now=3.1) == [2.0, 2.0]
    assert tracker.corrections == 1
    # a word confirmed the moment it appears was shown then
    assert tracker.update([Word("our", 1.24, 1.5)], [], now=4.0) == [4.0]


def test_every_streamed_word_was_shown_before_or_when_it_was_confirmed(tiny_model, tmp_path):
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", pipeline=False))
    updates = []
    done = run_stream(
        processor, FileSource(str(DATA / "LJ001-0009.wav")), pace="fast", min_chunk_s=1.0, on_update=updates.append
    )
    processor.close()
    events = [e for update in updates for e in update.confirmed]
    assert len(events) >= 15
    records = [json.loads(json.dumps(word_record(e))) for e in events]
    assert all(set(r) == {"type", "text", "start", "end", "emitted", "shown", "probability"} for r in records)
    assert all(r["shown"] <= r["emitted"] for r in records)
    # tiny.en on this clip: each of the 12 words the tentative tails showed was confirmed a round later (one of them,
    # "then", the word the guard stopped the first round before), none was taken back
    tentative_shown = sum(len(update.tentative) for update in updates)
    assert sum(r["shown"] < r["emitted"] for r in records) == tentative_shown == 12
    assert done.corrections == 0


def _stream(tiny_model, peek_tokens: int):
    """LJ001-0009 streamed with flow's settings at the unaware pace: (text, confirmed, first shown) of every word,
    and the count of corrections."""
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", pipeline=False, peek_tokens=peek_tokens))
    updates = []
    done = run_stream(processor, FileSource(str(DATA / "LJ001-0009.wav")), pace="unaware", on_update=updates.append)
    processor.close()
    return [(e.text, e.emitted, e.shown) for update in updates for e in update.confirmed], done.corrections


def test_the_word_the_guard_stopped_before_is_shown_a_round_sooner_and_never_confirmed_from_there(tiny_model):
    (peeked, corrections), (plain, plain_corrections) = _stream(tiny_model, 3), _stream(tiny_model, 0)
    assert [(text, emitted) for text, emitted, _ in peeked] == [(text, emitted) for text, emitted, _ in plain]
    sooner = [(a[0], round(b[2] - a[2], 2)) for a, b in zip(peeked, plain) if a[2] != b[2]]
    assert sooner == [("for", 0.3), ("our", 0.6), ("as", 0.3), ("the", 0.3), ("of", 0.3)]  # rounds are 0.3 s apart
    assert corrections == plain_corrections

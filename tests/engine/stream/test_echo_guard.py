"""The echo guard drops your words that repeat theirs at about the same time, and renumbers your final records."""

from engine.session.events import FinalEvent, StreamUpdate
from engine.session.words import Word
from engine.stream.echo_guard import EchoGuard


def _update(words, finals=(), speaker="you"):
    confirmed = [Word(t, s, s + 0.3, speaker=speaker).confirmed(s + 1.0) for t, s in words]
    return StreamUpdate(confirmed, [], 0.0, 0.0, 0.0, finals=list(finals), speaker=speaker)


def test_your_word_repeating_theirs_at_the_same_time_is_dropped_another_time_kept():
    guard = EchoGuard()
    guard.hear(_update([("Exhibition,", 2.0), ("modern", 3.0)], speaker="them"))
    kept = guard.filter(_update([("exhibitions", 2.1), ("modern", 9.0), ("yeah", 3.0)]))
    assert [w.text for w in kept.confirmed] == ["modern", "yeah"]
    assert guard.dropped == 1


def test_your_final_records_count_only_the_words_kept():
    guard = EchoGuard()
    guard.hear(_update([("printing", 1.0)], speaker="them"))
    guard.filter(_update([("so", 0.2), ("printing", 1.1), ("this", 1.6)]))
    final = FinalEvent(0, 3, [Word("So", 0.2, 0.4), Word("printing", 1.1, 1.4), Word("this.", 1.6, 1.9)], 2.0)
    [renumbered] = guard.filter(_update([], finals=[final])).finals
    assert (renumbered.first, renumbered.count) == (0, 2)
    assert [w.text for w in renumbered.words] == ["So", "this."]

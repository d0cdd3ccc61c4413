"""What a stream reports: confirmed words, live updates and the final summary (JSONL-ready)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from engine.session.words import Word, WordEvent


@dataclass(frozen=True)
class FinalEvent:
    """An utterance decoded again once it ended (engine.stream.finalize): the stream's confirmed words number
    ``first`` to ``first + count - 1`` (counting from 0, in the order they were confirmed) are replaced by
    ``words``. ``ended`` is the stream clock when the utterance ended, ``clock`` when the record was reported."""

    first: int
    count: int
    words: list[Word]
    ended: float
    clock: float = 0.0
    speaker: str | None = None  # a call's side (engine.stream.call); its stream counts its own words
    type: str = "final"


@dataclass(frozen=True)
class RoundEvent:
    """One round's audio: the buffer it decoded (stream seconds) and the stream clock when it was reported.

    ``buffer_end`` is all audio taken in so far; replaying a run feeds exactly up to it (engine.stream.replay).
    """

    buffer_start: float
    buffer_end: float
    clock: float
    speaker: str | None = None  # a call's side (engine.stream.call)
    type: str = "round"


@dataclass(frozen=True)
class DroppedEvent:
    """Audio cut from the buffer without confirmed words for it (it will not be transcribed)."""

    start: float
    end: float
    reason: str
    type: str = "dropped"


@dataclass(frozen=True)
class StreamUpdate:
    """After each round: the newly confirmed words and the current unconfirmed tail."""

    confirmed: list[WordEvent]
    tentative: list[Word]
    clock: float
    round_s: float
    buffer_s: float
    level: float = 0.0
    round: RoundEvent | None = None  # None for the final flush, and for final texts reported between rounds
    dropped: list[DroppedEvent] = field(default_factory=list)
    finals: list[FinalEvent] = field(default_factory=list)  # utterances finalized since the last update
    speaker: str | None = None  # a call's side (engine.stream.call): its words, round and finals carry it too


@dataclass(frozen=True)
class DoneEvent:
    """Totals for the whole stream."""

    audio_s: float
    wall_s: float
    rounds: int
    encode_s: float
    decode_s: float
    align_s: float
    encoder_gflops: float
    avg_beam: float
    reduced_beam_fraction: float
    cpu_s: float
    forced: int = 0  # words confirmed without two rounds agreeing (the buffer had to move on)
    padded_retries: int = 0  # unpadded rounds that ran away and were redone padded to 30 s
    early_retries: int = 0  # unpadded rounds that stopped before speech they did not say, decoded again on to it
    guard_stops: int = 0  # rounds the guard ended at the end of their audio or at a loop (loop stop)
    budget_stops: int = 0  # rounds whose final decoding stopped at its token budget
    skipped_rounds: int = 0  # rounds not run over silence (voice-activity detector)
    late: int = 0  # words confirmed by the max-delay rule, without agreement
    dropped_s: float = 0.0  # audio cut without being transcribed (the stream's dropped events, in seconds)
    corrections: int = 0  # tentative words shown and later changed or taken back
    finalized: int = 0  # utterances decoded again once they ended (engine.stream.finalize)
    notices: list[str] = field(default_factory=list)
    error: str | None = None  # why the stream ended early (an unplugged device); None for a clean end
    type: str = "done"


def _rounded(d: dict) -> dict:
    return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in d.items()}


def _labelled(record: dict, speaker: str | None) -> dict:
    """The record with a call's "speaker" field; a one-source stream's records have none."""
    return record if speaker is None else {**record, "speaker": speaker}


def word_record(event: WordEvent) -> dict:
    record = {
        "type": "word",
        "text": event.text,
        "start": round(event.start, 3),
        "end": round(event.end, 3),
        "emitted": round(event.emitted, 3),
        "shown": round(event.emitted if event.shown is None else event.shown, 3),
        "probability": round(event.probability, 3),
    }
    return _labelled(record, event.speaker)


def round_record(event: RoundEvent, update: StreamUpdate | None = None) -> dict:
    """The round's boundaries (to the sample: 5 decimals); with update, also its confirmed and tentative text."""
    record = {
        "type": "round",
        "buffer_start": round(event.buffer_start, 5),
        "buffer_end": round(event.buffer_end, 5),
        "clock": round(event.clock, 5),
    }
    if update is not None:
        record["confirmed"] = " ".join(w.text for w in update.confirmed)
        record["tentative"] = [
            [w.text, round(w.start, 2), round(w.end, 2), round(w.probability, 2)] for w in update.tentative
        ]
    return _labelled(record, event.speaker)


def final_record(event: FinalEvent) -> dict:
    """An utterance's final text: which confirmed words it replaces, and its words."""
    words = [
        {"text": w.text, "start": round(w.start, 3), "end": round(w.end, 3), "probability": round(w.probability, 3)}
        for w in event.words
    ]
    record = {
        "type": "final",
        "first": event.first,
        "count": event.count,
        "ended": round(event.ended, 3),
        "clock": round(event.clock, 3),
        "words": words,
    }
    return _labelled(record, event.speaker)


def word_from_record(record: dict, speaker: str | None = None) -> Word:
    """The word in a word record, or in a final record's list of words (speaker: the final record's)."""
    return Word(
        str(record["text"]),
        float(record["start"]),
        float(record["end"]),
        float(record.get("probability", 1.0)),
        speaker or record.get("speaker"),
    )


def final_from_record(record: dict) -> FinalEvent:
    """The final text a final record holds (final_record's, or a journal's line without its clocks)."""
    speaker = record.get("speaker")
    words = [word_from_record(w, speaker) for w in record["words"]]
    return FinalEvent(
        int(record["first"]), int(record["count"]), words, record.get("ended", 0.0), record.get("clock", 0.0), speaker
    )


def dropped_record(event: DroppedEvent) -> dict:
    return {"type": "dropped", "start": round(event.start, 3), "end": round(event.end, 3), "reason": event.reason}


def done_record(event: DoneEvent) -> dict:
    d = _rounded(asdict(event))
    d.pop("type")
    if d.get("error") is None:
        d.pop("error", None)
    return {"type": "done", **d}

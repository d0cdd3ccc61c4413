"""What a stream reports: confirmed words, live updates and the final summary (JSONL-ready)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import IO

from engine.session.words import Word


@dataclass(frozen=True)
class WordEvent:
    """A confirmed word; ``emitted`` is the stream-clock time at which it was confirmed."""

    text: str
    start: float
    end: float
    emitted: float
    probability: float = 1.0
    type: str = "word"


@dataclass(frozen=True)
class StreamUpdate:
    """After each round: the newly confirmed words and the current unconfirmed tail."""

    confirmed: list[WordEvent]
    tentative: list[Word]
    clock: float
    round_s: float
    buffer_s: float
    level: float = 0.0


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
    notices: list[str] = field(default_factory=list)
    error: str | None = None  # why the stream ended early (an unplugged device); None for a clean end
    type: str = "done"


def _rounded(d: dict) -> dict:
    return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in d.items()}


def word_record(event: WordEvent) -> dict:
    return {"type": "word", "text": event.text, "start": round(event.start, 3), "end": round(event.end, 3),
            "emitted": round(event.emitted, 3), "probability": round(event.probability, 3)}


def done_record(event: DoneEvent) -> dict:
    d = _rounded(asdict(event))
    d.pop("type")
    if d.get("error") is None:
        d.pop("error", None)
    return {"type": "done", **d}


class JsonlWriter:
    """Writes one JSON object per line, flushed as it goes so nothing is lost on a crash."""

    def __init__(self, stream: IO[str]):
        self.stream = stream

    def write(self, record: dict) -> None:
        self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.stream.flush()

"""Scoring one stream against its reference: WER of the confirmed text and per-word latencies, confirmed and
first shown (in the tentative tail)."""

from __future__ import annotations

from dataclasses import asdict, replace

from engine.scoring.latency import word_latencies
from engine.scoring.wer import wer_counts
from engine.session.events import WordEvent
from tools.bench.reference import TimedReference


def word_events(records: list[dict]) -> list[WordEvent]:
    """The confirmed words among stream-format JSON records (``{"type": "word", ...}``)."""
    events = []
    for r in records:
        if r.get("type") == "word":
            events.append(
                WordEvent(
                    str(r["text"]),
                    float(r.get("start", 0.0)),
                    float(r.get("end", 0.0)),
                    float(r.get("probability", 1.0)),
                    emitted=float(r["emitted"]),
                    shown=float(r["shown"]) if "shown" in r else None,
                )
            )
    return events


def score_stream(words: list[WordEvent], reference_text: str, timed: TimedReference) -> dict:
    """WER counts, per-word latencies ([spoken end, latency, hit] each) to confirmation and to first showing,
    and the timing's source."""
    counts = wer_counts(reference_text, " ".join(w.text for w in words))
    first_shown = [replace(w, emitted=w.emitted if w.shown is None else w.shown) for w in words]
    return {
        "wer": asdict(counts),
        "latencies": _rows(word_latencies(timed.words, words)),
        "shown_latencies": _rows(word_latencies(timed.words, first_shown)),
        "timing_source": timed.source,
    }


def _rows(latencies) -> list[list]:
    return [[round(x.spoken_end, 3), round(x.latency, 3), x.hit] for x in latencies]

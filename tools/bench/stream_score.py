"""Scoring one stream against its reference: WER of the confirmed text and per-word latencies."""
from __future__ import annotations

from dataclasses import asdict

from engine.session.events import WordEvent
from engine.scoring.latency import word_latencies
from engine.scoring.wer import wer_counts
from tools.bench.reference import TimedReference


def word_events(records: list[dict]) -> list[WordEvent]:
    """The confirmed words among stream-format JSON records (``{"type": "word", ...}``)."""
    events = []
    for r in records:
        if r.get("type") == "word":
            events.append(WordEvent(str(r["text"]), float(r.get("start", 0.0)), float(r.get("end", 0.0)),
                                    float(r["emitted"]), float(r.get("probability", 1.0))))
    return events


def score_stream(words: list[WordEvent], reference_text: str, timed: TimedReference) -> dict:
    """WER counts, per-word latencies ([spoken end, latency, hit] each) and the timing's source."""
    counts = wer_counts(reference_text, " ".join(w.text for w in words))
    latencies = word_latencies(timed.words, words)
    return {
        "wer": asdict(counts),
        "latencies": [[round(x.spoken_end, 3), round(x.latency, 3), x.hit] for x in latencies],
        "timing_source": timed.source,
    }

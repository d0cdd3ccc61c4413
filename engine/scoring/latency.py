"""Per-word latency, the paper's way: when a spoken word's aligned stream word was confirmed, minus the
moment the word had been spoken (its end time in the reference timing)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.scoring.align import align
from engine.scoring.wer import normalize_words
from engine.session.words import Word, WordEvent


@dataclass(frozen=True)
class WordLatency:
    """A reference word, its end in the audio, and when the stream confirmed the word aligned to it."""

    text: str
    spoken_end: float
    emitted: float
    hit: bool

    @property
    def latency(self) -> float:
        return self.emitted - self.spoken_end


def word_latencies(reference: list[Word], stream: list[WordEvent]) -> list[WordLatency]:
    """Latency of every reference word that the stream produced a word for.

    Both sides are normalized word by word, then aligned by minimal edit distance; a reference word
    counts when one of its tokens is paired (a hit or a substitution) with a stream token, at the
    earliest emission among its paired tokens. Deleted reference words have no latency.
    """
    ref_tokens = normalize_words([w.text for w in reference])
    hyp_tokens = normalize_words([w.text for w in stream])
    emitted: dict[int, float] = {}
    all_hits: dict[int, bool] = {}
    for pair in align([t for t, _ in ref_tokens], [t for t, _ in hyp_tokens]):
        if pair.ref is None:
            continue
        r = ref_tokens[pair.ref][1]
        if pair.hyp is None:
            all_hits[r] = False
            continue
        e = stream[hyp_tokens[pair.hyp][1]].emitted
        emitted[r] = min(e, emitted.get(r, e))
        all_hits[r] = all_hits.get(r, True) and pair.op == "hit"
    return [WordLatency(reference[r].text, reference[r].end, e, all_hits[r]) for r, e in sorted(emitted.items())]


@dataclass(frozen=True)
class LatencyStats:
    """Mean, median, 90th and 99th percentile of per-word latencies in seconds (None with no words)."""

    words: int
    mean: float | None
    median: float | None
    p90: float | None
    p99: float | None = None


def summarize(latencies: list[float]) -> LatencyStats:
    if not latencies:
        return LatencyStats(0, None, None, None)
    values = np.asarray(latencies, dtype=np.float64)
    return LatencyStats(
        len(values),
        float(values.mean()),
        float(np.median(values)),
        float(np.percentile(values, 90)),
        float(np.percentile(values, 99)),
    )

"""Scoring a stream's final text (engine.stream.finalize): its WER, how long each utterance's final text took, and
how many confirmed words the final pass changed."""

from __future__ import annotations

from dataclasses import asdict

from engine.scoring.align import align
from engine.scoring.wer import WerCounts, normalize_text, wer_counts
from engine.session.events import FinalEvent, WordEvent, final_from_record
from engine.session.final_text import FinalText

TEXT_KEYS = {"confirmed": "wer", "final": "final_wer"}  # which WER counts of a stream record score which text


def final_events(records: list[dict]) -> list[FinalEvent]:
    """The final records among stream-format JSON records (``{"type": "final", ...}``, engine's final_record)."""
    finals = [r for r in records if r.get("type") == "final"]
    return [final_from_record(r) for r in finals]


def text_counts(record: dict, text: str) -> WerCounts:
    """A stream record's WER counts for its confirmed or its final text. A record without final counts (a stream
    scored before final records existed) ended with its confirmed text, which is then its final text."""
    return WerCounts(**record.get(TEXT_KEYS[text], record["wer"]))


def _tokens(words: list) -> list[str]:
    return normalize_text(" ".join(w.text for w in words)).split()


def score_finals(words: list[WordEvent], finals: list[FinalEvent], reference_text: str) -> dict:
    """WER counts of the final text (the confirmed words with every final record that fits applied), each final
    record's latency (its clock minus when its utterance ended, seconds), and the edits (substitutions, insertions,
    deletions between normalized words) each final made to the confirmed words it replaced, with their number."""
    text = FinalText()
    text.confirm(words)
    latencies, edits, replaced = [], 0, 0
    for final in finals:
        confirmed = words[final.first : final.first + final.count]
        if not text.apply(final):
            continue
        latencies.append(round(final.clock - final.ended, 3))
        before, after = _tokens(confirmed), _tokens(final.words)
        edits += sum(pair.op != "hit" for pair in align(before, after))
        replaced += len(before)
    return {
        "final_wer": asdict(wer_counts(reference_text, " ".join(w.text for w in text.words))),
        "final_latencies": latencies,
        "changed": {"edits": edits, "words": replaced},
    }


def changed_per_100(records: list[dict]) -> float | None:
    """Edits the final pass made per 100 confirmed words it replaced, over stream records (None: it replaced none)."""
    edits = sum(r.get("changed", {}).get("edits", 0) for r in records)
    replaced = sum(r.get("changed", {}).get("words", 0) for r in records)
    return 100 * edits / replaced if replaced else None

"""Score a call's JSONL against the fixture's references: `whisperflow call-score RUN.jsonl FIXTURE_DIR`.

Per side: attribution (the share of the side's reference words found, in order, under that side's label), labelled
(of the side's reference words the call recognized, under its label or under the other's at about the time it was
said, the share under its own: attribution without the recognition errors, which the side streamed alone makes
too), WER, and echo (the share of Them's reference words that also appear as You within ECHO_NEAR_S of when Them
said them).
``--guard`` replays the echo guard over a run recorded without it (``--no-echo-guard --debug-rounds``: the round
records carry the tentative words the guard also hears), so one run scores both.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from engine.scoring.align import align
from engine.scoring.latency import summarize, word_latencies
from engine.scoring.wer import normalize_text, wer_counts
from engine.session.events import StreamUpdate, final_from_record, word_from_record
from engine.session.final_text import SideTexts
from engine.session.words import Word
from engine.stream.agreement import spelling
from engine.stream.call import label
from engine.stream.echo_guard import EchoGuard

ECHO_NEAR_S = 1.0


def recorded_updates(jsonl: Path, alone: str | None = None) -> list[StreamUpdate]:
    """The updates a call's JSONL holds, in order: a round record and the records after it, of one side (alone: the
    side a one-source stream's records, which name none, are scored as)."""
    groups: list[dict] = []
    for line in jsonl.read_text().splitlines():
        record = json.loads(line)
        kind, speaker = record.get("type"), record.get("speaker", alone)
        if kind not in ("round", "word", "final"):
            continue
        if kind == "round" or not groups or groups[-1]["speaker"] != speaker:
            groups.append({"speaker": speaker, "confirmed": [], "tentative": [], "finals": []})
        group = groups[-1]
        if kind == "round":
            group["tentative"] = [Word(t, a, b, p, speaker) for t, a, b, p in record.get("tentative", [])]
        elif kind == "word":
            group["confirmed"].append(
                replace(word_from_record(record), speaker=speaker).confirmed(record["emitted"], record.get("shown"))
            )
        else:
            group["finals"].append(replace(final_from_record(record), speaker=speaker))
    return [
        label(StreamUpdate(g["confirmed"], g["tentative"], 0.0, 0.0, 0.0, finals=g["finals"]), g["speaker"])
        for g in groups
    ]


def session_words(jsonl: Path, guard: EchoGuard | None = None, alone: str | None = None) -> tuple[dict, dict]:
    """Each side's words, final texts applied, and its confirmed words as they came; with guard, You's updates
    filtered by it as a live call's are."""
    text, confirmed = SideTexts(), {"you": [], "them": []}
    for update in recorded_updates(jsonl, alone):
        if guard is not None:
            if update.speaker == "them":
                guard.hear(update)
            else:
                update = guard.filter(update)
        confirmed[update.speaker].extend(update.confirmed)
        text.confirm(update.confirmed)
        for f in update.finals:
            text.apply(f)
    return {side: [w for w in text.words if w.speaker == side] for side in ("you", "them")}, confirmed


def _latency(reference: list[Word], confirmed: list, shown: bool) -> float | None:
    """The mean latency of the side's reference words: to confirmation, or to first showing."""
    events = [replace(w, emitted=w.shown) if shown and w.shown is not None else w for w in confirmed]
    return summarize([x.latency for x in word_latencies(reference, events)]).mean


def _spelled(words: list[Word]) -> list[tuple[str, float]]:
    """Each word's spelling and start, for _said_near."""
    return [(spelling(w.text), w.start) for w in words]


def _said_near(spelled: list[tuple[str, float]], text: str, at: float) -> bool:
    """Whether the spelled words hold text within ECHO_NEAR_S of time at."""
    key = spelling(text)
    return any(s == key and abs(start - at) <= ECHO_NEAR_S for s, start in spelled)


def labelled(reference: list[dict], said: dict[str, list[Word]], side: str) -> float | None:
    """Of the side's reference words (text, start) the call recognized, the share under the side's label; None where
    it recognized none. A word is recognized under its label where the alignment with the side's words pairs it, and
    under the other's where it is not so paired and the other side has it within ECHO_NEAR_S of when it was said."""
    words = [(t, w["start"]) for w in reference for t in normalize_text(w["text"]).split()]
    own = [t for w in said[side] for t in normalize_text(w.text).split()]
    paired = {p.ref for p in align([t for t, _ in words], own) if p.op == "hit"}
    other = _spelled(said["them" if side == "you" else "you"])
    elsewhere = sum(i not in paired and _said_near(other, t, start) for i, (t, start) in enumerate(words))
    return len(paired) / (len(paired) + elsewhere) if paired or elsewhere else None


def score(jsonl: Path, fixture: Path, guard: bool = False, alone: str | None = None) -> dict:
    said, confirmed = session_words(jsonl, EchoGuard() if guard else None, alone)
    out = {}
    for side in (alone,) if alone else ("you", "them"):
        ref = json.loads((fixture / f"reference-{side}.json").read_text())
        timed = [Word(w["text"], w["start"], w["end"]) for w in ref["words"]]
        hyp_text = " ".join(w.text for w in said[side])
        ref_words, hyp_words = normalize_text(ref["text"]).split(), normalize_text(hyp_text).split()
        hits = sum(p.op == "hit" for p in align(ref_words, hyp_words))
        out[side] = {
            "attribution": hits / len(ref_words),
            "labelled": labelled(ref["words"], said, side),
            "wer": wer_counts(ref["text"], hyp_text).wer,
            "words": len(said[side]),
            "confirmed_latency_s": _latency(timed, confirmed[side], shown=False),
            "shown_latency_s": _latency(timed, confirmed[side], shown=True),
        }
    if alone:
        return out
    them = json.loads((fixture / "reference-them.json").read_text())["words"]
    yours = _spelled(said["you"])
    echoed = sum(_said_near(yours, t["text"], t["start"]) for t in them)
    out["echo"] = echoed / len(them)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="whisperflow call-score", description=__doc__.split("\n\n")[0])
    parser.add_argument("jsonl", type=Path)
    parser.add_argument("fixture", type=Path, help="the folder whisperflow call-fixture wrote")
    parser.add_argument("--guard", action="store_true", help="replay the echo guard over a run recorded without it")
    parser.add_argument("--alone", choices=("you", "them"), help="a one-source run of that side's track alone")
    args = parser.parse_args(argv)
    print(json.dumps(score(args.jsonl, args.fixture, args.guard, args.alone), indent=1))
    return 0

"""Score a call's JSONL against the fixture's references: `whisperflow call-score RUN.jsonl FIXTURE_DIR`.

Per side: attribution (the share of the side's reference words found, in order, under that side's label), WER, and
echo (the share of Them's reference words that also appear as You within ECHO_NEAR_S of when Them said them).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.scoring.align import align
from engine.scoring.wer import normalize_text, wer_counts
from engine.session.events import final_from_record, word_from_record
from engine.session.final_text import SideTexts
from engine.stream.agreement import spelling

ECHO_NEAR_S = 1.0


def session_words(jsonl: Path) -> dict[str, list]:
    """Each side's words, final texts applied."""
    text = SideTexts()
    for line in jsonl.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "word":
            text.confirm([word_from_record(record)])
        elif record.get("type") == "final":
            text.apply(final_from_record(record))
    return {side: [w for w in text.words if w.speaker == side] for side in ("you", "them")}


def score(jsonl: Path, fixture: Path) -> dict:
    said = session_words(jsonl)
    out = {}
    for side in ("you", "them"):
        ref = json.loads((fixture / f"reference-{side}.json").read_text())
        hyp_text = " ".join(w.text for w in said[side])
        ref_words, hyp_words = normalize_text(ref["text"]).split(), normalize_text(hyp_text).split()
        hits = sum(p.op == "hit" for p in align(ref_words, hyp_words))
        out[side] = {
            "attribution": hits / len(ref_words),
            "wer": wer_counts(ref["text"], hyp_text).wer,
            "words": len(said[side]),
        }
    them = json.loads((fixture / "reference-them.json").read_text())["words"]
    yours = [(spelling(w.text), w.start) for w in said["you"]]
    echoed = sum(any(s == spelling(t["text"]) and abs(at - t["start"]) <= ECHO_NEAR_S for s, at in yours) for t in them)
    out["echo"] = echoed / len(them)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="whisperflow call-score", description=__doc__.split("\n\n")[0])
    parser.add_argument("jsonl", type=Path)
    parser.add_argument("fixture", type=Path, help="the folder whisperflow call-fixture wrote")
    args = parser.parse_args(argv)
    print(json.dumps(score(args.jsonl, args.fixture), indent=1))
    return 0

"""Where the periods that the captions show as commas stand in the reference (docs/bench/punctuation).

    python -m tools.period_study RUN.jsonl [RUN.jsonl ...] [--manifest PATH]

Each run is a stream's JSONL over the long-form file (`whisperflow stream --jsonl`). Each word that ends in a period
and is aligned with a reference word is counted by what the captions show (a comma where the next word contradicts
the period: engine.session.transcript.contradicted_period) and by the reference's punctuation after that word.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from engine.scoring.align import align
from engine.session.transcript import contradicted_period
from engine.stream.agreement import spelling
from tools.bench.manifest import find_default_manifest, load_manifest


def reference_mark(word: str) -> str:
    """What the reference has after a word: a sentence end, a lighter mark, or nothing."""
    return "sentence end" if word[-1] in ".?!" else "comma, semicolon or colon" if word[-1] in ",;:" else "nothing"


def count(words: list[str], reference: list[str]) -> Counter:
    """(shown as, reference_mark) for each aligned word of words that ends in a period."""
    pairs = align([spelling(w) for w in reference], [spelling(w) for w in words])
    at = {p.hyp: p.ref for p in pairs if p.op in ("hit", "sub")}
    return Counter(
        (
            "comma" if i + 1 < len(words) and contradicted_period(w, words[i + 1]) else "period",
            reference_mark(reference[at[i]]),
        )
        for i, w in enumerate(words)
        if w.endswith(".") and i in at
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.period_study", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="stream JSONL files over the long-form file")
    parser.add_argument("--manifest", help="the corpus manifest (default: shared/corpus/manifest.tsv above here)")
    args = parser.parse_args(argv)
    manifest = Path(args.manifest) if args.manifest else find_default_manifest()
    if manifest is None:
        parser.error("no shared/corpus/manifest.tsv here or in a folder above: give --manifest")
    entry = next(e for e in load_manifest(manifest) if e.kind == "long_derived")
    reference = entry.reference.split()
    total: Counter = Counter()
    print("| run | shown as | reference has | periods |\n|---|---|---|---|")
    for path in args.runs:
        records = map(json.loads, Path(path).read_text(encoding="utf-8").splitlines())
        words = [r["text"] for r in records if r.get("type") == "word"]
        counts = count(words, reference)
        total += counts
        for (shown, mark), n in sorted(counts.items()):
            print(f"| {path} | {shown} | {mark} | {n} |")
    for (shown, mark), n in sorted(total.items()):
        print(f"| all | {shown} | {mark} | {n} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`whisperflow transcribe` (engine.stream.offline) against `mlx_whisper.transcribe` with the same weights, in one run.

    python -m tools.compare_transcribe [--manifest shared/corpus/manifest.tsv] [--kind short --kind long_derived]

Both use the same loaded network (float32 on CPU, greedy with temperature fallback, word timestamps,
English) and are scored with the same normalizer (engine.scoring.wer). Prints a Markdown table: WER, deletions,
substitutions, insertions per kind and in all.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.scoring.wer import ZERO, wer_counts


def main(argv: list[str] | None = None) -> int:
    from tools.bench.manifest import find_default_manifest, load_manifest, select

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", type=Path, default=None)
    p.add_argument("--kind", action="append", default=None)
    p.add_argument("--model", default="tiny.en")
    p.add_argument("--limit", type=int, default=None, help="first N files only (a quick check)")
    p.add_argument("--long-first", action="store_true", help="the long files first")
    p.add_argument("--out", type=Path, default=None, help="also write the table here after every file")
    args = p.parse_args(argv)
    manifest = args.manifest or find_default_manifest()
    if manifest is None:
        raise SystemExit("no corpus manifest found: give --manifest shared/corpus/manifest.tsv")
    entries = select(load_manifest(manifest), args.kind or ["short", "long_derived"])[: args.limit]
    if args.long_first:
        entries.sort(key=lambda e: -e.duration_s)

    from engine.runtime.startup import prepare

    prepare()
    import mlx.core as mx
    from mlx_whisper.transcribe import transcribe as mlx_transcribe

    from engine.audio.files import load_audio
    from engine.model.whisper_model import load_model
    from engine.stream.offline import transcribe_audio
    from engine.stream.round import Transcriber

    loaded = load_model(args.model)
    transcriber = Transcriber(loaded)
    fp16 = loaded.dtype == mx.float16
    from mlx_whisper.transcribe import ModelHolder

    # the very same network object (weights and alignment heads) for mlx_whisper's own transcribe loop
    ModelHolder.model, ModelHolder.model_path = loaded.model, str(loaded.path)
    totals: dict[tuple[str, str], object] = {}
    seconds = {"whisperflow": 0.0, "mlx_whisper": 0.0}
    for i, entry in enumerate(entries, 1):
        audio = load_audio(entry.path)
        t = time.perf_counter()
        ours = " ".join(w.text for w in transcribe_audio(transcriber, audio))
        seconds["whisperflow"] += time.perf_counter() - t
        t = time.perf_counter()
        theirs = mlx_transcribe(
            audio, path_or_hf_repo=str(loaded.path), language="en", fp16=fp16, word_timestamps=True, verbose=None
        )["text"]
        seconds["mlx_whisper"] += time.perf_counter() - t
        for system, text in (("whisperflow", ours), ("mlx_whisper", theirs)):
            counts = wer_counts(entry.reference, text)
            for kind in (entry.kind, "all"):
                totals[(system, kind)] = totals.get((system, kind), ZERO) + counts
        print(f"[{i}/{len(entries)}] {entry.name}", file=sys.stderr, flush=True)
        table = _table(entries[:i], totals, seconds, manifest, args.model)
        if args.out:
            args.out.write_text(table)
    print(table)
    return 0


def _table(entries, totals, seconds, manifest, model) -> str:
    kinds = sorted({e.kind for e in entries}) + ["all"]
    lines = [
        f"| system | {' | '.join(f'{k} WER (S/D/I)' for k in kinds)} | compute s |",
        f"|---|{'---|' * len(kinds)}---|",
    ]
    for system in ("whisperflow", "mlx_whisper"):
        cells = []
        for kind in kinds:
            c = totals[(system, kind)]
            cells.append(f"{100 * c.wer:.2f}% ({c.substitutions}/{c.deletions}/{c.insertions})")
        lines.append(f"| {system} | {' | '.join(cells)} | {seconds[system]:.0f} |")
    lines.append(f"\n{len(entries)} files from {manifest}, model {model}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

"""`whisperflow transcribe` (engine.stream.offline) against `mlx_whisper.transcribe` with the same weights, in one run.

    python -m tools.compare_transcribe [--manifest shared/corpus/manifest.tsv] [--kind short --kind long_derived]

Both read the same prepared model directory (float32 on CPU, greedy with temperature fallback, word timestamps,
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
    args = p.parse_args(argv)
    manifest = args.manifest or find_default_manifest() or Path("/work/shared/corpus/manifest.tsv")
    entries = select(load_manifest(manifest), args.kind or ["short", "long_derived"])[: args.limit]

    import mlx.core as mx
    import mlx_whisper

    from engine.audio.files import load_audio
    from engine.model.whisper_model import load_model
    from engine.stream.offline import transcribe_audio
    from engine.stream.round import Transcriber

    loaded = load_model(args.model)
    transcriber = Transcriber(loaded)
    fp16 = loaded.dtype == mx.float16
    totals: dict[tuple[str, str], object] = {}
    seconds = {"whisperflow": 0.0, "mlx_whisper": 0.0}
    for i, entry in enumerate(entries, 1):
        audio = load_audio(entry.path)
        t = time.perf_counter()
        ours = " ".join(w.text for w in transcribe_audio(transcriber, audio))
        seconds["whisperflow"] += time.perf_counter() - t
        t = time.perf_counter()
        theirs = mlx_whisper.transcribe(audio, path_or_hf_repo=str(loaded.path), language="en", fp16=fp16,
                                        word_timestamps=True, verbose=None)["text"]
        seconds["mlx_whisper"] += time.perf_counter() - t
        for system, text in (("whisperflow", ours), ("mlx_whisper", theirs)):
            counts = wer_counts(entry.reference, text)
            for kind in (entry.kind, "all"):
                totals[(system, kind)] = totals.get((system, kind), ZERO) + counts
        print(f"[{i}/{len(entries)}] {entry.name}", file=sys.stderr, flush=True)
    kinds = sorted({e.kind for e in entries}) + ["all"]
    print(f"| system | {' | '.join(f'{k} WER (S/D/I)' for k in kinds)} | compute s |")
    print(f"|---|{'---|' * len(kinds)}---|")
    for system in ("whisperflow", "mlx_whisper"):
        cells = []
        for kind in kinds:
            c = totals[(system, kind)]
            cells.append(f"{100 * c.wer:.2f}% ({c.substitutions}/{c.deletions}/{c.insertions})")
        print(f"| {system} | {' | '.join(cells)} | {seconds[system]:.0f} |")
    print(f"\n{len(entries)} files from {manifest}, model {args.model} ({loaded.path.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

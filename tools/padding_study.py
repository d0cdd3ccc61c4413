"""The hush-word paper's Table 1 / Figure 11 on the shared corpus's short clips: how each way of
extending the buffer trades encoder work against word error rate (non-streaming, greedy, timestamps on).

    whisperflow padding-study [--model tiny.en] [--corpus DIR] [--json out.json]

The clips are the corpus's short clips up to 15 s (the three 25–27 s MFA corpus recordings are left
out: with 5 s of padding they would not fit in the encoder's 30 s). Rows are run clip by clip, all rows on one
clip before the next, so that whatever else the machine is doing slows every row alike.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import jiwer
import numpy as np

from engine.encoder.input import PAD30, Padding
from engine.scoring.wer import corpus_wer, normalize_text

STUDY_MAX_SECONDS = 15.0  # + 5 s of padding still fits in 30 s

ROWS: dict[str, Padding] = {
    "a": PAD30,
    "b": Padding("none"),
    "c": Padding("zeros", 1.0),
    "d": Padding("zeros", 5.0),
    "e": Padding("noise", 1.0),
    "f": Padding("noise", 5.0),
}


def words_after_end(reference: str, hypothesis: str) -> int:
    """How many hypothesis words come after the last reference word (end-of-audio hallucination)."""
    ref, hyp = normalize_text(reference), normalize_text(hypothesis)
    if not ref.strip() or not hyp.strip():
        return 0
    chunks = jiwer.process_words(ref, hyp).alignments[0]
    last = chunks[-1]
    return last.hyp_end_idx - last.hyp_start_idx if last.type == "insert" else 0


@dataclass
class ClipRun:
    path: str
    text: str
    encode_s: float
    decode_s: float
    encoder_gflops: float
    words_after_end: int


@dataclass
class Row:
    """One padding's results over all clips."""

    row: str
    label: str
    clips: list[ClipRun] = field(default_factory=list)
    wer: float = 0.0

    @property
    def gflops(self) -> float:
        return float(np.mean([c.encoder_gflops for c in self.clips]))

    @property
    def encode_s(self) -> float:
        return float(np.mean([c.encode_s for c in self.clips]))

    @property
    def decode_s(self) -> float:
        return float(np.mean([c.decode_s for c in self.clips]))

    @property
    def hallucinating_clips(self) -> int:
        return sum(c.words_after_end > 0 for c in self.clips)


def study_paddings(hush: Padding | None) -> dict[str, Padding]:
    """Rows a–f, and g when there is a hush word."""
    rows = dict(ROWS)
    if hush is not None:
        rows["g"] = hush
    return rows


def run_study(loaded, clips, audios: list[np.ndarray], paddings: dict[str, Padding], progress=print) -> list[Row]:
    """Transcribe every clip with every padding; WER per row over all clips."""
    from engine.stream.round import Transcriber

    transcribers = {k: Transcriber(loaded, padding=p, word_timestamps=False) for k, p in paddings.items()}
    rows = {k: Row(k, p.label()) for k, p in paddings.items()}
    for t in transcribers.values():
        t.transcribe(audios[0])  # warm-up: first-call allocations are not the padding's cost
    for i, (clip, audio) in enumerate(zip(clips, audios)):
        t0 = time.perf_counter()
        for key, transcriber in transcribers.items():
            r = transcriber.transcribe(audio)
            text = " ".join(s.text.strip() for s in r.segments)
            rows[key].clips.append(
                ClipRun(
                    clip.path, text, r.encode_s, r.decode_s, r.encoder_gflops, words_after_end(clip.reference, text)
                )
            )
        progress(f"{i + 1}/{len(clips)} {clip.path} ({clip.duration:.1f} s) in {time.perf_counter() - t0:.1f} s")
    for row in rows.values():
        row.wer = corpus_wer([c.reference for c in clips], [c.text for c in row.clips])
    return list(rows.values())


def markdown_table(rows: list[Row], n_clips: int) -> str:
    lines = [
        f"| row | input | encoder GFLOPs | encode s | decode s | WER | clips with words after the end (of {n_clips}) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.row} | {r.label} | {r.gflops:.2f} | {r.encode_s:.3f} | {r.decode_s:.3f} "
            f"| {100 * r.wer:.1f} % | {r.hallucinating_clips} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from engine.encoder.hush_word import choose_hush
    from engine.model.whisper_model import load_model
    from tools.hushword_training.data import TEST_KINDS, clips_of, load_clip

    parser = argparse.ArgumentParser(prog="whisperflow padding-study", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="shared corpus folder (default: shared/corpus in the working directory or a folder above it)",
    )
    parser.add_argument(
        "--hush-dir", type=Path, default=None, help="take the hush word from here instead of hushwords/"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N short clips")
    parser.add_argument("--rows", default="abcdefg", help="only these rows, e.g. ag (default: all)")
    parser.add_argument("--json", type=Path, default=None, help="write every row and clip result here")
    args = parser.parse_args(argv)
    if args.corpus is not None:
        os.environ["WHISPERFLOW_CORPUS"] = str(args.corpus)

    loaded = load_model(args.model)
    word, note = choose_hush(loaded, args.hush_dir)
    print(note, flush=True)
    clips = [c for c in clips_of(TEST_KINDS) if c.duration <= STUDY_MAX_SECONDS][: args.limit]
    audios = [load_clip(c) for c in clips]
    paddings = {k: p for k, p in study_paddings(word.padding if word else None).items() if k in args.rows}
    rows = run_study(loaded, clips, audios, paddings, lambda s: print(s, flush=True))
    print(
        f"\n{args.model}, {len(clips)} short clips ({sum(c.duration for c in clips):.0f} s of speech), "
        "non-streaming, greedy:\n"
    )
    print(markdown_table(rows, len(clips)))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "model": args.model,
                    "hush_word": word.metadata if word else None,
                    "clips": [asdict(c) for c in clips],
                    "rows": [
                        dict(
                            row=r.row,
                            label=r.label,
                            wer=r.wer,
                            gflops=r.gflops,
                            encode_s=r.encode_s,
                            decode_s=r.decode_s,
                            hallucinating_clips=r.hallucinating_clips,
                            clips=[asdict(c) for c in r.clips],
                        )
                        for r in rows
                    ],
                },
                indent=1,
            )
        )
    return 0

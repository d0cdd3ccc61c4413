"""`whisperflow encoder-bench`: the reference encoder against the fast CPU path, per block and whole.

Both paths run on the same real speech (the bundled sample, repeated to length) with no
padding, alternating run by run so a busy machine slows both alike. Times are the best of
``--repeats`` runs, wall clock and this process's CPU time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.encoder.fast_encoder import fast_block, fast_encode, fast_path_applies, fast_stem
from engine.encoder.input import Padding, encoder_mel
from engine.model.whisper_model import LoadedModel, VarLenAudioEncoder, load_model
from engine.runtime.blas import loaded_blas
from engine.runtime.paths import SAMPLE_AUDIO as SAMPLE


@dataclass(frozen=True)
class Timing:
    """Best wall and CPU seconds over the repeats."""

    wall: float
    cpu: float

    def text(self) -> str:
        return f"{self.wall * 1000:8.1f} ({self.cpu * 1000:7.1f})"


@dataclass(frozen=True)
class PartResult:
    """One part of the encoder at one input length: both paths' timings and how far their outputs differ."""

    seconds: float
    part: str
    reference: Timing
    fast: Timing
    max_rel_diff: float  # max |fast − reference| / max |reference|


def _time_pair(
    reference: Callable[[], mx.array], fast: Callable[[], mx.array], repeats: int
) -> tuple[Timing, Timing, float]:
    """Best timings of two computations run alternately (after a warm-up each), and their max relative diff."""
    ref_out, fast_out = np.array(reference()), np.array(fast())
    best = {"reference": [np.inf, np.inf], "fast": [np.inf, np.inf]}
    for _ in range(repeats):
        for name, run in (("reference", reference), ("fast", fast)):
            wall, cpu = time.perf_counter(), time.process_time()
            mx.eval(run())
            best[name][0] = min(best[name][0], time.perf_counter() - wall)
            best[name][1] = min(best[name][1], time.process_time() - cpu)
    max_rel_diff = float(np.abs(ref_out - fast_out).max() / np.abs(ref_out).max())
    return Timing(*best["reference"]), Timing(*best["fast"]), max_rel_diff


def reference_stem(encoder: VarLenAudioEncoder, mel: mx.array) -> mx.array:
    x = nn.gelu(encoder.conv2(nn.gelu(encoder.conv1(mel))))
    return x + encoder._positional_embedding[: x.shape[1]]


def bench_length(loaded: LoadedModel, audio: np.ndarray, seconds: float, repeats: int) -> list[PartResult]:
    """Stem, each block and the whole encoder on ``seconds`` of audio, as the transcriber feeds it."""
    encoder = loaded.model.encoder
    reps = int(np.ceil(seconds * SAMPLE_RATE / len(audio)))
    clip = np.tile(audio, reps)[: int(seconds * SAMPLE_RATE)]
    mel = encoder_mel(clip, Padding("none"), loaded.dims.n_mels).astype(loaded.dtype)[None]
    mx.eval(mel)
    results = []

    def add(part: str, reference, fast) -> None:
        results.append(PartResult(seconds, part, *_time_pair(reference, fast, repeats)))

    add("stem (convs)", lambda: reference_stem(encoder, mel), lambda: fast_stem(encoder, mel))
    x = reference_stem(encoder, mel)
    mx.eval(x)
    for i, block in enumerate(encoder.blocks):
        # mlx-whisper's block updates its input in place (x += …), so each run gets its own copy.
        add(f"block {i}", lambda b=block, x=x: b(mx.array(x))[0], lambda b=block, x=x: fast_block(b, mx.array(x)))
        x = block(mx.array(x))[0]
        mx.eval(x)
    add("encoder", lambda: VarLenAudioEncoder.__call__(encoder, mel), lambda: fast_encode(encoder, mel))
    return results


def format_table(results: list[PartResult]) -> list[str]:
    lines = [
        f"{'input':>6}  {'part':<13} {'reference ms (CPU)':>19}  {'fast ms (CPU)':>19}  "
        f"{'speed-up wall (CPU)':>19}  {'max rel diff':>12}"
    ]
    for r in results:
        speedup = f"{r.reference.wall / r.fast.wall:5.2f}x ({r.reference.cpu / r.fast.cpu:5.2f}x)"
        lines.append(
            f"{r.seconds:5g}s  {r.part:<13} {r.reference.text():>19}  {r.fast.text():>19}  "
            f"{speedup:>19}  {r.max_rel_diff:12.1e}"
        )
    return lines


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="whisperflow encoder-bench", description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny.en")
    p.add_argument("--seconds", type=float, nargs="+", default=[5.0, 10.0, 30.0], help="input lengths (at most 30)")
    p.add_argument("--repeats", type=int, default=5, help="runs per path; the best counts")
    p.add_argument("--audio", type=Path, default=SAMPLE, help="speech to encode (repeated to length)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if any(not 0 < s <= 30 for s in args.seconds):
        raise SystemExit("encoder-bench: --seconds must be between 0 and 30")
    if args.repeats < 1:
        raise SystemExit("encoder-bench: --repeats must be at least 1")
    loaded = load_model(args.model)
    audio = load_audio(args.audio)
    probe = mx.zeros((1, 2, loaded.dims.n_mels), loaded.dtype)
    print(
        f"encoder of {loaded.name} on {mx.default_device()}, {loaded_blas()}; best of {args.repeats}, wall ms (CPU ms)"
    )
    if not fast_path_applies(probe):
        print("the fast path applies to float32 on the CPU only; here both columns run the reference encoder")
    results = []
    for seconds in args.seconds:
        results += bench_length(loaded, audio, seconds, args.repeats)
    print("\n".join(format_table(results)))
    return 0

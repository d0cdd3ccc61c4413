"""`whisperflow startup-check`: a fresh process's way to its first decoded tokens, stage by stage, with its memory.

The command starts a fresh Python process (so that the CLI's own imports do not count), which loads the system
BLAS, imports MLX, runs a first operation and a first matmul on the default device, loads the model (a prepared
one, or random weights with the shapes of --config), then does what a stream's first rounds do with the engine's
own encoder and decoder session: encodes a 10 s buffer twice, encodes 19 other lengths twice (a streaming encoder
meets a new length most rounds), and decodes a prompt, a first beam-5 step and 30 more. Each stage prints its
time, the resident memory after it and the peak so far. Then MLX's memory counters and, on Linux, resident memory
by mapping.

On CUDA, run it twice with MLX_PTX_CACHE_DIR set: the first run compiles MLX's kernels, the second reads them.

    whisperflow startup-check [--model tiny.en | --config CONFIG.JSON]

Results on an NVIDIA H100 and on the 2-core machine: docs/bench/gpu/startup.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from tools.bench.memory import peak_rss_mb, rss_mb

BEAM = 5
SOT = 50257  # any token id: the steps' cost does not depend on it
NEW_LENGTHS = range(300, 1300, 53)  # 19 mel lengths, 3-13 s
MAPS = Path("/proc/self/smaps")


def rss_by_mapping(top: int = 12) -> list[tuple[str, float]]:
    """Resident MB per mapped file (anonymous memory and the heap by their kernel names), largest first (Linux)."""
    if not MAPS.is_file():
        return []
    totals: dict[str, int] = {}
    name = "[anon]"
    for line in MAPS.read_text().splitlines():
        fields = line.split()
        if not fields[0].endswith(":"):  # a mapping's header: addresses, perms, offset, device, inode[, path]
            path = fields[5] if len(fields) > 5 else "[anon]"
            name = os.path.basename(path) if path.startswith("/") else path
        elif fields[0] == "Rss:":
            totals[name] = totals.get(name, 0) + int(fields[1])
    return [(k, v / 1024) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])[:top]]


class Stages:
    """Prints each stage's time, and the resident memory after it, as it ends."""

    def __init__(self):
        self.start = self.last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        rss = rss_mb()
        print(
            f"{name:<44} {1000 * (now - self.last):9.1f} ms   at {now - self.start:6.2f} s   "
            f"RSS {'–' if rss is None else f'{rss:5.0f}'} MB   peak {peak_rss_mb():5.0f} MB",
            flush=True,
        )
        self.last = now


def run_stages(model_name: str | None, config: Path | None) -> None:
    """The measured process: every import and first call below is part of what it times."""
    stages = Stages()
    from engine.runtime.startup import prepare

    prepare()
    stages.done("engine start-up (the system BLAS)")
    import numpy as np

    stages.done("import numpy")
    import mlx.core as mx

    stages.done("import mlx.core")
    mx.eval(mx.ones((4,)) + 1)
    stages.done(f"first operation on {mx.default_device()}")
    square = mx.ones((64, 64))
    mx.eval(square @ square)
    stages.done("first matmul")
    from engine.decoder.session import default_backend, make_session
    from engine.encoder.fast_encoder import fast_encode
    from engine.model.whisper_model import load_model
    from tools.overlap_check import random_model

    stages.done("import the encoder and decoder")
    if config is not None:
        model = random_model(config)
        dtype = model.encoder.conv1.weight.dtype
        stages.done(f"build the network, random {str(dtype).removeprefix('mlx.core.')} weights")
    else:
        loaded = load_model(model_name)
        model, dtype = loaded.model, loaded.dtype
        stages.done(f"load {model_name} ({str(dtype).removeprefix('mlx.core.')})")

    def encode(frames: int) -> mx.array:
        features = fast_encode(model.encoder, mx.random.normal((1, frames, model.dims.n_mels)).astype(dtype))
        mx.eval(features)
        return features

    features = encode(1000)
    stages.done("first encode, 10 s")
    features = encode(1000)
    stages.done("the same again")
    for label in ("first encodes", "the same again"):
        times = []
        for frames in NEW_LENGTHS:
            begin = time.perf_counter()
            encode(frames)
            times.append(1000 * (time.perf_counter() - begin))
        stages.done(f"{len(times)} other lengths, {label}")
        print("    ms each: " + " ".join(f"{t:.0f}" for t in times), flush=True)
    backend = default_backend()
    session = make_session(model, features if backend == "mlx" else np.array(features.astype(mx.float32)), backend)

    def step(tokens: np.ndarray) -> None:
        logits = session.forward(mx.array(tokens) if backend == "mlx" else tokens)
        if backend == "mlx":
            mx.eval(logits)

    step(np.full((1, 8), SOT))
    stages.done(f"decoder ({backend}): the prompt")
    session.reorder([0] * BEAM)
    step(np.full((BEAM, 1), SOT))
    stages.done("decoder: first beam-5 step")
    for _ in range(30):
        step(np.full((BEAM, 1), SOT))
    stages.done("decoder: 30 more steps")
    print(
        f"MLX memory: active {mx.get_active_memory() >> 20} MB, peak {mx.get_peak_memory() >> 20} MB, "
        f"cache {mx.get_cache_memory() >> 20} MB",
        flush=True,
    )
    mappings = rss_by_mapping()
    if mappings:
        print("resident MB by mapping:", flush=True)
        for name, mb in mappings:
            print(f"    {mb:8.1f}  {name}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="whisperflow startup-check", description=__doc__.split("\n\n")[0])
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--model", default="tiny.en", help="a model to load, prepared first if needed (default tiny.en)"
    )
    source.add_argument("--config", type=Path, help="a model's config.json: random weights of its shapes instead")
    p.add_argument("--in-this-process", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.in_this_process:
        run_stages(None if args.config else args.model, args.config)
        return 0
    if args.config is None:
        from engine.model.store import prepare_model

        prepare_model(args.model)  # a first conversion is not a start-up cost
        child = ["--model", args.model]
    else:
        child = ["--config", str(args.config.resolve())]
    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])))
    return subprocess.run(
        [sys.executable, "-m", "tools.startup_check", *child, "--in-this-process"], env=env
    ).returncode


if __name__ == "__main__":
    sys.exit(main())

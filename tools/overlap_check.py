"""`whisperflow overlap-check`: does the CPU decoder on one thread slow the accelerator's encodes on another?

The pipelined loop encodes round n+1 on the accelerator's executor while the calling thread decodes round n
in numpy (the CPU decoder). This times, with a model's shapes and random weights (the times do not depend on
the values, so a GPU machine needs no converted model for it):

- encodes of a 10 s buffer on the executor, alone;
- numpy beam-5 decoder steps on a second thread, alone;
- the encodes while that thread decodes, at Python's default thread switch interval and at 0.1 ms;
- MLX beam-5 decoder steps on the default device (a GPU's decoder).

    whisperflow overlap-check [--config CONFIG.JSON] [--model tiny.en]

Results on an NVIDIA H200: docs/bench/gpu.
"""

# ruff: noqa: E402  (the start-up step comes before the imports that load MLX)
from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from engine.runtime.startup import prepare

prepare()  # first: OpenBLAS before MLX, which the imports below load (this module also runs on its own)

import mlx.core as mx
import numpy as np
from mlx_whisper import whisper

from engine.decoder.mlx_session import DecoderSession
from engine.decoder.numpy_session import NumpyDecoderSession
from engine.model.store import model_dir
from engine.model.whisper_model import build_network
from engine.runtime.executor import Executor
from engine.runtime.mlx_thread import gpu_available

BEAM = 5
ENCODES = 15
SOT = 50257  # any token id: the steps' cost does not depend on it
T = TypeVar("T")


def random_model(config_path: Path) -> whisper.Whisper:
    """A Whisper network with the shapes in config_path and MLX's random initial weights."""
    return build_network(json.loads(config_path.read_text()), mx.float16 if gpu_available() else mx.float32)


def numpy_steps(model, features: np.ndarray, stop: threading.Event, times_ms: list[float]) -> None:
    """Beam-5 numpy decoder steps until stop is set, a fresh session every 150 steps (the text context's bound)."""
    while not stop.is_set():
        session = NumpyDecoderSession(model, features)
        session.forward(np.full((1, 8), SOT))
        session.reorder([0] * BEAM)
        for _ in range(150):
            if stop.is_set():
                return
            start = time.perf_counter()
            session.forward(np.full((BEAM, 1), SOT))
            times_ms.append(1000 * (time.perf_counter() - start))


def beside_numpy_decoding(model, features: np.ndarray, work: Callable[[], T]) -> tuple[T, list[float]]:
    """work()'s result, run while a second thread decodes in numpy (from 0.5 s before), and that thread's step times."""
    steps: list[float] = []
    stop = threading.Event()
    decoder = threading.Thread(target=numpy_steps, args=(model, features, stop, steps))
    decoder.start()
    try:
        time.sleep(0.5)
        result = work()
    finally:
        stop.set()
        decoder.join()
    return result, steps


def summary(name: str, times_ms: list[float]) -> str:
    return f"{name:<58} median {statistics.median(times_ms):7.1f} ms   max {max(times_ms):7.1f} ms   n {len(times_ms)}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="whisperflow overlap-check", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--model", default="tiny.en", help="model whose prepared config.json gives the shapes (default tiny.en)"
    )
    p.add_argument("--config", type=Path, help="a model's config.json instead (no prepared model needed)")
    args = p.parse_args(argv)
    model = random_model(args.config or model_dir(args.model) / "config.json")
    mel = mx.random.normal((1, 1000, model.dims.n_mels)).astype(model.encoder.conv1.weight.dtype)
    mx.eval(mel)
    print(f"device {mx.default_device()}, weights {str(mel.dtype).removeprefix('mlx.core.')}, 10 s buffer", flush=True)
    with Executor("accelerator", "gpu") as accelerator:

        def encode() -> mx.array:
            out = model.encoder(mel)
            mx.eval(out)
            return out

        def timed_encodes() -> list[float]:
            times = []
            for _ in range(ENCODES):
                start = time.perf_counter()
                accelerator.submit(encode).result()
                times.append(1000 * (time.perf_counter() - start))
            return times

        for _ in range(3):  # compiles the kernels
            features = accelerator.submit(encode).result()
        features_np = np.array(features.astype(mx.float32))
        print(summary("encode on the executor, alone", timed_encodes()), flush=True)
        _, alone = beside_numpy_decoding(model, features_np, lambda: time.sleep(2.5))
        print(summary("numpy beam-5 step, alone", alone), flush=True)
        default = sys.getswitchinterval()
        for interval in (default, 1e-4):
            sys.setswitchinterval(interval)
            try:
                encodes, steps = beside_numpy_decoding(model, features_np, timed_encodes)
            finally:
                sys.setswitchinterval(default)
            print(summary(f"encode while numpy decodes (switch interval {interval * 1000:g} ms)", encodes), flush=True)
            print(summary("numpy beam-5 step, meanwhile", steps), flush=True)
    session = DecoderSession(model, features, features.shape[1])
    session.forward(mx.full((1, 8), SOT))
    session.reorder([0] * BEAM)
    times = []
    for _ in range(60):
        start = time.perf_counter()
        mx.eval(session.forward(mx.full((BEAM, 1), SOT)))
        times.append(1000 * (time.perf_counter() - start))
    print(summary(f"MLX beam-5 step on {mx.default_device()}", times[10:]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

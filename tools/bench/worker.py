"""One configuration at one pace over a list of files, in its own process so that its CPU time and
peak memory are its own. Reads a job (JSON) on stdin, writes JSON lines on stdout:
``loaded``, then per file ``progress`` lines and one ``result``. A job's ``cuts``, one per file, are another run's
rounds to replay (engine.stream.replay); a ``result`` carries its own rounds' as ``cuts``.

Run by tools.bench.runner as ``python -m tools.bench.worker``.
"""

# ruff: noqa: E402  (the start-up step comes before the imports that load MLX)
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from engine.runtime.startup import prepare

prepare()  # first: OpenBLAS before MLX, which the imports below load (this module also runs on its own)

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.audio.sources import FileSource, PacedFileSource
from engine.errors import WhisperFlowError
from engine.model.whisper_model import load_model
from engine.session.events import done_record, final_record, round_record, word_record
from engine.stream.config import StreamConfig, build_processor
from engine.stream.replay import PREFIX
from engine.stream.runner import run_stream
from tools.bench.machine import watched
from tools.bench.memory import peak_rss_mb

PROGRESS_EVERY_S = 0.5


class _FileRecorder:
    """The stream's updates for one file: its confirmed words, its final records, the time of each round that ran
    (not those skipped over silence, nor the final flush), where each round's audio ended and the clock then (every
    round), and a progress event now and then."""

    def __init__(self, processor, index: int, emit):
        self.processor, self.index, self.emit = processor, index, emit
        self.words: list[dict] = []
        self.finals: list[dict] = []
        self.round_s: list[float] = []
        self.cuts: dict[str, list[float]] = {"ends": [], "clocks": []}
        self.last_progress = 0.0

    def __call__(self, update) -> None:
        self.words.extend(word_record(w) for w in update.confirmed)
        self.finals.extend(final_record(f) for f in update.finals)
        if update.round is not None:
            record = round_record(update.round)
            self.cuts["ends"].append(record["buffer_end"])
            self.cuts["clocks"].append(record["clock"])
        if update.round is not None and self.processor.stats.rounds > len(self.round_s):
            self.round_s.append(update.round_s)
        now = time.perf_counter()
        if now - self.last_progress >= PROGRESS_EVERY_S:
            self.last_progress = now
            audio_s = self.processor.buffer_offset + self.processor.buffer_s
            self.emit({"type": "progress", "file_index": self.index, "audio_s": audio_s})


def _recorded(cuts: dict, folder: Path) -> str:
    """A stream JSONL of another run's rounds (cuts: ends, clocks, finish), as engine.stream.replay reads one."""
    path = folder / "rounds.jsonl"
    rounds = [{"type": "round", "buffer_end": e, "clock": c} for e, c in zip(cuts["ends"], cuts["clocks"])]
    path.write_text("".join(json.dumps(r) + "\n" for r in [*rounds, {"type": "done", "wall_s": cuts["finish"]}]))
    return str(path)


def run_job(job: dict, emit) -> None:
    config = StreamConfig(**job["config"])
    pace = job["pace"]
    t0 = time.perf_counter()
    loaded = load_model(config.model)
    processor, notices = build_processor(loaded, config)
    # Warm-up round, so that the first file does not pay one-off start-up costs.
    processor.transcriber.transcribe(np.zeros(SAMPLE_RATE, np.float32), "")
    emit({"type": "loaded", "load_s": time.perf_counter() - t0, "notices": notices})
    for index, path in enumerate(job["files"]):
        processor, _ = build_processor(loaded, replace(config, words=job["words"][index]))
        recorder = _FileRecorder(processor, index, emit)
        with tempfile.TemporaryDirectory(prefix="whisperflow-cuts-") as folder:
            if "cuts" in job:
                file_pace, source = PREFIX + _recorded(job["cuts"][index], Path(folder)), FileSource(path)
            else:
                file_pace, source = pace, PacedFileSource(path) if pace == "realtime" else FileSource(path)
            with watched() as machine:
                done = run_stream(processor, source, pace=file_pace, on_update=recorder, notices=notices)
        stats = processor.stats
        emit(
            {
                "type": "result",
                "file_index": index,
                "words": recorder.words,
                "finals": recorder.finals,
                "round_s": recorder.round_s,
                "done": done_record(done),
                "cuts": {**recorder.cuts, "finish": done.wall_s},
                "beam": {"steps": stats.beam_steps, "sum": stats.beam_sum, "reduced": stats.reduced_steps},
                "peak_rss_mb": peak_rss_mb(),
                "machine": machine,
            }
        )


def main() -> int:
    # The protocol owns the real stdout; anything else printed goes to stderr.
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(record: dict) -> None:
        protocol.write(json.dumps(record) + "\n")
        protocol.flush()

    try:
        run_job(json.load(sys.stdin), emit)
    except WhisperFlowError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run a benchmark: offline transcripts (gold WER, reference timings), then every configuration at the
measured pace and at the computation-unaware pace, each (configuration, pace, kind) in a worker process."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from itertools import groupby
from operator import attrgetter
from pathlib import Path

from tqdm import tqdm

from engine.errors import WhisperFlowError
from engine.scoring.wer import wer_counts
from tools.bench.configs import BenchConfig
from tools.bench.manifest import ManifestEntry
from tools.bench.peer import PEER_LABEL, PEER_SETTINGS, peer_missing, run_peer
from tools.bench.reference import OfflineTranscripts, TimedReference, timed_reference
from tools.bench.results import ResultsLog
from tools.bench.stream_score import score_stream, word_events


@dataclass(frozen=True)
class BenchPlan:
    """What to run: files, configurations, the measured pace, and whether to add the unaware lower bound."""

    entries: list[ManifestEntry]
    configs: list[BenchConfig]
    pace: str
    lower_bound: bool
    reference_model: str
    manifest: Path
    peer_script: Path | None = None  # whisper_online.py, for the `peer` configuration

    def paces(self) -> list[tuple[str, str]]:
        """(pace, role) pairs; role is "measured" or "lower_bound"."""
        runs = [(self.pace, "measured")]
        if self.lower_bound and self.pace != "unaware":
            runs.append(("unaware", "lower_bound"))
        return runs


def meta_record(plan: BenchPlan) -> dict:
    return {
        "type": "meta",
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "manifest": os.path.relpath(plan.manifest),  # relative: results are shared and committed
        "pace": plan.pace,
        "lower_bound": plan.lower_bound and plan.pace != "unaware",
        "reference_model": plan.reference_model,
        "configs": [c.label for c in plan.configs],
        "files": [e.name for e in plan.entries],
        "machine": {
            "system": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
    }


def offline_pass(plan: BenchPlan, log: ResultsLog) -> dict[str, TimedReference]:
    """Gold WER of each configuration's model on each file, and the reference timing of each file."""
    offline = OfflineTranscripts()
    models = list(dict.fromkeys(c.stream.model for c in plan.configs))
    gold = [(m, e) for m in models for e in plan.entries if not log.has(type="offline", model=m, file=e.name)]
    timed: dict[str, TimedReference] = {}
    with tqdm(total=len(gold) + len(plan.entries), desc="offline transcripts", unit="file") as bar:
        for model, entry in gold:
            text = offline.text(model, entry.path)
            log.append(
                {
                    "type": "offline",
                    "model": model,
                    "file": entry.name,
                    "kind": entry.kind,
                    "text": text,
                    "wer": asdict(wer_counts(entry.reference, text)),
                }
            )
            bar.update()
        for entry in plan.entries:
            timed[entry.name] = timed_reference(entry.path, entry.textgrid, offline, plan.reference_model)
            bar.update()
    offline.release()
    return timed


def run_plan(plan: BenchPlan, log: ResultsLog) -> None:
    """Everything the plan asks for that the log does not already hold."""
    log.append(meta_record(plan))
    timed = offline_pass(plan, log)
    kind = attrgetter("kind")
    per_kind = [list(group) for _, group in groupby(sorted(plan.entries, key=kind), key=kind)]
    for config in plan.configs:
        for pace, role in plan.paces():
            for entries in per_kind:
                todo = [e for e in entries if not log.has(type="stream", config=config.label, role=role, file=e.name)]
                if todo and config.peer:
                    _run_peer(plan.peer_script, pace, role, todo, timed, log)
                elif todo:
                    _run_worker(config, pace, role, todo, timed, log)


def _run_peer(
    script: Path | None,
    pace: str,
    role: str,
    entries: list[ManifestEntry],
    timed: dict[str, TimedReference],
    log: ResultsLog,
) -> None:
    """The peer row (tools.bench.peer), file by file; without its script or faster-whisper, a note instead."""
    from engine.model.store import PACKAGED

    missing = peer_missing(script)
    if missing:
        print(missing, file=sys.stderr)
        if not log.has(type="note", text=missing):
            log.append({"type": "note", "text": missing})
        return
    model_dir = PACKAGED["tiny.en"].locate()[0]
    for entry in tqdm(entries, desc=f"{PEER_LABEL} · {pace} · {entries[0].kind}", unit="file"):
        record = run_peer(script, entry.path, model_dir, pace)
        log.append(
            {
                "type": "stream",
                "config": PEER_LABEL,
                "settings": PEER_SETTINGS,
                "pace": pace,
                "role": role,
                "file": entry.name,
                "kind": entry.kind,
                "duration_s": entry.duration_s,
                **record,
                **score_stream(word_events(record["words"]), entry.reference, timed[entry.name]),
            }
        )


def _run_worker(
    config: BenchConfig,
    pace: str,
    role: str,
    entries: list[ManifestEntry],
    timed: dict[str, TimedReference],
    log: ResultsLog,
) -> None:
    settings = asdict(config.stream.resolved())
    job = {"config": asdict(config.stream), "pace": pace, "files": [str(e.path) for e in entries]}
    done_s = 0.0
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as errors,
        tqdm(
            total=round(sum(e.duration_s for e in entries), 1),
            unit="audio s",
            desc=f"{config.label} · {pace} · {entries[0].kind}",
            bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} {unit} [{elapsed}<{remaining}]",
        ) as bar,
    ):
        worker = subprocess.Popen(
            [sys.executable, "-m", "tools.bench.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            encoding="utf-8",
        )
        try:
            worker.stdin.write(json.dumps(job))
            worker.stdin.close()
            for line in worker.stdout:
                message = json.loads(line)
                if message["type"] == "progress":
                    bar.update(min(done_s + message["audio_s"], bar.total) - bar.n)
                elif message["type"] == "result":
                    entry = entries[message["file_index"]]
                    words = word_events(message["words"])
                    log.append(
                        {
                            "type": "stream",
                            "config": config.label,
                            "settings": settings,
                            "pace": pace,
                            "role": role,
                            "file": entry.name,
                            "kind": entry.kind,
                            "duration_s": entry.duration_s,
                            **{k: message[k] for k in ("words", "round_s", "done", "beam", "peak_rss_mb")},
                            **score_stream(words, entry.reference, timed[entry.name]),
                        }
                    )
                    done_s += entry.duration_s
                    bar.update(min(done_s, bar.total) - bar.n)
            code = worker.wait()
        except BaseException:
            worker.kill()
            worker.wait()
            raise
        if code != 0:
            errors.seek(0)
            tail = errors.read().strip().splitlines()[-8:]
            raise WhisperFlowError(f"the bench worker for {config.label!r} ({pace}) failed:\n  " + "\n  ".join(tail))

"""Run a benchmark: offline transcripts (gold WER, reference timings), then every configuration at the
measured pace and at the computation-unaware pace, each (configuration, pace, kind) in a worker process; with
several draws, the measured runs again per draw, interleaved (tools.bench.draws)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, replace
from itertools import groupby
from operator import attrgetter
from pathlib import Path

from tqdm import tqdm

from engine.errors import WhisperFlowError
from engine.runtime.blas import loaded_blas
from engine.scoring.wer import wer_counts
from tools.bench.configs import BenchConfig
from tools.bench.final_score import final_events, score_finals
from tools.bench.manifest import ManifestEntry
from tools.bench.peer import PEER_LABEL, PEER_SETTINGS, peer_missing, run_peer
from tools.bench.reference import OfflineTranscripts, TimedReference, timed_reference
from tools.bench.results import ResultsLog
from tools.bench.stream_score import score_stream, word_events
from tools.bench.word_lists import listed_scores, listed_words


@dataclass(frozen=True)
class BenchPlan:
    """What to run: files, configurations, the measured pace, whether to add the unaware lower bound, and how many
    times (draws) to run the whole plan."""

    entries: list[ManifestEntry]
    configs: list[BenchConfig]
    pace: str
    lower_bound: bool
    reference_model: str
    manifest: Path
    peer_script: Path | None = None  # whisper_online.py, for the `peer` configuration
    draws: int = 1

    def __post_init__(self):
        own = {c.label for c in self.configs if not c.cuts and not c.peer}
        for config in self.configs:
            if config.cuts and config.cuts not in own:
                raise WhisperFlowError(
                    f"config {config.label!r}: cuts={config.cuts} names no other WhisperFlow row that cuts its own "
                    f"rounds; rows: {', '.join(sorted(own)) or 'none'}"
                )

    def paces(self, draw: int = 1) -> list[tuple[str, str]]:
        """(pace, role) pairs of a draw; role is "measured" or "lower_bound" (the unaware pace gives the same
        words every time, so only the first draw runs it)."""
        runs = [(self.pace, "measured")]
        if self.lower_bound and self.pace != "unaware" and draw == 1:
            runs.append(("unaware", "lower_bound"))
        return runs

    def configs_of_draw(self, draw: int) -> list[BenchConfig]:
        """The configurations in the order a draw runs them: each draw starts one further along, so that no
        configuration always runs first or last; one that replays another's rounds (cuts) runs right after it."""
        own = [c for c in self.configs if not c.cuts]
        shift = (draw - 1) % len(own)
        return [r for c in own[shift:] + own[:shift] for r in [c, *(x for x in self.configs if x.cuts == c.label)]]


def meta_record(plan: BenchPlan) -> dict:
    return {
        "type": "meta",
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "manifest": os.path.relpath(plan.manifest),  # relative: results are shared and committed
        "pace": plan.pace,
        "lower_bound": plan.lower_bound and plan.pace != "unaware",
        "draws": plan.draws,
        "reference_model": plan.reference_model,
        "configs": [c.label for c in plan.configs],
        "files": [e.name for e in plan.entries],
        "machine": {
            "system": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "blas": loaded_blas(),
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
    """Everything the plan asks for that the log does not already hold: draw by draw, kind by kind, every
    configuration on the kind's files before the next kind, so that the machine's load drifts over all rows alike."""
    log.append(meta_record(plan))
    timed = offline_pass(plan, log)
    kind = attrgetter("kind")
    per_kind = [list(group) for _, group in groupby(sorted(plan.entries, key=kind), key=kind)]
    for config in plan.configs:
        if config.cuts and plan.pace == "realtime":
            note = (
                f"{config.label} replays {config.cuts}'s rounds in each draw (its audio cut at the same instants, on "
                f"the same clock): its latency is {config.cuts}'s, and its WER differs from it by the settings only"
            )
            if not log.has(type="note", text=note):
                log.append({"type": "note", "text": note})
    for draw in range(1, plan.draws + 1):
        for pace, role in plan.paces(draw):
            for entries in per_kind:
                for config in plan.configs_of_draw(draw):
                    run = _Run(config, pace, role, draw)
                    todo = [e for e in entries if not log.has(type="stream", **run.key(e))]
                    if todo and config.peer:
                        _run_peer(plan.peer_script, run, todo, timed, log)
                    elif todo:
                        _run_worker(run, todo, timed, log)


@dataclass(frozen=True)
class _Run:
    """One configuration at one pace in one draw."""

    config: BenchConfig
    pace: str
    role: str
    draw: int

    def key(self, entry: ManifestEntry) -> dict:
        """The fields that name this run's record of a file in the log."""
        return {"config": self.config.label, "role": self.role, "draw": self.draw, "file": entry.name}

    def record(self, entry: ManifestEntry, settings: dict, streamed: dict, timed: TimedReference) -> dict:
        """The log's record of a file: what the stream reported (words, final records, totals) and its scores."""
        words, finals = word_events(streamed["words"]), final_events(streamed.get("finals", []))
        return {
            "type": "stream",
            **self.key(entry),
            "settings": settings,
            "word_list": self.config.words,  # which list (tools.bench.word_lists.LISTS); "words" are its words
            "pace": self.pace,
            "kind": entry.kind,
            "duration_s": entry.duration_s,
            **streamed,
            **score_stream(words, entry.reference, timed),
            **score_finals(words, finals, entry.reference),
            **listed_scores(entry.name, entry.reference, words, finals),
        }


def _run_peer(
    script: Path | None,
    run: _Run,
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
    for entry in tqdm(entries, desc=f"{PEER_LABEL} · {run.pace} · {entries[0].kind}", unit="file"):
        streamed = run_peer(script, entry.path, model_dir, run.pace)
        log.append(run.record(entry, PEER_SETTINGS, streamed, timed[entry.name]))


def _run_worker(run: _Run, entries: list[ManifestEntry], timed: dict[str, TimedReference], log: ResultsLog) -> None:
    config, pace = run.config, run.pace
    settings = asdict(config.stream.resolved())
    job = {
        "config": asdict(config.stream),
        "pace": pace,
        "files": [str(e.path) for e in entries],
        "words": [listed_words(e.name, config.words) for e in entries],
    }
    if config.cuts and pace == "realtime":
        job["cuts"] = [_cuts_of(log, replace(run, config=replace(config, label=config.cuts)), e) for e in entries]
    done_s = 0.0
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as errors,
        tqdm(
            total=round(sum(e.duration_s for e in entries), 1),
            unit="audio s",
            desc=f"{config.label} · {pace} · {entries[0].kind}" + (f" · draw {run.draw}" if run.draw > 1 else ""),
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
                    kept = ("words", "finals", "round_s", "done", "beam", "peak_rss_mb", "cuts", "machine")
                    streamed = {k: message[k] for k in kept if k in message}
                    log.append(run.record(entry, settings, streamed, timed[entry.name]))
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


def _cuts_of(log: ResultsLog, run: _Run, entry: ManifestEntry) -> dict:
    """Where the run's rounds cut a file's audio, and on what clock (the worker's ``cuts``), from the log."""
    key = run.key(entry)
    found = [r for r in log.records if r.get("type") == "stream" and all(r.get(k) == v for k, v in key.items())]
    if not found or "cuts" not in found[-1]:
        raise WhisperFlowError(f"no rounds of {run.config.label!r} on {entry.name} in draw {run.draw} to replay")
    return found[-1]["cuts"]

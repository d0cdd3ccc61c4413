"""The call row of the bench: `whisperflow call-bench OUT [--seeds 0 1 2] [--pace unaware]`.

For each seed: the fixture (tools/call/fixture.py), the call without echo and at each echo level, recorded once
without the guard (scored with and without it replayed, tools/call/score.py), and each side streamed alone; every
run in a process of its own, its CPU and peak RSS measured by /usr/bin/time. A run whose JSONL is already there is
not run again. Writes OUT/call.md (the table, means over the seeds) and OUT/call.json (every figure).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

from tools.bench import machine
from tools.call.fixture import ECHO_DB, build_call, read_recipe, write_call
from tools.call.score import score

TIME = "/usr/bin/time"
LEVELS = ("noecho", *(f"echo{db:g}" for db in ECHO_DB))  # your tracks (tools/call/fixture.py)
LEVEL_NAMES = {"noecho": "none", **{f"echo{db:g}": f"-{db:g} dB" for db in ECHO_DB}}


def _stream(args: list[str], jsonl: Path, pace: str) -> dict:
    """Run `whisperflow stream ARGS` once (unless jsonl is there): its CPU seconds and peak RSS (MB)."""
    cost = jsonl.with_suffix(".cost.json")
    if not (jsonl.exists() and cost.exists()):
        cmd = [sys.executable, "-m", "cli.main", "stream", *args, "--pace", pace, "--jsonl", str(jsonl)]
        with machine.watched() as state:
            done = subprocess.run([TIME, "-f", "%U %S %M", *cmd], capture_output=True, text=True, check=True)
        user, system, rss_kb = done.stderr.strip().splitlines()[-1].split()
        cost.write_text(
            json.dumps({"cpu_s": float(user) + float(system), "rss_mb": int(rss_kb) / 1024, "machine": state})
        )
    return json.loads(cost.read_text())


def run_seed(out: Path, seed: int, pace: str, cancel: bool = True) -> dict:
    """One seed's runs and scores; cancel: the calls with the echo canceller (as shipped) or without."""
    fixture = out / f"seed{seed}"
    if not (fixture / "them.wav").exists():
        write_call(build_call(read_recipe(), seed=seed), fixture)
    audio_s = sf.info(fixture / "them.wav").duration
    row: dict = {"alone": {}}
    for side, track in (("you", "you-noecho"), ("them", "them")):
        jsonl = fixture / f"alone-{side}.jsonl"
        cost = _stream([str(fixture / f"{track}.wav")], jsonl, pace)
        row["alone"][side] = {**cost, **score(jsonl, fixture, alone=side)[side]}
    for level in LEVELS:
        jsonl = fixture / f"call-{level}.jsonl"
        you, them = fixture / f"you-{level}.wav", fixture / "them.wav"
        flags = ["--no-echo-guard", "--debug-rounds", *([] if cancel else ["--no-echo-cancel"])]
        cost = _stream(["--you", str(you), "--them", str(them), *flags], jsonl, pace)
        row[level] = {
            **cost,
            "cpu_per_audio_s": cost["cpu_s"] / audio_s,
            "no_guard": score(jsonl, fixture),
            "guard": score(jsonl, fixture, guard=True),
        }
    return row


def _mean(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _fmt(x: float | None, pct: bool = False) -> str:
    return "–" if x is None else f"{100 * x:.1f} %" if pct else f"{x:.2f}"


def table(rows: list[dict]) -> str:
    """One line per echo level and side: attribution, labels, echo, WER (alone), latency, the pair's CPU and RSS."""
    lines = [
        "| echo | side | attribution (no guard → guard) | words recognized, labelled right (guard) | Them's words as "
        "You (no guard → guard) | WER guard (alone) | confirmed / shown latency s | CPU s per audio s (pair) | "
        "peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key in LEVELS:
        for side in ("you", "them"):
            m = lambda *path, key=key: _mean([_dig(r[key], path) for r in rows])  # noqa: E731
            alone = _mean([r["alone"][side]["wer"] for r in rows])
            echo = f"{_fmt(m('no_guard', 'echo'), True)} → {_fmt(m('guard', 'echo'), True)}" if side == "you" else ""
            lines.append(
                f"| {LEVEL_NAMES[key]} | {side} | {_fmt(m('no_guard', side, 'attribution'), True)} → "
                f"{_fmt(m('guard', side, 'attribution'), True)} | {_fmt(m('guard', side, 'labelled'), True)} | "
                f"{echo} | {_fmt(m('guard', side, 'wer'), True)} "
                f"({_fmt(alone, True)}) | {_fmt(m('guard', side, 'confirmed_latency_s'))} / "
                f"{_fmt(m('guard', side, 'shown_latency_s'))} | {_fmt(m('cpu_per_audio_s'))} | {_fmt(m('rss_mb'))} |"
            )
    seen = machine.summarize([r[key]["machine"] for r in rows for key in LEVELS if "machine" in r[key]])
    if seen:
        lines.append("\n" + machine.describe(seen, "calls"))
    return "\n".join(lines) + "\n"


def _dig(d: dict, path: tuple) -> float | None:
    for key in path:
        d = d[key]
    return d


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="whisperflow call-bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="fixture draws (default: 0)")
    parser.add_argument("--pace", default="unaware", choices=("realtime", "fast", "unaware"))
    parser.add_argument(
        "--echo-cancel",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the calls with the echo canceller (default) or without it",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [run_seed(args.out, seed, args.pace, args.echo_cancel) for seed in args.seeds]
    (args.out / "call.json").write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "call.md").write_text(table(rows))
    print(table(rows))
    return 0

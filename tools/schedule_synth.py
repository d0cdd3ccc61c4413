"""`whisperflow schedule-synth`: a replay schedule for a machine whose rounds take the times another run measured.

A bench run records each round's compute time (``round_s`` in results.jsonl). This rebuilds the realtime loop
around those times with another minimum chunk: the audio arrives in 20 ms blocks (as PacedFileSource gives it),
each round starts once the previous one has ended and min_chunk of new audio has arrived, takes everything that
has, and takes the next recorded round time. The result is a schedule that ``--pace replay:`` streams round for
round on any machine, so the words a minimum chunk gives on, say, a GPU's round times can be studied on a CPU.

    whisperflow schedule-synth docs/bench/gpu/results.jsonl --config serial --min-chunk 0.15 --out c15.jsonl
    whisperflow stream --policy flow --pace replay:c15.jsonl --jsonl words.jsonl AUDIO

--offset N starts at the recorded round N (the times are taken in turn, from the second round on: the first
round of a run pays its warm-up), for a second schedule with the same statistics.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from engine.audio.sources import PACED_BLOCK_S
from engine.errors import WhisperFlowError
from engine.runtime.safe_write import write_file_atomic


def synthesize(round_s: list[float], duration_s: float, min_chunk_s: float, offset: int = 0) -> list[dict]:
    """Round events (buffer_end, clock) and a done event for the realtime loop with these round times."""
    if not round_s:
        raise WhisperFlowError("the recorded run has no round times")
    events: list[dict] = []
    clock = end = 0.0
    while end < duration_s:
        arrived = math.floor(clock / PACED_BLOCK_S + 1e-9) * PACED_BLOCK_S
        if arrived - end < min_chunk_s - 1e-9:  # wait for the block that completes min_chunk, or the end
            clock = arrived = min(math.ceil((end + min_chunk_s) / PACED_BLOCK_S - 1e-9) * PACED_BLOCK_S, duration_s)
        end = duration_s if duration_s - arrived < PACED_BLOCK_S else arrived
        clock += round_s[(offset + len(events)) % len(round_s)]
        events.append({"type": "round", "buffer_end": round(end, 5), "clock": round(clock, 5)})
    events.append({"type": "done", "wall_s": round(clock, 5)})
    return events


def recorded_rounds(results: Path, config: str) -> tuple[list[float], float]:
    """The round times after the first, and the audio's duration, of config's stream row in a bench results.jsonl."""
    try:
        rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise WhisperFlowError(f"cannot read {results}: {exc}") from exc
    row = next((r for r in rows if r.get("type") == "stream" and r.get("config") == config), None)
    if row is None:
        found = sorted({r["config"] for r in rows if r.get("type") == "stream"})
        raise WhisperFlowError(
            f"{results} has no stream row for config {config!r} (it has: {', '.join(found) or 'none'})"
        )
    if not row.get("round_s") or "duration_s" not in row:
        raise WhisperFlowError(f"{results}: the row {config!r} has no round times (a peer's row has none)")
    return row["round_s"][1:], float(row["duration_s"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="whisperflow schedule-synth", description=__doc__.splitlines()[0])
    p.add_argument("results", type=Path, help="a bench results.jsonl")
    p.add_argument("--config", required=True, help="the row whose round times to use")
    p.add_argument("--min-chunk", type=float, required=True, help="new audio a round waits for, seconds")
    p.add_argument("--offset", type=int, default=0, help="start at this recorded round time")
    p.add_argument("--out", type=Path, required=True, help="the schedule to write (JSONL)")
    args = p.parse_args(argv)
    if not args.min_chunk > 0:
        p.error("--min-chunk must be positive")
    if args.offset < 0:
        p.error("--offset must be 0 or more")
    try:
        round_s, duration_s = recorded_rounds(args.results, args.config)
        events = synthesize(round_s, duration_s, args.min_chunk, args.offset)
        write_file_atomic(args.out, "".join(json.dumps(e) + "\n" for e in events).encode("utf-8"))
    except WhisperFlowError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.out}: {len(events) - 1} rounds over {duration_s:g} s")
    return 0

"""The ``replay:RUN.jsonl`` pace: re-run a recorded stream round for round.

Each round gets exactly the audio up to the recorded ``buffer_end`` and the stream clock is the
recorded one, so a run recorded at realtime pace (words, latencies, stalls) repeats deterministically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.errors import WhisperFlowError

PREFIX = "replay:"


@dataclass(frozen=True)
class RecordedRun:
    """A recorded run's round boundaries (stream seconds), their clocks, and the clock of the final flush."""

    ends: list[float]
    clocks: list[float]
    finish_clock: float


def is_replay(pace: str) -> bool:
    return pace.startswith(PREFIX)


def load_recorded(pace_or_path: str | Path) -> RecordedRun:
    """The rounds of a stream JSONL (``replay:PATH`` or PATH) written with round events."""
    path = Path(str(pace_or_path).removeprefix(PREFIX))
    try:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise WhisperFlowError(f"cannot replay {path}: {exc}") from exc
    rounds = [r for r in records if r.get("type") == "round"]
    if not rounds:
        raise WhisperFlowError(f"cannot replay {path}: it has no round events (record with --jsonl)")
    done = next((r for r in records if r.get("type") == "done"), None)
    clocks = [float(r["clock"]) for r in rounds]
    return RecordedRun([float(r["buffer_end"]) for r in rounds], clocks, float(done["wall_s"]) if done else clocks[-1])

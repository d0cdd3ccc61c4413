"""Thread-allocation profiles: what calibration chose for this machine and model, saved in the config dir."""

from __future__ import annotations

import json
import os
import platform
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from engine.runtime.paths import config_dir
from engine.runtime.safe_write import write_file_atomic


@dataclass(frozen=True)
class Allocation:
    """How the two pipeline executors share the machine.

    pipeline: overlap encoding of round n with decoding of round n-1 (two executors), or run serially.
    blas_threads: OpenBLAS threads for matmuls (CPU backend); 0 leaves the library default.
    handoff_tokens: tokens the accelerator executor decodes after the prompt prefill before it hands
        the round to the CPU executor and starts encoding the next one.
    decoder: the device the CPU executor decodes on ("cpu", or "gpu" to keep decoding on the GPU too).
    """

    pipeline: bool = False
    blas_threads: int = 0
    handoff_tokens: int = 0
    decoder: str = "cpu"

    def label(self) -> str:
        threads = f"{self.blas_threads} BLAS thr" if self.blas_threads else "default BLAS thr"
        if not self.pipeline:
            return f"serial, {threads}"
        return f"pipeline, {threads}, handoff {self.handoff_tokens} tok, decode on {self.decoder}"

    def describe(self) -> str:
        """The allocation in a person's words (label() is the technical one)."""
        if not self.pipeline:
            how = "one step at a time"
        else:
            where = "the graphics chip" if self.decoder == "gpu" else "the processor"
            how = f"listening and writing overlapped (writing on {where})"
        threads = {0: "", 1: ", 1 thread"}.get(self.blas_threads, f", {self.blas_threads} threads")
        return how + threads


@dataclass(frozen=True)
class CalibrationRow:
    """One allocation's measured result on the calibration sample."""

    allocation: Allocation
    mean_latency_s: float | None
    p90_latency_s: float | None
    wer: float
    cpu_s_per_audio_s: float
    watts: float | None
    energy_source: str
    accepted: bool = True


@dataclass
class Profile:
    """The chosen allocation for one machine and model, with every row measured and why it was chosen."""

    machine: str
    model: str
    allocation: Allocation
    rows: list[CalibrationRow] = field(default_factory=list)
    created: str = field(default_factory=lambda: datetime.now().astimezone().isoformat(timespec="seconds"))
    reason: str = ""  # in a person's words (empty in profiles saved before reasons were kept)


def machine_id() -> str:
    """A stable name for this machine's hardware: host, processor and core count."""
    processor = platform.processor() or platform.machine()
    return f"{platform.node()}|{processor}|{os.cpu_count()}"


def _path(model: str, machine: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in f"{machine}__{model}")
    return config_dir() / "profiles" / f"{safe}.json"


def _row_from(d: dict) -> CalibrationRow:
    return CalibrationRow(**{**d, "allocation": Allocation(**d["allocation"])})


def save_profile(profile: Profile) -> Path:
    path = _path(profile.model, profile.machine)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file_atomic(path, json.dumps(asdict(profile), indent=1).encode("utf-8"))
    return path


def load_profile(model: str, machine: str | None = None) -> Profile | None:
    """The saved profile for model on this machine, or None (never calibrated, or unreadable)."""
    path = _path(model, machine or machine_id())
    try:
        d = json.loads(path.read_text())
        rows = [_row_from(r) for r in d["rows"]]
        return Profile(d["machine"], d["model"], Allocation(**d["allocation"]), rows, d["created"], d.get("reason", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return None

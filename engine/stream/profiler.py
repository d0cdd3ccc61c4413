"""The thread-allocation profiler behind `whisperflow calibrate` and the first-run wizard.

Every allocation that exists in our stack (serial or pipelined, BLAS threads, handoff tokens,
where the decoder runs) streams the bundled speech sample at real-time pace. Each is scored by
per-word latency against the sample's offline word timings, with word error rate guarded. Of the
accepted allocations nearly as fast as the fastest (LATENCY_MARGIN), the one using the least power is
saved as this machine's profile for the model, with the reason in a person's words.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.audio.files import load_audio
from engine.audio.sources import PacedFileSource
from engine.model.whisper_model import LoadedModel
from engine.runtime.mlx_thread import gpu_available
from engine.runtime.paths import SAMPLE_AUDIO as SAMPLE
from engine.scoring.latency import summarize, word_latencies
from engine.scoring.wer import wer_counts
from engine.session.events import WordEvent
from engine.stream.config import StreamConfig, build_processor
from engine.stream.offline import transcribe_audio
from engine.stream.profiles import Allocation, CalibrationRow, Profile, machine_id, save_profile
from engine.stream.round import Transcriber
from engine.stream.runner import run_stream

WER_SLACK = 0.05  # an allocation may be at most 5 points worse than the best WER to be chosen
LATENCY_MARGIN = 0.10  # an allocation this much slower than the fastest still counts as fast enough

Progress = Callable[[int, int, CalibrationRow | None], None]


def candidate_allocations(has_gpu: bool | None = None) -> list[Allocation]:
    """The allocations worth measuring on this machine."""
    if has_gpu is None:
        has_gpu = gpu_available()
    if has_gpu:
        return [Allocation(False)] + [
            Allocation(True, 0, handoff, decoder) for decoder in ("cpu", "gpu") for handoff in (0, 4, 8)
        ]
    return [Allocation(False, threads) for threads in (1, 2)] + [
        Allocation(True, threads, handoff) for threads in (1, 2) for handoff in (0, 4)
    ]


def measure(
    loaded: LoadedModel, allocation: Allocation, sample: Path, reference, cancel: threading.Event
) -> CalibrationRow:
    """Stream the sample once under allocation, at real-time pace."""
    from engine.power import default_meter

    config = StreamConfig.for_allocation(allocation, model=loaded.name, policy="flow")
    processor, _ = build_processor(loaded, config)
    events: list[WordEvent] = []
    interval = default_meter().start()
    try:
        done = run_stream(
            processor,
            PacedFileSource(sample),
            pace="realtime",
            on_update=lambda u: events.extend(u.confirmed),
            stop=cancel,
        )
    finally:
        energy = interval.stop()
        processor.close()
    stats = summarize([w.latency for w in word_latencies(reference, events)])
    wer = wer_counts(" ".join(w.text for w in reference), " ".join(e.text for e in events)).wer or 0.0
    return CalibrationRow(
        allocation, stats.mean, stats.p90, wer, done.cpu_s / max(done.audio_s, 1e-9), energy.mean_watts, energy.label()
    )


@dataclass(frozen=True)
class Choice:
    """The allocation calibration keeps, every row marked accepted or not (WER), and why, in a person's words."""

    allocation: Allocation
    rows: list[CalibrationRow]
    reason: str


def _power(row: CalibrationRow, in_watts: bool) -> float:
    return row.watts if in_watts else row.cpu_s_per_audio_s


def _say_power(row: CalibrationRow, in_watts: bool) -> str:
    return f"{row.watts:.1f} W" if in_watts else f"{row.cpu_s_per_audio_s:.2f} CPU s per audio s"


def choose(rows: list[CalibrationRow]) -> Choice:
    """Among rows whose WER is within WER_SLACK of the best and whose mean latency is within LATENCY_MARGIN of the
    fastest of them, the one using the least power (watts if measured, else CPU s per audio s)."""
    measured = [r for r in rows if r.mean_latency_s is not None]
    if not measured:
        return Choice(Allocation(False), rows, "no setting could be measured, so the safe one is used")
    best_wer = min(r.wer for r in measured)
    marked = [
        CalibrationRow(**{**r.__dict__, "accepted": r.mean_latency_s is not None and r.wer <= best_wer + WER_SLACK})
        for r in rows
    ]
    accepted = [r for r in marked if r.accepted]
    fastest = min(accepted, key=lambda r: r.mean_latency_s)
    near = [r for r in accepted if r.mean_latency_s <= fastest.mean_latency_s * (1 + LATENCY_MARGIN)]
    in_watts = all(r.watts is not None for r in near)  # else CPU time stands for power
    winner = min(near, key=lambda r: (_power(r, in_watts), r.mean_latency_s))
    return Choice(winner.allocation, marked, _reason(winner, fastest, near, accepted, in_watts))


def _reason(
    winner: CalibrationRow,
    fastest: CalibrationRow,
    near: list[CalibrationRow],
    accepted: list[CalibrationRow],
    in_watts: bool,
) -> str:
    """Why winner was chosen, in a person's words (shown with the profile)."""
    margin = f"{round(100 * LATENCY_MARGIN)} %"
    said = f"{winner.allocation.describe()}: {winner.mean_latency_s:.2f} s"
    if winner is not fastest:
        return (
            f"{said}, within {margin} of the fastest ({fastest.mean_latency_s:.2f} s) "
            f"at {_say_power(winner, in_watts)} instead of {_say_power(fastest, in_watts)}"
        )
    if len(near) > 1:
        return f"{said}, the fastest, and at {_say_power(winner, in_watts)} the least power of those within {margin}"
    if len(accepted) > 1:
        return f"{said}, the fastest; no other setting came within {margin} of it"
    return f"{said}, the only setting measured with few enough word errors"


def calibrate(
    loaded: LoadedModel,
    *,
    sample: Path = SAMPLE,
    allocations: list[Allocation] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> Profile | None:
    """Measure every allocation, save and return the profile; None when cancelled."""
    cancel = cancel or threading.Event()
    allocations = allocations or candidate_allocations()
    reference = transcribe_audio(Transcriber(loaded), load_audio(sample))
    rows: list[CalibrationRow] = []
    for i, allocation in enumerate(allocations):
        if progress:
            progress(i, len(allocations), rows[-1] if rows else None)
        row = measure(loaded, allocation, sample, reference, cancel)
        if cancel.is_set():
            return None
        rows.append(row)
    if progress:
        progress(len(allocations), len(allocations), rows[-1])
    choice = choose(rows)
    profile = Profile(machine_id(), loaded.name, choice.allocation, choice.rows, reason=choice.reason)
    save_profile(profile)
    return profile


def table(profile: Profile) -> str:
    """The measured allocations as a Markdown table (the paper's Figure 12, as text)."""

    def f(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    lines = [
        "| allocation | mean latency s | p90 latency s | WER | CPU s / audio s | watts | chosen |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in profile.rows:
        chosen = "**yes**" if r.allocation == profile.allocation else ("" if r.accepted else "rejected (WER)")
        lines.append(
            f"| {r.allocation.label()} | {f(r.mean_latency_s)} | {f(r.p90_latency_s)} | {100 * r.wer:.1f}% "
            f"| {r.cpu_s_per_audio_s:.2f} | {f(r.watts)} ({r.energy_source}) | {chosen} |"
        )
    return "\n".join(lines)


def plot(profile: Profile, path: Path) -> Path:
    """Mean per-word latency per allocation with its p90, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in profile.rows if r.mean_latency_s is not None]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.5))
    labels = [r.allocation.label() for r in rows]
    colors = ["#2a7" if r.allocation == profile.allocation else ("#bbb" if not r.accepted else "#58a") for r in rows]
    ax.barh(labels, [r.mean_latency_s for r in rows], color=colors)
    ax.scatter([r.p90_latency_s for r in rows], labels, marker="|", s=200, color="k", label="p90")
    ax.set_xlabel("per-word latency (s)")
    ax.set_title(f"Thread allocations, {profile.model} (green: chosen)")
    ax.legend(loc="lower right")
    ax.invert_yaxis()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""`whisperflow doctor` and `whisperflow calibrate`: what this machine runs on, and its best thread allocation."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from engine.model.store import DEFAULT_MODEL


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="measure every thread allocation on the bundled sample and save the best")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--png", metavar="PATH", help="also save the result as a bar chart")
    p.set_defaults(func=cmd_calibrate)
    sub.add_parser("doctor", help="backend, device, BLAS speed, power meter").set_defaults(func=cmd_doctor)


def cmd_doctor(_args) -> int:
    from engine.runtime.doctor import report

    for line in report():
        print(line)
    return 0


def cmd_calibrate(args) -> int:
    from tqdm import tqdm

    from engine.model.whisper_model import load_model
    from engine.stream.profiler import calibrate, candidate_allocations, plot, table

    loaded = load_model(args.model)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    allocations = candidate_allocations()
    with tqdm(total=len(allocations), desc="calibrating", unit="allocation") as bar:
        profile = calibrate(
            loaded, allocations=allocations, cancel=stop, progress=lambda i, n, row: bar.update(i - bar.n)
        )
    if profile is None:
        print("calibration cancelled; the previous profile (if any) is kept", file=sys.stderr)
        return 130
    print(table(profile))
    if args.png:
        print(f"plot: {plot(profile, Path(args.png))}", file=sys.stderr)
    print(f"chosen: {profile.allocation.label()} ({profile.reason})")
    return 0

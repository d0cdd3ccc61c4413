"""macOS with root: `powermetrics --samplers cpu_power,gpu_power`, the chip's own power estimate.

Apple silicon prints "Combined Power (CPU + GPU + ANE): N mW" (the SoC: package);
Intel Macs print "Intel energy model derived package power (CPUs+GT+SA): N W".
Each read takes one sample of ``interval_ms``.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from engine.power.meter import PowerUnavailable, SampledMeter

_LINE = re.compile(r"^\s*(CPU|GPU|ANE|Combined|Intel energy model derived package)\b[^:]*:\s*([0-9.]+)\s*(mW|W)\s*$")


@dataclass(frozen=True)
class PowermetricsSample:
    """Watts from one powermetrics sample; None where the sample has no such line."""

    cpu: float | None
    gpu: float | None
    ane: float | None
    package: float | None  # Combined (Apple silicon) or Intel package power


def parse_powermetrics(text: str) -> PowermetricsSample:
    """The power lines of one powermetrics sample (text output)."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            watts = float(match.group(2)) / (1000.0 if match.group(3) == "mW" else 1.0)
            found.setdefault(match.group(1), watts)
    package = found.get("Combined", found.get("Intel energy model derived package"))
    return PowermetricsSample(found.get("CPU"), found.get("GPU"), found.get("ANE"), package)


def package_watts(sample: PowermetricsSample) -> float:
    """The package's draw: the Combined/Intel line, else CPU + GPU + ANE."""
    if sample.package is not None:
        return sample.package
    parts = [w for w in (sample.cpu, sample.gpu, sample.ane) if w is not None]
    if not parts:
        raise PowerUnavailable("macOS powermetrics: the output has no power lines")
    return sum(parts)


def powermetrics_command(interval_ms: int) -> list[str]:
    return ["powermetrics", "--samplers", "cpu_power,gpu_power", "-i", str(interval_ms), "-n", "1"]


def run_powermetrics(interval_ms: int = 250) -> str:
    """One powermetrics sample's text (needs root)."""
    if os.geteuid() != 0:
        raise PowerUnavailable("macOS powermetrics: needs root (run WhisperFlow with sudo to use it)")
    command = powermetrics_command(interval_ms)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10 + interval_ms / 1000, check=True)
        return done.stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise PowerUnavailable(f"macOS powermetrics: `{' '.join(command)}` failed ({exc})") from exc


class PowermetricsMeter(SampledMeter):
    """The SoC (or Intel package) power as powermetrics estimates it."""

    covers = "package"
    source = "macOS powermetrics (cpu_power, gpu_power)"

    def __init__(self, capture: Callable[[], str] = run_powermetrics):
        self.capture = capture

    def watts_now(self) -> float:
        return package_watts(parse_powermetrics(self.capture()))


def open_powermetrics(capture: Callable[[], str] = run_powermetrics) -> PowermetricsMeter:
    """A powermetrics meter after one good sample; PowerUnavailable says why not."""
    meter = PowermetricsMeter(capture)
    meter.watts_now()
    return meter

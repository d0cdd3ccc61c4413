"""Pick the best power meter this machine offers, and describe the choice for `whisperflow doctor`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from engine.power.estimated import CpuTimeEstimateMeter
from engine.power.linux_battery import open_battery
from engine.power.linux_rapl import open_rapl
from engine.power.macos_ioreg import open_ioreg
from engine.power.macos_powermetrics import open_powermetrics
from engine.power.meter import PowerMeter, PowerUnavailable
from engine.power.nvml import open_nvml


def candidates(platform: str = sys.platform) -> list[Callable[[], PowerMeter]]:
    """Openers of the measured meters worth trying on this platform, best first."""
    if platform == "darwin":
        return [open_powermetrics, open_ioreg]
    if platform.startswith("linux"):
        return [open_rapl, open_battery, open_nvml]
    return [open_nvml]


@dataclass
class MeterSurvey:
    """Which meter is active, and why each better one was passed over."""

    active: PowerMeter
    skipped: list[str]  # why each better meter is unavailable


def survey_meters(platform: str = sys.platform) -> MeterSurvey:
    """Try each candidate in order; the first that opens is active, else the CPU-time estimate."""
    skipped = []
    for open_meter in candidates(platform):
        try:
            return MeterSurvey(open_meter(), skipped)
        except PowerUnavailable as exc:
            skipped.append(str(exc))
    return MeterSurvey(CpuTimeEstimateMeter(), skipped)


def default_meter() -> PowerMeter:
    """The best available meter; never fails (falls back to the CPU-time estimate)."""
    return survey_meters().active


def doctor_lines() -> list[str]:
    """Lines for `whisperflow doctor`: the active meter, then why the better ones are not used."""
    survey = survey_meters()
    lines = [f"power meter: {survey.active.describe()}"]
    lines += [f"  not used: {reason}" for reason in survey.skipped]
    return lines

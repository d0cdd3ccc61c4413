"""The power-meter interface: instantaneous readings, and energy measured over an interval.

A meter either keeps an energy counter (RAPL, NVML, CPU-time estimate: subclass
``CounterMeter``) or reports instantaneous power (battery, ioreg, powermetrics:
subclass ``SampledMeter``). ``meter.start()`` measures energy until ``stop()``:
counters are differenced, instantaneous watts are sampled on a thread and integrated.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

from engine.errors import WhisperFlowError

Covers = Literal["package", "cpu", "gpu", "system"]
COVERS_TEXT = {
    "package": "the processor package",
    "cpu": "CPU",
    "gpu": "GPU",
    "system": "the whole system",
}


class PowerUnavailable(WhisperFlowError):
    """A power source is absent, unreadable, or stopped answering."""


@dataclass(frozen=True)
class PowerReading:
    """One reading. ``watts``: mean power since the meter's previous reading (counter
    meters) or the instantaneous draw (sampled meters). ``joules_total``: the meter's
    running energy count (its zero is arbitrary: difference two readings), for meters
    that count energy."""

    watts: float
    joules_total: float | None
    source: str
    covers: Covers
    estimated: bool
    at: float  # time.monotonic()


@dataclass(frozen=True)
class EnergyUse:
    """Energy over a measured interval."""

    joules: float
    seconds: float
    source: str
    covers: Covers
    estimated: bool
    readings: int

    @property
    def mean_watts(self) -> float:
        return self.joules / self.seconds if self.seconds > 0 else 0.0

    def label(self) -> str:
        return f"{self.source}{' (estimated)' if self.estimated else ''}, covers {self.covers}"


class PowerMeter(ABC):
    """A source of power readings. Subclasses set ``source``, ``covers``, ``estimated``."""

    source: str
    covers: Covers
    estimated: bool = False

    @abstractmethod
    def read(self) -> PowerReading:
        """A reading now; raises PowerUnavailable if the source stopped answering."""

    def describe(self) -> str:
        kind = "estimated" if self.estimated else "measured"
        return f"{self.source} — covers {COVERS_TEXT[self.covers]}, {kind}"

    def start(self, period_s: float = 0.5) -> EnergyInterval:
        """Begin measuring energy; call ``stop()`` on the result."""
        return EnergyInterval(self, period_s)

    def _reading(self, watts: float, joules_total: float | None, at: float) -> PowerReading:
        return PowerReading(watts, joules_total, self.source, self.covers, self.estimated, at)


class CounterMeter(PowerMeter):
    """A meter over an energy counter. Subclasses give the counter, unwrapped."""

    FIRST_READ_GAP_S = 0.1

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: tuple[float, float] | None = None  # (joules, monotonic time) of the previous read

    @abstractmethod
    def energy_joules(self) -> float:
        """The energy counter in joules, never decreasing."""

    def read(self) -> PowerReading:
        with self._lock:
            if self._last is None:
                self._last = (self.energy_joules(), time.monotonic())
                time.sleep(self.FIRST_READ_GAP_S)
            joules, at = self.energy_joules(), time.monotonic()
            before, before_at = self._last
            self._last = (joules, at)
        watts = (joules - before) / (at - before_at) if at > before_at else 0.0
        return self._reading(watts, joules, at)


class SampledMeter(PowerMeter):
    """A meter over an instantaneous power value. Subclasses give the watts."""

    @abstractmethod
    def watts_now(self) -> float:
        """The draw right now, in watts."""

    def read(self) -> PowerReading:
        watts = self.watts_now()
        return self._reading(watts, None, time.monotonic())


class EnergyInterval:
    """Energy from start to ``stop()``: a thread reads the meter every ``period_s``.

    Counter meters: joules are the counter's difference (periodic reads keep wraps
    counted). Sampled meters: watts are integrated with the trapezoid rule.
    """

    def __init__(self, meter: PowerMeter, period_s: float):
        self.meter = meter
        self.period_s = period_s
        self._readings: list[PowerReading] = [meter.read()]
        self._error: PowerUnavailable | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="power-meter", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            try:
                self._readings.append(self.meter.read())
            except PowerUnavailable as exc:
                self._error = exc
                return

    def stop(self) -> EnergyUse:
        """Stop the thread and return the energy used since start."""
        self._stop.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        readings = self._readings + [self.meter.read()]
        first, last = readings[0], readings[-1]
        if first.joules_total is not None and last.joules_total is not None:
            joules = last.joules_total - first.joules_total
        else:
            joules = sum((a.watts + b.watts) / 2 * (b.at - a.at) for a, b in zip(readings, readings[1:]))
        m = self.meter
        return EnergyUse(joules, last.at - first.at, m.source, m.covers, m.estimated, len(readings))

"""The fallback: energy estimated from this process's CPU time, labelled "estimated".

joules = (user + system CPU seconds) × a fixed wattage per busy core. It ignores idle
power, frequency and the GPU; it only ranks configurations by how much CPU they burn.
"""

from __future__ import annotations

import psutil

from engine.power.meter import CounterMeter

WATTS_PER_BUSY_CORE = 10.0


class CpuTimeEstimateMeter(CounterMeter):
    """This process's CPU time × ``watts_per_core``."""

    covers = "cpu"
    estimated = True

    def __init__(self, watts_per_core: float = WATTS_PER_BUSY_CORE, process: psutil.Process | None = None):
        super().__init__()
        self.watts_per_core = watts_per_core
        self.process = process or psutil.Process()
        self.source = f"estimate from this process's CPU time × {watts_per_core:g} W per busy core"

    def energy_joules(self) -> float:
        times = self.process.cpu_times()
        return (times.user + times.system) * self.watts_per_core

"""Power meters: what the machine draws while captioning, with where each number comes from.

``default_meter()`` picks the best source available (RAPL, battery, NVML, powermetrics,
ioreg, else an estimate from CPU time); ``meter.start()`` … ``.stop()`` gives the energy.
"""

from engine.power.choose import default_meter, doctor_lines, survey_meters
from engine.power.meter import EnergyInterval, EnergyUse, PowerMeter, PowerReading, PowerUnavailable

__all__ = [
    "EnergyInterval",
    "EnergyUse",
    "PowerMeter",
    "PowerReading",
    "PowerUnavailable",
    "default_meter",
    "doctor_lines",
    "survey_meters",
]

"""Linux RAPL: the CPU packages' energy counters in /sys/class/powercap.

Each top-level zone ``intel-rapl:N`` named ``package-N`` counts its package's energy in
``energy_uj`` and wraps past ``max_energy_range_uj`` (AMD CPUs use the same zones).
Sub-zones (core, uncore, dram), ``psys`` and the ``intel-rapl-mmio`` duplicates are
left out so nothing is counted twice. Since Linux 5.10 the counters are root-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.power.meter import CounterMeter, PowerUnavailable

POWERCAP = Path("/sys/class/powercap")
_PACKAGE_ZONE = re.compile(r"^intel-rapl:\d+$")


@dataclass(frozen=True)
class RaplZone:
    """One package zone: its name and files."""

    name: str
    energy_file: Path
    max_range_uj: int

    def energy_uj(self) -> int:
        try:
            return int(self.energy_file.read_text().strip())
        except PermissionError as exc:
            raise PowerUnavailable(
                f"Linux RAPL: {self.energy_file} is readable only by root (run as root, or "
                f"`sudo chmod o+r {self.energy_file}`)"
            ) from exc
        except (OSError, ValueError) as exc:
            raise PowerUnavailable(f"Linux RAPL: cannot read {self.energy_file} ({exc})") from exc


def package_zones(root: Path = POWERCAP) -> list[RaplZone]:
    """The package zones under a powercap directory, in order; empty when there are none."""
    if not root.is_dir():
        return []
    zones = []
    for zone_dir in sorted(root.iterdir(), key=lambda p: p.name):
        if not _PACKAGE_ZONE.match(zone_dir.name):
            continue
        try:
            name = (zone_dir / "name").read_text().strip()
            max_range = int((zone_dir / "max_energy_range_uj").read_text().strip())
        except (OSError, ValueError):
            continue
        if name.startswith("package") and (zone_dir / "energy_uj").exists():
            zones.append(RaplZone(name, zone_dir / "energy_uj", max_range))
    return zones


class RaplMeter(CounterMeter):
    """Sum of the package zones' counters, each unwrapped on its own."""

    covers = "package"

    def __init__(self, zones: list[RaplZone]):
        super().__init__()
        self.zones = zones
        self.source = f"Linux RAPL ({', '.join(z.name for z in zones)})"
        self._last_uj: list[int] | None = None
        self._joules = 0.0

    def energy_joules(self) -> float:
        now = [z.energy_uj() for z in self.zones]
        if self._last_uj is not None:
            for zone, before, after in zip(self.zones, self._last_uj, now):
                delta = after - before
                self._joules += (delta if delta >= 0 else delta + zone.max_range_uj) / 1e6
        self._last_uj = now
        return self._joules


def open_rapl(root: Path = POWERCAP) -> RaplMeter:
    """A RAPL meter over ``root``; PowerUnavailable says why not."""
    zones = package_zones(root)
    if not zones:
        raise PowerUnavailable(f"Linux RAPL: no package zones in {root}")
    meter = RaplMeter(zones)
    meter.energy_joules()
    return meter

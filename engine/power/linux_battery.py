"""Linux battery: the whole system's draw while it runs on battery, from /sys/class/power_supply.

A discharging system battery reports ``power_now`` (µW), or ``voltage_now`` (µV) and
``current_now`` (µA). On mains power the battery's numbers say nothing about the
system's draw, so the meter is then unavailable. Peripheral batteries (a wireless
mouse: ``scope`` = Device) are ignored.
"""

from __future__ import annotations

from pathlib import Path

from engine.power.meter import PowerUnavailable, SampledMeter

POWER_SUPPLY = Path("/sys/class/power_supply")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def system_batteries(root: Path = POWER_SUPPLY) -> list[Path]:
    """The system batteries' directories under ``root``."""
    if not root.is_dir():
        return []
    return [
        d
        for d in sorted(root.iterdir(), key=lambda p: p.name)
        if _read(d / "type") == "Battery" and _read(d / "scope") in (None, "System") and _read(d / "present") != "0"
    ]


def battery_watts(battery: Path) -> float:
    """A discharging battery's power in watts."""
    try:
        power = _read(battery / "power_now")
        if power is not None:
            return abs(int(power)) / 1e6
        voltage, current = _read(battery / "voltage_now"), _read(battery / "current_now")
        if voltage is not None and current is not None:
            return int(voltage) / 1e6 * abs(int(current)) / 1e6
    except ValueError as exc:
        raise PowerUnavailable(f"Linux battery: {battery.name} reports a malformed value ({exc})") from exc
    raise PowerUnavailable(f"Linux battery: {battery.name} reports neither power_now nor voltage_now and current_now")


class BatteryMeter(SampledMeter):
    """The discharging system batteries' power: the whole system's draw."""

    covers = "system"

    def __init__(self, batteries: list[Path]):
        self.batteries = batteries
        self.source = f"Linux battery ({', '.join(b.name for b in batteries)})"

    def watts_now(self) -> float:
        discharging = [b for b in self.batteries if _read(b / "status") == "Discharging"]
        if not discharging:
            states = ", ".join(f"{b.name} {(_read(b / 'status') or 'unknown').lower()}" for b in self.batteries)
            raise PowerUnavailable(
                f"Linux battery: not discharging ({states}); "
                "the battery shows the system's draw only with the charger unplugged"
            )
        return sum(battery_watts(b) for b in discharging)


def open_battery(root: Path = POWER_SUPPLY) -> BatteryMeter:
    """A battery meter over ``root``; PowerUnavailable says why not (no battery, on mains)."""
    batteries = system_batteries(root)
    if not batteries:
        raise PowerUnavailable(f"Linux battery: no system battery in {root}")
    meter = BatteryMeter(batteries)
    meter.watts_now()
    return meter

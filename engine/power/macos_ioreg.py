"""macOS without root: the system's draw from the battery controller, via `ioreg -rn AppleSmartBattery`.

Apple-silicon Macs report ``PowerTelemetryData.SystemLoad`` (mW): the whole system's
draw, on battery or on the adapter. Older Macs give the battery's ``Voltage`` (mV) and
``InstantAmperage`` (mA, a signed value printed as unsigned 64-bit), which is the
system's draw only while discharging.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

from engine.power.meter import PowerUnavailable, SampledMeter

IOREG_COMMAND = ["ioreg", "-rn", "AppleSmartBattery"]
_PROPERTY = re.compile(r'^[\s|]*"([^"]+)" = (.*)$')
_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|<[0-9a-fA-F]*>|[{}()=,]|[^\s{}()=,"<>]+)')


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= (1 << 63) else value


class _ValueParser:
    """ioreg's value syntax: 12, Yes/No, "text", <hex>, {"key"=value,…}, (value,…)."""

    def __init__(self, text: str):
        self.tokens = [m.group(1) for m in _TOKEN.finditer(text)]
        self.pos = 0

    def take(self) -> str:
        if self.pos >= len(self.tokens):
            raise ValueError("value ends early")
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def value(self):
        token = self.take()
        if token == "{":
            items = {}
            while self.tokens[self.pos] != "}":
                key = self.take().strip('"')
                if self.take() != "=":
                    raise ValueError(f"expected = after {key!r}")
                items[key] = self.value()
                if self.tokens[self.pos] == ",":
                    self.pos += 1
            self.pos += 1
            return items
        if token == "(":
            items = []
            while self.tokens[self.pos] != ")":
                items.append(self.value())
                if self.tokens[self.pos] == ",":
                    self.pos += 1
            self.pos += 1
            return items
        if token.startswith('"'):
            return token[1:-1]
        if token in ("Yes", "No"):
            return token == "Yes"
        if re.fullmatch(r"-?\d+", token):
            return _signed64(int(token))
        return token


def parse_ioreg(text: str) -> dict:
    """The first registry object's properties from `ioreg -r…` text, values typed."""
    properties: dict = {}
    for line in text.splitlines():
        if properties and re.match(r"^[\s|]*}\s*$", line):
            break
        match = _PROPERTY.match(line)
        if match:
            try:
                properties[match.group(1)] = _ValueParser(match.group(2)).value()
            except (ValueError, IndexError):
                properties[match.group(1)] = match.group(2)
    return properties


def system_watts(properties: dict) -> tuple[float, str]:
    """(watts, how) from the battery's properties; PowerUnavailable if they cannot say."""
    telemetry = properties.get("PowerTelemetryData")
    if isinstance(telemetry, dict) and isinstance(telemetry.get("SystemLoad"), int):
        return telemetry["SystemLoad"] / 1000.0, "SystemLoad"
    if not properties:
        raise PowerUnavailable("macOS ioreg: no AppleSmartBattery (a desktop Mac has no battery to read)")
    if properties.get("ExternalConnected") is not False:
        raise PowerUnavailable(
            "macOS ioreg: on the power adapter and this Mac reports no SystemLoad "
            "(unplug it to measure from the battery)"
        )
    voltage = properties.get("Voltage")
    current = properties.get("InstantAmperage", properties.get("Amperage"))
    if not isinstance(voltage, int) or not isinstance(current, int):
        raise PowerUnavailable("macOS ioreg: the battery reports no Voltage and InstantAmperage")
    return voltage / 1000.0 * abs(current) / 1000.0, "voltage × current"


def run_ioreg() -> str:
    """`ioreg -rn AppleSmartBattery`'s output."""
    try:
        return subprocess.run(IOREG_COMMAND, capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise PowerUnavailable(f"macOS ioreg: `{' '.join(IOREG_COMMAND)}` failed ({exc})") from exc


class IoregBatteryMeter(SampledMeter):
    """The whole system's draw as the battery controller reports it."""

    covers = "system"

    def __init__(self, capture: Callable[[], str] = run_ioreg):
        self.capture = capture
        _, how = system_watts(parse_ioreg(capture()))
        self.source = f"macOS ioreg AppleSmartBattery ({how})"

    def watts_now(self) -> float:
        return system_watts(parse_ioreg(self.capture()))[0]


def open_ioreg(capture: Callable[[], str] = run_ioreg) -> IoregBatteryMeter:
    """An ioreg meter; PowerUnavailable says why not."""
    return IoregBatteryMeter(capture)

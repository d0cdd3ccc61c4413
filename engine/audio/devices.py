"""Audio inputs: microphones (PortAudio) and, on Linux, system audio (PulseAudio/PipeWire monitor sources).

A system source is opened through PortAudio's ALSA ``pulse`` device with PULSE_SOURCE naming the source
while the stream is opened (libpulse reads it when the plugin connects). Its id is ``"pulse:<source name>"``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

from engine.errors import DeviceError

PULSE_PREFIX = "pulse:"
PULSE_PORTAUDIO_DEVICE = "pulse"
_PACTL_TIMEOUT_S = 5.0
_pulse_env_lock = threading.Lock()


@dataclass(frozen=True)
class InputDevice:
    """One audio input a person can pick.

    id: PortAudio device index for microphones, ``"pulse:<source name>"`` for PulseAudio/PipeWire sources.
    """

    id: int | str
    name: str
    channels: int
    default_samplerate: float
    is_default: bool
    kind: Literal["microphone", "system"]


@dataclass(frozen=True)
class OpenSpec:
    """How to open an input with PortAudio: device index, its rate and channels, and the Pulse source if any."""

    device: InputDevice
    portaudio_index: int
    pulse_source: str | None


def portaudio() -> ModuleType:
    """sounddevice, PortAudio's binding, loaded when an input is first listed or opened, so that files stream and
    transcribe without a sound library. DeviceError, saying what to install, where PortAudio cannot be loaded."""
    try:
        import sounddevice
    except (OSError, ImportError) as exc:
        raise DeviceError(
            f"Audio inputs need the PortAudio library, which could not be loaded ({exc}). On Debian or "
            "Ubuntu: sudo apt-get install libportaudio2; then restart WhisperFlow."
        ) from exc
    return sounddevice


def rescan_devices() -> None:
    """Re-initialise PortAudio so inputs plugged in (or a sound server started) since then show up.

    Only call while no stream is open: PortAudio closes every stream when it terminates.
    """
    sd = portaudio()
    sd._terminate()
    sd._initialize()


def list_input_devices() -> list[InputDevice]:
    """Microphones and other capture devices PortAudio offers (PortAudio's current view; see rescan_devices)."""
    sd = portaudio()
    try:
        default_index = sd.query_devices(kind="input")["index"]
    except (sd.PortAudioError, ValueError):
        default_index = -1
    devices = []
    for info in sd.query_devices():
        if info["max_input_channels"] > 0:
            devices.append(
                InputDevice(
                    id=info["index"],
                    name=info["name"],
                    channels=info["max_input_channels"],
                    default_samplerate=float(info["default_samplerate"]),
                    is_default=info["index"] == default_index,
                    kind="microphone",
                )
            )
    return devices


def _pactl(*args: str) -> str | None:
    """pactl's stdout, or None when pactl is missing or no PulseAudio/PipeWire server answers."""
    if shutil.which("pactl") is None:
        return None
    try:
        done = subprocess.run(
            ["pactl", *args],
            capture_output=True,
            text=True,
            timeout=_PACTL_TIMEOUT_S,
            env={**os.environ, "LC_ALL": "C"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _parse_spec(spec: str) -> tuple[int, float]:
    """Channels and rate from a Pulse sample spec like ``s16le 2ch 44100Hz``."""
    channels, rate = 2, 44100.0
    for part in spec.split():
        if part.endswith("ch") and part[:-2].isdigit():
            channels = int(part[:-2])
        elif part.endswith("Hz") and part[:-2].isdigit():
            rate = float(part[:-2])
    return channels, rate


def parse_pactl_json_sources(text: str, default_source: str) -> list[InputDevice]:
    """Sources from ``pactl -f json list sources`` (PulseAudio >= 16, pipewire-pulse)."""
    devices = []
    for src in json.loads(text):
        channels, rate = _parse_spec(src.get("sample_specification", ""))
        is_monitor = bool(src.get("monitor_source")) or src.get("properties", {}).get("device.class") == "monitor"
        devices.append(
            InputDevice(
                id=PULSE_PREFIX + src["name"],
                name=src.get("description") or src["name"],
                channels=channels,
                default_samplerate=rate,
                is_default=src["name"] == default_source,
                kind="system" if is_monitor else "microphone",
            )
        )
    return devices


def parse_pactl_short_sources(text: str, default_source: str) -> list[InputDevice]:
    """Sources from ``pactl list short sources`` (older pactl without JSON); monitors end in ``.monitor``."""
    devices = []
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) < 4:
            continue
        name = fields[1]
        channels, rate = _parse_spec(fields[3])
        devices.append(
            InputDevice(
                id=PULSE_PREFIX + name,
                name=name,
                channels=channels,
                default_samplerate=rate,
                is_default=name == default_source,
                kind="system" if name.endswith(".monitor") else "microphone",
            )
        )
    return devices


def pulse_sources() -> list[InputDevice]:
    """Every PulseAudio/PipeWire source (microphones and monitors); empty without a server or pactl."""
    if not sys.platform.startswith("linux"):
        return []
    info = _pactl("-f", "json", "info")
    if info is not None:
        sources = _pactl("-f", "json", "list", "sources")
        if sources is not None:
            return parse_pactl_json_sources(sources, json.loads(info).get("default_source_name", ""))
    short = _pactl("list", "short", "sources")
    if short is None:
        return []
    return parse_pactl_short_sources(short, (_pactl("get-default-source") or "").strip())


def system_audio_sources() -> list[InputDevice]:
    """What the computer plays (monitor sources of PulseAudio/PipeWire sinks), openable by MicrophoneSource."""
    return [d for d in pulse_sources() if d.kind == "system"]


def call_system_source() -> InputDevice | None:
    """The system audio a call's other side comes from: the monitor of the default sink (what the computer plays
    through), else the first monitor; None without one."""
    monitors = system_audio_sources()
    sink = (_pactl("get-default-sink") or "").strip()
    return next((d for d in monitors if d.id == f"{PULSE_PREFIX}{sink}.monitor"), monitors[0] if monitors else None)


def _describe(devices: list[InputDevice]) -> str:
    if not devices:
        return "no audio inputs found"
    return "available inputs: " + "; ".join(f"{d.id}: {d.name}" for d in devices)


def _pulse_portaudio_index() -> int | None:
    for info in portaudio().query_devices():
        if info["name"] == PULSE_PORTAUDIO_DEVICE and info["max_input_channels"] > 0:
            return int(info["index"])
    return None


def _resolve_pulse(source_name: str) -> OpenSpec:
    sources = pulse_sources()
    match = next((d for d in sources if d.id == PULSE_PREFIX + source_name), None)
    if match is None:
        raise DeviceError(
            f"Audio input '{PULSE_PREFIX}{source_name}' not found; {_describe(list_input_devices() + sources)}."
        )
    index = _pulse_portaudio_index()
    if index is None:
        raise DeviceError(
            f"Cannot open '{match.name}': PortAudio has no ALSA 'pulse' device "
            "(install libasound2-plugins, or restart WhisperFlow after the sound server started)."
        )
    info = portaudio().query_devices(index)
    opened = InputDevice(
        id=match.id,
        name=match.name,
        channels=min(match.channels, info["max_input_channels"]),
        default_samplerate=float(info["default_samplerate"]),
        is_default=match.is_default,
        kind=match.kind,
    )
    return OpenSpec(opened, index, source_name)


def resolve_input(device: InputDevice | int | str | None) -> OpenSpec:
    """Find the input to open: None (default microphone), a PortAudio index or name, ``pulse:<source>``,
    or an InputDevice. Raises DeviceError listing the available inputs when there is no such device."""
    if isinstance(device, InputDevice):
        device = device.id
    if isinstance(device, str) and device.startswith(PULSE_PREFIX):
        return _resolve_pulse(device[len(PULSE_PREFIX) :])
    if isinstance(device, str) and device.strip().isdigit():
        device = int(device)
    mics = list_input_devices()
    if device is None:
        chosen = next((d for d in mics if d.is_default), None)
        if chosen is None:
            raise DeviceError(f"No default microphone; {_describe(mics + system_audio_sources())}.")
    elif isinstance(device, int):
        chosen = next((d for d in mics if d.id == device), None)
    else:
        exact = [d for d in mics if d.name == device]
        partial = [d for d in mics if device.lower() in d.name.lower()]
        chosen = exact[0] if exact else partial[0] if len(partial) == 1 else None
    if chosen is None:
        raise DeviceError(f"Audio input {device!r} not found; {_describe(mics + system_audio_sources())}.")
    return OpenSpec(chosen, int(chosen.id), None)


@contextmanager
def pulse_source_env(source_name: str | None) -> Iterator[None]:
    """Set PULSE_SOURCE while a stream is being opened (serialised: it is process-wide)."""
    if source_name is None:
        yield
        return
    with _pulse_env_lock:
        before = os.environ.get("PULSE_SOURCE")
        os.environ["PULSE_SOURCE"] = source_name
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("PULSE_SOURCE", None)
            else:
                os.environ["PULSE_SOURCE"] = before

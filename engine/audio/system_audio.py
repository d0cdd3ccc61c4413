"""Whether the computer's own audio (the other side of a call) can be captured here, and what to do if not.

Linux: PulseAudio/PipeWire monitor sources (engine.audio.devices), opened with MicrophoneSource. macOS 13+:
ScreenCaptureKit (engine.audio.screencapture). `system_audio_availability()` says which applies, or why neither does.
"""

from __future__ import annotations

import importlib.util
import platform
import shutil
import sys
from typing import NamedTuple

from engine.audio.devices import InputDevice, pulse_sources

PYOBJC_MODULES = ("ScreenCaptureKit", "CoreMedia", "libdispatch")
PYOBJC_PACKAGES = "pyobjc-framework-ScreenCaptureKit pyobjc-framework-libdispatch"
LOOPBACK_HINT = (
    "To caption what the Mac plays, install a loopback audio device such as BlackHole "
    "(https://existential.audio/blackhole/ or `brew install blackhole-2ch`), combine it with your "
    "speakers in a Multi-Output Device in Audio MIDI Setup, make that the sound output, and pick "
    '"BlackHole 2ch" as the input here.'
)
OTHER_OS_HINT = (
    "Capturing system audio works on macOS 13+ and on Linux with PulseAudio or PipeWire. Here, route "
    'the sound through a loopback input (such as "Stereo Mix" or VB-Audio Virtual Cable on Windows) '
    "and pick it as the input."
)


class Availability(NamedTuple):
    """Whether system audio can be captured, and a sentence for the source picker saying why (not)."""

    available: bool
    message: str


def macos_version() -> tuple[int, ...] | None:
    """This Mac's macOS version, or None when not on macOS."""
    release = platform.mac_ver()[0]
    return tuple(int(p) for p in release.split(".") if p.isdigit()) if release else None


def pyobjc_available() -> bool:
    """Whether the pyobjc frameworks ScreenCaptureKit capture needs are installed."""
    return all(importlib.util.find_spec(name) is not None for name in PYOBJC_MODULES)


def macos_availability(version: tuple[int, ...], has_pyobjc: bool) -> Availability:
    """Whether ScreenCaptureKit system audio works on this macOS version (with or without pyobjc), and why."""
    shown = ".".join(map(str, version))
    if version < (13,):
        return Availability(
            False,
            f"Capturing system audio needs macOS 13 (Ventura) or later; this Mac runs macOS {shown}. {LOOPBACK_HINT}",
        )
    if not has_pyobjc:
        return Availability(
            False,
            "Capturing system audio needs the ScreenCaptureKit bindings for Python, which "
            f"are not installed: `pip install {PYOBJC_PACKAGES}`.",
        )
    return Availability(
        True,
        "System audio through ScreenCaptureKit. macOS asks the first time for permission "
        "to record (System Settings › Privacy & Security › Screen & System Audio Recording).",
    )


def linux_availability(sources: list[InputDevice], have_pactl: bool) -> Availability:
    """From the PulseAudio/PipeWire sources (engine.audio.devices.pulse_sources()) and whether pactl is installed."""
    monitors = [s for s in sources if s.kind == "system"]
    if monitors:
        names = "; ".join(m.name for m in monitors)
        return Availability(
            True, f"System audio from the sound server's monitor source{'s' * (len(monitors) > 1)}: {names}."
        )
    if not have_pactl:
        return Availability(
            False,
            "System audio on Linux is recorded from a PulseAudio/PipeWire monitor source, "
            "but `pactl` is not installed to list them: install it (Debian/Ubuntu: "
            "`sudo apt install pulseaudio-utils`).",
        )
    if not sources:
        return Availability(
            False,
            "No PulseAudio or PipeWire sound server answered. System audio on Linux is "
            "recorded from the sound server's monitor source: start PipeWire (with "
            "pipewire-pulse) or PulseAudio.",
        )
    return Availability(
        False,
        "The sound server has no monitor source, so there is no output to listen to: "
        "connect or enable speakers or headphones (or add a virtual output: "
        "`pactl load-module module-null-sink`).",
    )


def system_audio_availability() -> Availability:
    """Whether system audio can be captured here, and a sentence saying why (not) and what to do.

    Unpacks as ``available, message = system_audio_availability()``. Linux: monitor sources of
    PulseAudio/PipeWire (engine.audio.devices.system_audio_sources(), opened with MicrophoneSource); macOS 13+:
    ScreenCaptureSource; older macOS: how to install a loopback device.
    """
    if sys.platform == "darwin":
        return macos_availability(macos_version() or (0,), pyobjc_available())
    if sys.platform.startswith("linux"):
        return linux_availability(pulse_sources(), shutil.which("pactl") is not None)
    return Availability(False, OTHER_OS_HINT)

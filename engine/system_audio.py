"""Can this computer caption its own sound (the other side of a call)? And if not, why not and what to do."""
from __future__ import annotations

import shutil
import sys

from .devices import InputDevice, pulse_sources
from .sources_macos import macos_availability, macos_version, pyobjc_available

OTHER_OS_HINT = ("Capturing system audio works on macOS 13+ and on Linux with PulseAudio or PipeWire. Here, route "
                 "the sound through a loopback input (such as \"Stereo Mix\" or VB-Audio Virtual Cable on Windows) "
                 "and pick it as the input.")


def linux_availability(sources: list[InputDevice], have_pactl: bool) -> tuple[bool, str]:
    """From the PulseAudio/PipeWire sources (engine.devices.pulse_sources()) and whether pactl is installed."""
    monitors = [s for s in sources if s.kind == "system"]
    if monitors:
        names = "; ".join(m.name for m in monitors)
        return True, f"System audio from the sound server's monitor source{'s' * (len(monitors) > 1)}: {names}."
    if not have_pactl:
        return False, ("System audio on Linux is recorded from a PulseAudio/PipeWire monitor source, but `pactl` "
                       "is not installed to list them: install it (Debian/Ubuntu: `sudo apt install "
                       "pulseaudio-utils`).")
    if not sources:
        return False, ("No PulseAudio or PipeWire sound server answered. System audio on Linux is recorded from "
                       "the sound server's monitor source: start PipeWire (with pipewire-pulse) or PulseAudio.")
    return False, ("The sound server has no monitor source, so there is no output to listen to: connect or "
                   "enable speakers or headphones (or add a virtual output: `pactl load-module module-null-sink`).")


def system_audio_availability() -> tuple[bool, str]:
    """Whether system audio can be captured here, and a sentence for the source picker saying why (not).

    Linux: monitor sources of PulseAudio/PipeWire (open one with MicrophoneSource(device)); macOS 13+:
    engine.sources_macos.ScreenCaptureSource; older macOS: how to install a loopback device.
    """
    if sys.platform == "darwin":
        return macos_availability(macos_version() or (0,), pyobjc_available())
    if sys.platform.startswith("linux"):
        return linux_availability(pulse_sources(), shutil.which("pactl") is not None)
    return False, OTHER_OS_HINT

"""The sources of a call's two sides: a file, an input device, or ``system`` (what the computer plays)."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.audio.sources import AudioSource, FileSource, MicrophoneSource, PacedFileSource
from engine.errors import DeviceError, WhisperFlowError

SYSTEM = "system"


def system_source(max_seconds: float | None = None) -> AudioSource:
    """The computer's audio: ScreenCaptureKit on a Mac; on Linux the monitor of the PulseAudio/PipeWire default
    sink."""
    if sys.platform == "darwin":
        from engine.audio.screencapture import ScreenCaptureSource

        return ScreenCaptureSource()
    from engine.audio.devices import call_system_source
    from engine.audio.system_audio import system_audio_availability

    monitor = call_system_source()
    if monitor is None:
        raise DeviceError(f"cannot capture the computer's audio: {system_audio_availability().message}")
    return MicrophoneSource(monitor.id, max_seconds=max_seconds)


def is_file(spec: str) -> bool:
    """Whether a SOURCE names a file (a path that exists, or one with a folder or an audio suffix)."""
    path = Path(spec)
    return path.exists() or "/" in spec or path.suffix.lower() in {".wav", ".flac", ".ogg", ".mp3", ".opus"}


def open_side(spec: str, pace: str, max_seconds: float | None = None) -> AudioSource:
    """The source a SOURCE names; a file paced as pace says (realtime: at its own speed)."""
    if spec == SYSTEM:
        return system_source(max_seconds)
    if is_file(spec):
        if not Path(spec).is_file():
            raise WhisperFlowError(f"no such audio file: {spec}")
        return PacedFileSource(spec) if pace == "realtime" else FileSource(spec)
    return MicrophoneSource(spec, max_seconds=max_seconds)


def same_source(a: str, b: str) -> bool:
    """Whether two SOURCEs name the same file or device."""
    if is_file(a) and is_file(b):
        return Path(a).resolve() == Path(b).resolve()
    return a.strip() == b.strip()


class CallSources(AudioSource):
    """Both sides of a call as one choice of source: ``you`` (the microphone) and ``them`` (the computer's audio).

    Streamed, each side is a source of its own (engine.stream.call); read as one source, e.g. by a level meter
    before a session, it is your side."""

    def __init__(self, you: AudioSource, them: AudioSource):
        self.you, self.them = you, them

    @property
    def name(self) -> str:
        return f"Call: you ({self.you.name}), them ({self.them.name})"

    def start(self) -> None:
        self.you.start()

    def read(self, max_samples: int | None = None, timeout: float = 0.1):
        return self.you.read(max_samples, timeout)

    def stop(self) -> None:
        self.you.stop()
        self.them.stop()

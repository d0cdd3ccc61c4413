"""The `virtual_mic` pytest fixture: a private PulseAudio server (tools/virtual_mic.py) whose default
source is a virtual microphone, with this process pointed at it through PULSE_SERVER."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soxr

from tools.virtual_mic import VirtualMic, start_virtual_mic, stop_virtual_mic

__all__ = ["VirtualMic", "aligned_correlation", "virtual_mic"]


def aligned_correlation(reference: np.ndarray, captured: np.ndarray, oversample: int = 4) -> tuple[float, float]:
    """Best normalised cross-correlation of `reference` (16 kHz) starting inside `captured`, and that lag
    in 16 kHz samples. Both are oversampled first so a fractional-sample delay does not lower the score."""
    ref = soxr.resample(reference, 1, oversample)
    cap = soxr.resample(captured, 1, oversample)
    size = 1 << (len(ref) + len(cap) - 2).bit_length()
    xcorr = np.fft.irfft(np.fft.rfft(cap, size) * np.conj(np.fft.rfft(ref, size)), size)[: len(cap)]
    best = int(np.argmax(xcorr))
    window = cap[best : best + len(ref)]
    ref = ref[: len(window)]
    denom = float(np.linalg.norm(ref) * np.linalg.norm(window))
    return (float(np.dot(ref, window)) / denom if denom else 0.0), best / oversample


def _rescan_portaudio() -> None:
    from engine.audio.devices import rescan_devices

    rescan_devices()


@pytest.fixture()
def virtual_mic() -> Iterator[VirtualMic]:
    """A private PulseAudio server whose default source is a virtual mic fed by its null sink."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the virtual microphone needs PulseAudio (Linux)")
    missing = [tool for tool in ("pulseaudio", "pactl", "paplay") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: apt-get install pulseaudio pulseaudio-utils libasound2-plugins")
    runtime_dir = Path(tempfile.mkdtemp(prefix="wf-pulse-"))
    try:
        proc, mic = start_virtual_mic(runtime_dir)
    except BaseException:
        shutil.rmtree(runtime_dir, ignore_errors=True)
        raise
    server_before = os.environ.get("PULSE_SERVER")
    os.environ["PULSE_SERVER"] = mic.server  # for libpulse inside PortAudio's ALSA pulse plugin
    try:
        _rescan_portaudio()  # PortAudio lists the ALSA "pulse" device only while a server answers
        yield mic
    finally:
        stop_virtual_mic(proc, mic)
        if server_before is None:
            os.environ.pop("PULSE_SERVER", None)
        else:
            os.environ["PULSE_SERVER"] = server_before
        _rescan_portaudio()
        shutil.rmtree(runtime_dir, ignore_errors=True)

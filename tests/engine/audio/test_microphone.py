"""MicrophoneSource and device listing against a real (virtual) PulseAudio microphone: no mocks.

Speech is played with paplay into a null sink; its monitor feeds a remapped source that PortAudio
records through the ALSA pulse plugin, exactly as it would record a USB microphone.
"""

import os
import signal
import time

import numpy as np
import pytest
import soundfile as sf
from pulse_mic import VirtualMic, aligned_correlation
from testdata import DATA

from engine.audio.devices import (
    PULSE_PREFIX,
    list_input_devices,
    parse_pactl_short_sources,
    pulse_sources,
    system_audio_sources,
)
from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import MicrophoneSource
from engine.errors import DeviceError

CLIP = DATA / "LJ001-0008.wav"  # 1.78 s, "has never been surpassed."


def record(sources: list[MicrophoneSource], seconds: float) -> list[np.ndarray]:
    """Read every source for `seconds` of wall time."""
    got: list[list[np.ndarray]] = [[] for _ in sources]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for parts, src in zip(got, sources):
            parts.append(src.read(timeout=0.02))
    return [np.concatenate(parts) for parts in got]


def wait_for_audio(sources: list[MicrophoneSource]) -> None:
    """Read until every source delivers (a capture stream can take a second to start flowing)."""
    flowing = [False] * len(sources)
    end = time.monotonic() + 10
    while not all(flowing) and time.monotonic() < end:
        for i, src in enumerate(sources):
            flowing[i] |= len(src.read(timeout=0.02)) > 0
    assert all(flowing), "no audio from the virtual devices within 10 s"


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0


def test_unknown_device_is_a_clear_error():
    for device in ("no such microphone", 4242, "pulse:no_such_source"):
        with pytest.raises(DeviceError, match="not found"):
            MicrophoneSource(device).start()


def test_unknown_device_lists_what_exists(virtual_mic: VirtualMic):
    with pytest.raises(DeviceError, match="not found") as err:
        MicrophoneSource("USB headset that is not here").start()
    assert "pulse" in str(err.value) and f"{PULSE_PREFIX}{virtual_mic.sink}.monitor" in str(err.value)


def test_devices_are_listed(virtual_mic: VirtualMic):
    mics = list_input_devices()
    assert any(d.name == "pulse" and d.kind == "microphone" and d.channels >= 1 for d in mics)
    assert sum(d.is_default for d in mics) == 1
    system = system_audio_sources()
    assert [d.id for d in system] == [f"{PULSE_PREFIX}{virtual_mic.sink}.monitor"]
    assert system[0].kind == "system" and system[0].name == "Monitor of WhisperFlowTestSink"
    everything = pulse_sources()
    mic = next(d for d in everything if d.id == f"{PULSE_PREFIX}{virtual_mic.mic}")
    assert mic.kind == "microphone" and mic.is_default and mic.default_samplerate == 44100
    # the fallback parser for pactl without JSON output sees the same sources
    short = parse_pactl_short_sources(virtual_mic.pactl("list", "short", "sources"), virtual_mic.mic)
    assert [(d.id, d.kind, d.is_default) for d in short] == [(d.id, d.kind, d.is_default) for d in everything]


def test_records_speech_from_the_virtual_mic_and_the_system_monitor(virtual_mic: VirtualMic):
    """Four inputs at once: the default input and PortAudio's "pulse" device (both the virtual mic),
    the sink's monitor (system audio), and the monitor of a sink nothing plays into."""
    virtual_mic.load_module("module-null-sink", "sink_name=wf_silent_sink")
    reference = load_audio(CLIP)
    default = MicrophoneSource()
    mic = MicrophoneSource(virtual_mic.device)
    monitor = MicrophoneSource(f"{PULSE_PREFIX}{virtual_mic.sink}.monitor")
    silent = MicrophoneSource(f"{PULSE_PREFIX}wf_silent_sink.monitor")
    sources = [default, mic, monitor, silent]
    with default, mic, monitor, silent:
        wait_for_audio(sources)
        player = virtual_mic.play(CLIP)
        captured = record(sources, len(reference) / SAMPLE_RATE + 1.2)
        assert player.wait(timeout=5) == 0, player.stderr.read()
    for name, audio in zip(("default", "pulse", "monitor"), captured[:3]):
        assert audio.dtype == np.float32 and audio.ndim == 1
        corr, lag = aligned_correlation(reference, audio)
        assert corr > 0.98, f"{name}: correlation {corr:.3f}"
        assert lag + len(reference) <= len(audio)  # the whole clip was captured
        gain = rms(audio[int(lag) : int(lag) + len(reference)]) / rms(reference)
        assert gain == pytest.approx(1.0, abs=0.1), f"{name}: level {gain:.2f}"
    assert rms(captured[3]) < 1e-4 and len(captured[3]) > 0.5 * SAMPLE_RATE
    assert monitor.name == "Monitor of WhisperFlowTestSink"


def test_unloading_the_device_mid_stream_raises_and_keeps_what_was_read(virtual_mic: VirtualMic, tmp_path):
    long_clip = tmp_path / "long.wav"
    speech = load_audio(CLIP)
    sf.write(long_clip, np.tile(speech, 4), SAMPLE_RATE)
    kept: list[np.ndarray] = []
    with MicrophoneSource(virtual_mic.device) as mic:
        wait_for_audio([mic])
        virtual_mic.play(long_clip)
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            kept.append(mic.read(timeout=0.05))
        virtual_mic.pactl("unload-module", str(virtual_mic.module_index("module-null-sink", virtual_mic.sink)))
        t = time.monotonic()
        with pytest.raises(DeviceError, match="stopped working"):
            while time.monotonic() - t < 5:
                kept.append(mic.read(timeout=0.05))
        assert time.monotonic() - t < 2.0
        with pytest.raises(DeviceError):  # it stays failed
            mic.read()
    audio = np.concatenate(kept)
    assert len(audio) > 1.5 * SAMPLE_RATE and rms(audio) > 0.02
    assert aligned_correlation(speech[:SAMPLE_RATE], audio)[0] > 0.98  # the speech already read is intact


def test_a_frozen_sound_server_is_reported_without_hanging(virtual_mic: VirtualMic):
    with MicrophoneSource(virtual_mic.device, stall_s=1.0) as mic:
        got = 0
        while got == 0:
            got += len(mic.read(timeout=0.5))
        os.kill(virtual_mic.pid, signal.SIGSTOP)
        try:
            t = time.monotonic()
            with pytest.raises(DeviceError, match="no audio arrived for 1 s"):
                while time.monotonic() - t < 5:
                    mic.read(timeout=0.05)
            assert time.monotonic() - t < 2.5
        finally:
            os.kill(virtual_mic.pid, signal.SIGCONT)


def test_max_seconds_and_stop_end_the_stream(virtual_mic: VirtualMic):
    with MicrophoneSource(virtual_mic.device, max_seconds=0.5) as mic:
        chunks = []
        while (chunk := mic.read(1000, timeout=0.5)) is not None:
            chunks.append(chunk)
    assert sum(map(len, chunks)) == 8000 and max(map(len, chunks)) <= 1000
    mic = MicrophoneSource(virtual_mic.device)
    mic.start()
    while len(mic.read(timeout=0.5)) == 0:
        pass
    mic.stop()
    tail = 0
    while (chunk := mic.read(timeout=0.5)) is not None:
        tail += len(chunk)
    assert tail < 0.5 * SAMPLE_RATE

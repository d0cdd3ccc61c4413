"""Whether system audio can be captured here, and the sentence that says why (not)."""

import sys

import pytest

from engine.audio.system_audio import linux_availability, macos_availability, system_audio_availability


def test_macos_availability_explains_what_is_missing():
    ok, reason = macos_availability((12, 7, 4), has_pyobjc=True)
    assert not ok and "macOS 13" in reason and "12.7.4" in reason and "BlackHole" in reason
    ok, reason = macos_availability((14, 5), has_pyobjc=False)
    assert not ok and "pip install pyobjc-framework-ScreenCaptureKit" in reason
    ok, reason = macos_availability((13, 0), has_pyobjc=True)
    assert ok and "Screen & System Audio Recording" in reason


def test_linux_availability_reasons():
    ok, reason = linux_availability([], have_pactl=False)
    assert not ok and "pulseaudio-utils" in reason
    ok, reason = linux_availability([], have_pactl=True)
    assert not ok and "PipeWire" in reason and "PulseAudio" in reason


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PulseAudio monitor sources are Linux")
def test_system_audio_available_with_a_pulseaudio_monitor(virtual_mic):
    availability = system_audio_availability()
    assert availability.available and "Monitor of WhisperFlowTestSink" in availability.message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PulseAudio monitor sources are Linux")
def test_system_audio_unavailable_without_a_sound_server(monkeypatch, tmp_path):
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-such-socket'}")
    ok, reason = system_audio_availability()
    assert not ok and "PulseAudio" in reason

"""Your track through PulseAudio's echo canceller (module-echo-cancel, WebRTC), with Them's track as the far end:
`whisperflow call-aec FIXTURE_DIR [--you you-echo10.wav]` writes ``<you>-aec.wav`` beside it.

A private PulseAudio server (tools/virtual_mic.py) gets a second null sink, the room, whose monitor is the
microphone; the canceller's source listens to it, and its sink (the speakers) plays Them. Your track plays into the
room while Them's plays into the canceller's sink, both in real time (the canceller runs at the sound server's
pace); the cancelled microphone is recorded and aligned back to your track's start.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

from engine.audio.files import SAMPLE_RATE, load_audio
from tools.virtual_mic import start_virtual_mic, stop_virtual_mic

ROOM = "wf_room"
EC_SOURCE, EC_SINK = "wf_ec", "wf_ec_sink"
ALIGN_S = 20.0  # the recording's start is found by cross-correlating this much of it with your track


def _lag(reference: np.ndarray, captured: np.ndarray) -> int:
    """Samples the reference starts late in captured (the best cross-correlation)."""
    size = 1 << (len(reference) + len(captured)).bit_length()
    xcorr = np.fft.irfft(np.fft.rfft(captured, size) * np.conj(np.fft.rfft(reference, size)), size)
    return int(np.argmax(xcorr[: len(captured)]))


def cancel_echo(you: Path, them: Path, out: Path) -> Path:
    runtime = Path(tempfile.mkdtemp(prefix="wf-aec-"))
    proc, mic = start_virtual_mic(runtime)
    recorded = runtime / "ec.wav"
    try:
        mic.load_module("module-null-sink", f"sink_name={ROOM}", "norewinds=1")
        mic.load_module(
            "module-echo-cancel",
            f"source_master={ROOM}.monitor",
            f"sink_master={mic.sink}",
            "aec_method=webrtc",
            f"source_name={EC_SOURCE}",
            f"sink_name={EC_SINK}",
            f"rate={SAMPLE_RATE}",
            "channels=1",
            'aec_args="analog_gain_control=0 digital_gain_control=0"',  # levels as they are, for the transcriber
        )
        env = {"PULSE_SERVER": mic.server, "PATH": "/usr/bin:/bin"}
        recorder = subprocess.Popen(
            [
                "parecord",
                f"--device={EC_SOURCE}",
                f"--rate={SAMPLE_RATE}",
                "--channels=1",
                "--format=s16le",
                "--file-format=wav",
                str(recorded),
            ],
            env=env,
        )
        time.sleep(0.5)
        players = [mic.play(them, EC_SINK), mic.play(you, ROOM)]
        for player in players:
            player.wait()
        time.sleep(0.5)
        recorder.terminate()
        recorder.wait()
        captured = load_audio(recorded)
    finally:
        stop_virtual_mic(proc, mic)
        shutil.rmtree(runtime, ignore_errors=True)
    mine = load_audio(you)
    start = _lag(mine[: int(ALIGN_S * SAMPLE_RATE)], captured[: int((ALIGN_S + 5) * SAMPLE_RATE)])
    aligned = captured[start : start + len(mine)]
    sf.write(out, np.pad(aligned, (0, len(mine) - len(aligned))), SAMPLE_RATE, subtype="PCM_16")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="whisperflow call-aec", description=__doc__.split("\n\n")[0])
    parser.add_argument("fixture", type=Path, help="the folder whisperflow call-fixture wrote")
    parser.add_argument("--you", default="you-echo10.wav", help="your track in it (default you-echo10.wav)")
    args = parser.parse_args(argv)
    you = args.fixture / args.you
    out = cancel_echo(you, args.fixture / "them.wav", you.with_name(you.stem + "-aec.wav"))
    print(out)
    return 0

"""The bench's `peer` row: Whisper-Streaming's own ``whisper_online.py`` (ufal/whisper_streaming), run from its
repository with faster-whisper on the CPU (int8) and the same tiny.en folder as ours, scored like our streams.

The script is not edited. Two things are swapped in at run time by this module's launcher (``python -m
tools.bench.peer SCRIPT ARGS…``): faster-whisper's ``WhisperModel`` is made to load on the CPU with int8 weights
(the script hard-codes CUDA float16; its own comment gives the CPU line), and ``librosa.load``, the one librosa
call the script makes, reads the file with soundfile and resamples with soxr, so librosa need not be installed.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import runpy
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import soundfile as sf

from engine.errors import WhisperFlowError
from engine.runtime.startup import prepare
from tools.bench.memory import peak_rss_mb

PEER_LABEL = "peer"
PEAK_MARK = "peer peak RSS MB: "  # the launcher's last line on stderr (the wait4 figure includes the bench's own)
PEER_SETTINGS = {
    "system": "whisper_online.py (ufal/whisper_streaming)",
    "backend": "faster-whisper",
    "device": "cpu",
    "compute_type": "int8",
    "min_chunk_s": 1.0,
    "buffer_trimming_s": 15.0,
}


def peer_missing(script: Path | None) -> str | None:
    """Why the peer row cannot run (None: it can)."""
    if script is None:
        return "peer skipped: no --peer-script (a checkout of ufal/whisper_streaming's whisper_online.py)"
    if not Path(script).is_file():
        return f"peer skipped: {script} does not exist"
    if importlib.util.find_spec("faster_whisper") is None:
        return "peer skipped: faster-whisper is not installed (it comes with the dev extra)"
    return None


def _words(line: str) -> list[dict]:
    """One output line, "EMISSION_MS BEGIN_MS END_MS TEXT", as word records with the segment's times spread
    over its words (the script prints no word times)."""
    emitted, begin, end, *text = line.split()
    words = [w for w in " ".join(text).split() if w]
    begin_s, end_s = float(begin) / 1000, float(end) / 1000
    step = (end_s - begin_s) / max(len(words), 1)
    return [
        {
            "type": "word",
            "text": w,
            "start": round(begin_s + i * step, 3),
            "end": round(begin_s + (i + 1) * step, 3),
            "emitted": round(float(emitted) / 1000, 3),
        }
        for i, w in enumerate(words)
    ]


def run_peer(script: Path, audio: Path, model_dir: Path, pace: str) -> dict:
    """Stream audio through the peer at pace (realtime: its simultaneous mode; otherwise its computation-unaware
    mode); returns a stream record's words, done totals and peak memory (the child's own: PEAK_MARK)."""
    args = [
        sys.executable,
        "-m",
        "tools.bench.peer",
        str(script),
        str(audio),
        "--model",
        "tiny.en",
        "--model_dir",
        str(model_dir),
        "--lan",
        "en",
        "--backend",
        "faster-whisper",
        "--min-chunk-size",
        "1.0",
        "-l",
        "ERROR",
    ]
    if pace != "realtime":
        args.append("--comp_unaware")
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, text=True)
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)  # the child's own CPU time
        wall = time.perf_counter() - t0
        err.seek(0)
        said = err.read().strip().splitlines()
    peaks = [float(line.removeprefix(PEAK_MARK)) for line in said if line.startswith(PEAK_MARK)]
    if os.waitstatus_to_exitcode(status):
        errors = [line for line in said if not line.startswith(PEAK_MARK)]
        raise WhisperFlowError("the peer failed:\n  " + "\n  ".join(errors[-3:]))
    lines = [line for line in out.splitlines() if line.strip() and line.split()[0].replace(".", "").isdigit()]
    words = [w for line in lines for w in _words(line)]
    return {
        "words": words,
        "done": {
            "audio_s": sf.info(str(audio)).duration,
            "wall_s": wall,
            "rounds": None,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "notices": [],
        },
        "peak_rss_mb": peaks[-1] if peaks else None,
    }


def _cpu_int8_model():
    import faster_whisper

    class CpuInt8Model(faster_whisper.WhisperModel):
        def __init__(self, model_size_or_path, *args, **kwargs):
            kwargs.update(device="cpu", compute_type="int8")
            super().__init__(model_size_or_path, **kwargs)

    faster_whisper.WhisperModel = CpuInt8Model


def _librosa_shim() -> types.ModuleType:
    import numpy as np
    import soxr

    def load(path, sr=16000, dtype=np.float32, **_):
        audio, rate = sf.read(path, dtype="float32", always_2d=True)
        audio = audio.mean(axis=1)
        return (soxr.resample(audio, rate, sr) if rate != sr else audio).astype(dtype), sr

    return types.SimpleNamespace(load=load)


def main() -> None:
    """Run SCRIPT with the rest of the arguments, with the CPU model and the librosa shim in place."""
    prepare()  # as in every bench process, so that the peak memory figures compare
    script, *rest = sys.argv[1:]
    atexit.register(lambda: print(f"{PEAK_MARK}{peak_rss_mb():.1f}", file=sys.stderr, flush=True))
    _cpu_int8_model()
    sys.modules["librosa"] = _librosa_shim()
    sys.argv = [script, *rest]
    sys.path.insert(0, str(Path(script).parent))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()

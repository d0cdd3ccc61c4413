"""Kill -9 at random moments (issue 15): every word a person had seen comes back.

Five times each, at a random moment (after a random number of confirmed words, plus a random fraction of a
second so that some kills land inside a round):
- `whisperflow stream --policy flow --jsonl` over a 29 s recording: the JSONL must hold every word the
  terminal had printed, in order (it is written and fsync'd each round before the words are shown);
- the app (offscreen, `flow`) captioning the same recording: the interrupted session's journal, read as the
  next start's recovery reads it, must hold every word the app had shown.

    python -m tools.kill9 [--runs 5] [--seed 15]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tools.soak import read_words

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "tests" / "data" / "LJ001-0009.wav"  # 7.3 s, repeated 4 times
DEADLINE_S = 180.0

# The app in a child process: it captions a recording at real-time pace and prints every word the moment the
# GUI shows it, so the parent knows exactly which words a person had seen when the app died. argv: the
# recording, then "greedy" for the cheapest settings (beam 1, padded, serial) instead of the `flow` policy.
APP_CHILD = """
import sys
from engine.runtime.startup import prepare
prepare()
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.main import WhisperFlowApp
from engine.audio.sources import PacedFileSource
from engine.model.whisper_model import load_model

wf = WhisperFlowApp(preloaded=(load_model("tiny.en"),))
wf.settings.first_run_done = True
if sys.argv[2:] == ["greedy"]:
    wf.settings.hush, wf.settings.beam_size, wf.settings.beam_pruning, wf.settings.pipeline = False, 1, False, False
wf.start()
wf.window.controller.update.connect(lambda u: [print("WORD", w.text, flush=True) for w in u.confirmed])
wf.window.controller.start("long recording", lambda: PacedFileSource(sys.argv[1]), "realtime")
app.exec()
"""


def long_recording(folder: Path) -> Path:
    """LJ001-0009 four times over (29 s)."""
    import soundfile as sf

    from engine.audio.files import SAMPLE_RATE, load_audio

    path = folder / "long.wav"
    sf.write(path, np.tile(load_audio(CLIP), 4), SAMPLE_RATE)
    return path


def kill_after(
    proc: subprocess.Popen, words_before: int, extra_s: float, shown_words: Callable[[str], list[str]]
) -> list[str]:
    """Read what the process prints until it has shown `words_before` words, wait extra_s more, kill -9 it,
    and return every word it had shown (shown_words parses its output so far)."""
    os.set_blocking(proc.stdout.fileno(), False)
    output, deadline = b"", time.monotonic() + DEADLINE_S
    words = lambda: shown_words(output.decode(errors="replace"))  # noqa: E731
    try:
        while len(words()) < words_before and time.monotonic() < deadline and proc.poll() is None:
            output += proc.stdout.read() or b""
            time.sleep(0.02)
        end = time.monotonic() + extra_s
        while time.monotonic() < end and proc.poll() is None:
            output += proc.stdout.read() or b""
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    output += proc.stdout.read() or b""  # printed before the kill: shown
    return words()


def app_words(output: str) -> list[str]:
    return [line[len("WORD ") :].strip() for line in output.splitlines() if line.startswith("WORD ")]


def cli_run(recording: Path, out: Path, words_before: int, extra_s: float) -> tuple[list[str], list[str]]:
    """Kill `whisperflow stream --jsonl`; the words its terminal showed, and those its JSONL kept."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "stream", str(recording), "--policy", "flow", "--jsonl", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    shown = kill_after(proc, words_before, extra_s, str.split)
    words, _ = read_words(out)  # a line torn by the kill is not a word
    return shown, [w["text"] for w in words]


def app_run(recording: Path, data: Path, words_before: int, extra_s: float) -> tuple[list[str], list[str]]:
    """Kill the app; the words it showed, and those the interrupted session's journal gives back."""
    from engine.session.journal import list_sessions, load_session

    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": str(ROOT),
        "WHISPERFLOW_DATA_DIR": str(data),
        "WHISPERFLOW_CONFIG_DIR": str(data / "config"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", APP_CHILD, str(recording)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    shown = kill_after(proc, words_before, extra_s, app_words)
    journals = data / "sessions"
    sessions = list_sessions(journals) if journals.exists() else []
    recovered = [w.text for w in load_session(journals, sessions[0].session_id).words] if sessions else []
    return shown, recovered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.kill9", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args(argv)
    if not 1 <= args.runs <= 100:
        parser.error("--runs must lie between 1 and 100")
    rng = np.random.default_rng(args.seed)
    scratch = Path(tempfile.mkdtemp(prefix="wf-kill9-"))
    recording = long_recording(scratch)
    print("| run | killed | after | words shown | words kept | every shown word kept |")
    print("|---|---|---|---|---|---|")
    failures = 0
    for n in range(args.runs):
        for who, run, target in (
            ("`stream --jsonl`", cli_run, scratch / f"cli-{n}.jsonl"),
            ("the app", app_run, scratch / f"app-{n}"),
        ):
            words_before, extra_s = int(rng.integers(2, 50)), float(rng.uniform(0, 1.5))
            shown, kept = run(recording, target, words_before, extra_s)
            ok = bool(shown) and kept[: len(shown)] == shown
            failures += not ok
            print(
                f"| {n + 1} | {who} | {words_before} words + {extra_s:.2f} s | {len(shown)} | {len(kept)} "
                f"| {'yes' if ok else 'NO'} |",
                flush=True,
            )
    print("KILL -9 PASSED" if not failures else f"KILL -9 FAILED in {failures} runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""kill -9 during a call: every word of either side that the terminal had shown is in the JSONL (written and fsync'd
before it is shown)."""

import json
import os
import signal
import subprocess
import sys
import time

from testdata import DATA

SPELL = str.maketrans("", "", ".,!?;:\"'")


def _spelled(text: str) -> list[str]:
    return [t.lower().translate(SPELL) for t in text.split() if t not in ("You:", "Them:")]


def _both_sides_shown(text: str) -> bool:
    """Words of both sides on the terminal, a dozen in all."""
    return "You:" in text and "Them:" in text and len(_spelled(text)) >= 12


def _is_subsequence(shown: list[str], kept: list[str]) -> bool:
    it = iter(kept)
    return all(any(w == k for k in it) for w in shown)


def test_kill_9_during_a_call_loses_no_shown_word_of_either_side(tmp_path):
    jsonl = tmp_path / "call.jsonl"
    you, them = DATA / "acoustic_corpus_10s.wav", DATA / "LJ001-0009.wav"
    cmd = [sys.executable, "-m", "cli.main", "stream", "--you", str(you), "--them", str(them), "--jsonl", str(jsonl)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    shown, deadline = b"", time.monotonic() + 240
    try:
        while time.monotonic() < deadline and not _both_sides_shown(shown.decode(errors="ignore")):
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            shown += chunk
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        shown += proc.stdout.read()  # what the terminal had been given before the kill
    finally:
        proc.kill()
    printed = _spelled(shown.decode(errors="ignore"))
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    kept = [t for r in records if r["type"] == "word" for t in _spelled(r["text"])]
    assert _both_sides_shown(shown.decode()), shown
    assert _is_subsequence(printed, kept), (printed, kept)

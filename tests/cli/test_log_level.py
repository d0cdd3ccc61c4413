"""`whisperflow --log-level`: what the rules log reaches stderr, never the JSONL on stdout, and changes no word."""

import json
import os
import subprocess
import sys

from testdata import DATA

from cli.main import build_parser

CLIP = DATA / "LJ001-0013.wav"  # 2.6 s


def stream(*extra: str) -> subprocess.CompletedProcess:
    args = ["stream", str(CLIP), "--pace", "unaware", "--model", "tiny.en", "--jsonl", "-", *extra]
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, timeout=300, env=os.environ.copy()
    )


def words(stdout: str) -> list[tuple]:
    records = [json.loads(line) for line in stdout.splitlines()]  # stdout holds JSON lines only
    return [(r["text"], r["start"], r["end"], r["emitted"]) for r in records if r["type"] == "word"]


def test_debug_logs_the_rules_to_stderr_and_the_default_logs_nothing_with_the_same_words():
    debug, quiet = stream("--log-level", "debug"), stream()
    assert debug.returncode == 0 and quiet.returncode == 0, debug.stderr + quiet.stderr
    assert words(debug.stdout) and words(debug.stdout) == words(quiet.stdout)
    lines = debug.stderr.splitlines()
    assert any(line.startswith("INFO engine.model.whisper_model: model tiny.en loaded") for line in lines)
    assert any(line.startswith("DEBUG engine.stream.processor: round 0.00-") for line in lines)
    assert any(line.startswith("DEBUG engine.stream.agreement: agreement: confirmed '") for line in lines)
    assert not any(line.startswith(("DEBUG", "INFO", "WARNING")) for line in quiet.stderr.splitlines()), quiet.stderr


def test_the_log_level_goes_before_or_after_the_command_and_defaults_to_warning():
    parser = build_parser()
    assert parser.parse_known_args(["stream", "a.wav"])[0].log_level == "warning"
    assert parser.parse_known_args(["--log-level", "info", "stream", "a.wav"])[0].log_level == "info"
    assert parser.parse_known_args(["stream", "a.wav", "--log-level", "debug"])[0].log_level == "debug"

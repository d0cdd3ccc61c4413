"""The command line with bad options, bad paths, a full disk, a kill -9 and an unplugged device (issue 15)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from test_stream import CLIP, read_jsonl, wer, whisperflow
from testdata import DATA, REPO


@pytest.mark.parametrize(
    "args, message",
    [
        (["stream", str(CLIP), "--min-chunk", "0", "--pace", "fast"], "--min-chunk must be from 0.1 to 10 s (got 0)"),
        (["stream", str(CLIP), "--min-chunk", "-1"], "--min-chunk must be from 0.1 to 10 s (got -1)"),
        (["stream", str(CLIP), "--min-chunk", "nan"], "--min-chunk must be from 0.1 to 10 s (got nan)"),
        (["stream", str(CLIP), "--beam", "0"], "--beam must be from 1 to 16 (got 0)"),
        (["stream", str(CLIP), "--beam", "-1"], "--beam must be from 1 to 16 (got -1)"),
        (["stream", str(CLIP), "--hush-min", "31"], "--hush-min must be from 0 to 29.5 s (got 31)"),
        (["transcribe", str(CLIP), "--beam", "0"], "--beam must be from 1 to 16 (got 0)"),
        (["stream", str(CLIP), "--language", "klingon"], "--language must be a language Whisper knows"),
        (["stream", str(CLIP), "--model", "tiny"], "--model must be one of"),
        (["stream", "--device", "x", "--duration", "-3"], "--duration must be a positive number"),
    ],
)
def test_out_of_range_options_are_refused_with_the_allowed_range(args, message, capsys):
    from cli.main import main

    assert main(args) == 2  # in-process: the same path as the command, without a second interpreter per case
    assert f"error: {message}" in capsys.readouterr().err


def test_a_bad_option_from_the_command_line_prints_one_line_and_exits_2():
    run = whisperflow("stream", str(CLIP), "--min-chunk", "0", "--pace", "fast", timeout=60)
    assert run.returncode == 2 and run.stderr.strip() == "error: --min-chunk must be from 0.1 to 10 s (got 0)"


@pytest.mark.parametrize("command", ["stream", "transcribe"])
def test_an_output_that_is_the_input_is_refused_and_the_input_kept(tmp_path, command):
    copy = tmp_path / "copy.wav"
    shutil.copy(CLIP, copy)
    link = tmp_path / "link.wav"
    os.link(copy, link)
    for out in (copy, link):
        run = whisperflow(command, str(copy), "--jsonl", str(out), timeout=60)
        assert run.returncode == 2 and "is the input file" in run.stderr, run.stderr
    assert copy.read_bytes() == CLIP.read_bytes()


def test_an_output_in_a_missing_folder_is_refused_before_loading_anything(tmp_path):
    run = whisperflow("stream", str(CLIP), "--jsonl", str(tmp_path / "nope" / "out.jsonl"), timeout=60)
    assert run.returncode == 2 and "does not exist" in run.stderr and "Traceback" not in run.stderr
    assert "listening" not in run.stderr
    run = whisperflow("stream", str(CLIP), "--jsonl", str(tmp_path), timeout=60)
    assert run.returncode == 2 and "is a folder" in run.stderr


def test_a_truncated_file_gets_a_warning_and_near_empty_audio_no_words(tmp_path):
    cut = tmp_path / "cut.wav"
    cut.write_bytes((REPO / "assets" / "sample.wav").read_bytes()[:1000])
    out = tmp_path / "cut.jsonl"
    run = whisperflow("stream", str(cut), "--pace", "fast", "--beam", "1", "--jsonl", str(out))
    assert run.returncode == 0, run.stderr
    assert "warning: cut.wav is shorter than its header says" in run.stderr
    events = read_jsonl(out)
    assert [e["type"] for e in events if e["type"] != "round"] == ["done"], events  # no words


FULL_DISK = """
set -e
mount -t tmpfs -o size=64k tmpfs "$1"
cat /dev/zero > "$1/filler" 2>/dev/null || true
exec "$2" -m cli.main stream "$3" --pace fast --beam 1 --jsonl "$1/out.jsonl"
"""


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")
def test_a_full_disk_stops_the_jsonl_but_not_the_captions(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    speech = DATA / "LJ001-0009.wav"
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("no user/mount namespaces here")
    # the tmpfs is private to the child: check the file from inside before it disappears
    script = FULL_DISK + ""
    run = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            script.replace('exec "$2"', '"$2"') + '\ncat "$1/out.jsonl"',
            "sh",
            str(mnt),
            sys.executable,
            str(speech),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("stopped writing") == 1 and "Traceback" not in run.stderr, run.stderr
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    caption = " ".join(line for line in run.stdout.splitlines() if not line.startswith("{"))
    assert wer(caption) <= 0.15, caption  # captions went on
    for line in lines:
        json.loads(line)  # what the file holds is whole lines


def test_kill_9_loses_no_word_that_was_shown(tmp_path):
    out = tmp_path / "live.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli.main",
            "stream",
            str(CLIP),
            "--pace",
            "realtime",
            "--beam",
            "1",
            "--jsonl",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
    )
    shown = b""
    os.set_blocking(proc.stdout.fileno(), False)
    deadline = time.monotonic() + 120
    while len(shown.split()) < 4 and time.monotonic() < deadline and proc.poll() is None:
        shown += proc.stdout.read() or b""
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    shown += proc.stdout.read() or b""
    printed = shown.decode().split()
    assert len(printed) >= 4
    saved = [e["text"] for e in read_jsonl(out) if e["type"] == "word"]
    assert saved[: len(printed)] == printed


def test_an_unplugged_device_keeps_the_tail_and_writes_done(virtual_mic, tmp_path):
    out = tmp_path / "mic.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "stream", "--device", virtual_mic.device, "--jsonl", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert any(line.startswith("listening:") for line in proc.stderr)
    virtual_mic.play(CLIP).wait(timeout=30)
    time.sleep(0.5)
    virtual_mic.pactl("unload-module", str(virtual_mic.module_index("module-null-sink", virtual_mic.sink)))
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "stopped working" in stderr and "Traceback" not in stderr, stderr
    events = read_jsonl(out)
    assert events[-1]["type"] == "done" and "stopped working" in events[-1]["error"]
    words = " ".join(e["text"] for e in events if e["type"] == "word")
    assert wer(words) <= 0.25, words  # the unconfirmed tail was confirmed as on a clean stop
    assert "types" in words.lower()


# As where libportaudio2 is not installed: sounddevice's search for the library finds none.
WITHOUT_PORTAUDIO = (
    "import ctypes.util, sys; ctypes.util.find_library = lambda name: None; "
    "from cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def test_without_portaudio_files_still_stream_and_inputs_say_what_to_install(tmp_path):
    out = tmp_path / "events.jsonl"
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_PORTAUDIO, "stream", str(CLIP), "--pace", "fast", "--jsonl", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr
    words = " ".join(e["text"] for e in read_jsonl(out) if e["type"] == "word")
    assert wer(words) < 0.2
    listed = subprocess.run(
        [sys.executable, "-c", WITHOUT_PORTAUDIO, "devices"], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert listed.returncode == 2
    assert (
        listed.stderr.startswith("error: Audio inputs need the PortAudio library") and "libportaudio2" in listed.stderr
    )
    assert "Traceback" not in listed.stderr

"""`whisperflow stream` end to end on real audio with the real tiny.en model."""

import json
import os
import subprocess
import sys
from pathlib import Path

import jiwer
import pytest
from testdata import DATA
from whisper_normalizer.english import EnglishTextNormalizer

CLIP = DATA / "LJ001-0009.wav"
REFERENCE = "Printing, then, for our purpose, may be considered as the art of making books by means of movable types."
normalize = EnglishTextNormalizer()


def whisperflow(*args, timeout=300, env=None):
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env or os.environ.copy(),
    )


def wer(hypothesis: str) -> float:
    return jiwer.wer(normalize(REFERENCE), normalize(hypothesis))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_stream_fast_writes_monotone_wellformed_jsonl_with_low_wer(tmp_path):
    out = tmp_path / "events.jsonl"
    # baseline: every decode is a loop round with its record (flow's finish() may decode the tail once more)
    run = whisperflow("stream", str(CLIP), "--policy", "baseline", "--pace", "fast", "--jsonl", str(out))
    assert run.returncode == 0, run.stderr
    events = read_jsonl(out)
    done = events[-1]
    words = [e for e in events if e["type"] == "word"]
    rounds = [e for e in events[:-1] if e["type"] != "word"]
    assert words and done["type"] == "done"
    for key in ("audio_s", "wall_s", "rounds", "encode_s", "decode_s", "encoder_gflops", "avg_beam", "cpu_s", "forced"):
        assert key in done
    assert abs(done["audio_s"] - 7.55) < 0.1 and done["rounds"] >= 7
    assert len(rounds) == done["rounds"] and all(r["type"] == "round" for r in rounds)
    assert [r["buffer_end"] for r in rounds] == sorted(r["buffer_end"] for r in rounds)
    assert abs(rounds[-1]["buffer_end"] - done["audio_s"]) < 1e-3
    for w in words:
        assert w["text"].strip() and 0 <= w["start"] <= w["end"] <= done["audio_s"] + 0.5
    emitted = [w["emitted"] for w in words]
    starts = [w["start"] for w in words]
    assert emitted == sorted(emitted) and starts == sorted(starts)
    text = " ".join(w["text"] for w in words)
    assert wer(text) <= 0.15, text
    assert normalize(text).split() == normalize(run.stdout).split()  # captions printed live match the JSONL


def unaware_run(out: Path, *policy: str) -> list[dict]:
    """`whisperflow stream CLIP --pace unaware --min-chunk 2` under policy (none: the default); its JSONL records."""
    run = whisperflow("stream", str(CLIP), *policy, "--pace", "unaware", "--min-chunk", "2", "--jsonl", str(out))
    assert run.returncode == 0, run.stderr
    return read_jsonl(out)


@pytest.fixture(scope="module")
def default_unaware(tmp_path_factory) -> list[dict]:
    """The default policy's unaware run: both tests below check it, so it runs once."""
    return unaware_run(tmp_path_factory.mktemp("default") / "events.jsonl")


def test_stream_unaware_emits_on_the_audio_clock(default_unaware):
    words = [e for e in default_unaware if e["type"] == "word"]
    # the clock advances by 2 s of audio per round, so every emission time is a round boundary (or the end)
    assert all(
        abs(w["emitted"] / 2 - round(w["emitted"] / 2)) < 1e-6 or abs(w["emitted"] - 7.554) < 0.01 for w in words
    )
    assert all(w["emitted"] >= w["end"] - 0.5 for w in words)


def test_stream_runs_flow_by_default_as_the_app_does(default_unaware, tmp_path):
    records = {name: unaware_run(tmp_path / f"{name}.jsonl", "--policy", name) for name in ("flow", "baseline")}
    records["default"] = default_unaware
    runs = {
        name: [(e["text"], e["start"], e["end"], e["emitted"]) for e in events if e["type"] == "word"]
        for name, events in records.items()
    }
    assert runs["default"] == runs["flow"] and runs["flow"]
    assert runs["flow"] != runs["baseline"]  # the policies differ here (times as well as words), so the test can fail


def test_stream_from_pulseaudio_virtual_microphone(virtual_mic, tmp_path):
    out = tmp_path / "mic.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli.main",
            "stream",
            "--device",
            virtual_mic.device,
            "--duration",
            "11",
            "--jsonl",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert any(line.startswith("listening:") for line in proc.stderr)  # model loaded, device open
    virtual_mic.play(CLIP).wait(timeout=30)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    words = [e for e in read_jsonl(out) if e["type"] == "word"]
    assert wer(" ".join(w["text"] for w in words)) <= 0.25, stdout


def test_corrupt_wav_gives_clear_error(tmp_path):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt garbage that is not audio" * 3)
    run = whisperflow("stream", str(bad), "--pace", "fast")
    assert run.returncode == 2
    assert run.stderr.startswith("error:") and "broken.wav" in run.stderr
    assert "Traceback" not in run.stderr


def test_missing_device_gives_clear_error():
    run = whisperflow("stream", "--device", "No Such Microphone 42", "--duration", "1")
    assert run.returncode == 2
    assert "No Such Microphone 42" in run.stderr and "Traceback" not in run.stderr


def test_transcribe_writes_word_timestamps(tmp_path):
    out = tmp_path / "offline.jsonl"
    run = whisperflow("transcribe", str(CLIP), "--jsonl", str(out))
    assert run.returncode == 0, run.stderr
    words = [e for e in read_jsonl(out) if e["type"] == "word"]
    assert wer(" ".join(w["text"] for w in words)) <= 0.15
    assert words[0]["start"] < 1.0 and 6.0 < words[-1]["end"] < 8.0


def test_transcribe_gives_the_same_text_every_time_where_it_samples(tmp_path):
    """Speech played backwards: tiny.en's greedy window fails and is decoded again at rising temperatures, which
    samples; each run of the command writes the same text all the same (a process of its own each: MLX seeds its
    generator from the clock)."""
    import soundfile as sf

    from engine.audio.files import SAMPLE_RATE, load_audio

    backwards = tmp_path / "backwards.wav"
    sf.write(backwards, load_audio(DATA / "LJ001-0008.wav")[::-1], SAMPLE_RATE)
    runs = [whisperflow("transcribe", str(backwards)) for _ in range(3)]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr
    texts = {run.stdout for run in runs}
    assert len(texts) == 1 and texts.pop().strip(), [run.stdout for run in runs]


def test_terminal_captions_show_a_period_the_next_word_contradicts_as_a_comma():
    """As in the caption window: "exhibition." followed by "in", confirmed or tentative, reads "exhibition,"; a
    sentence end, an abbreviation and a period with no word after it for a round keep their periods."""
    import io

    from cli.stream import _CaptionPrinter
    from engine.session.events import StreamUpdate, WordEvent
    from engine.session.words import Word

    def update(*texts, tentative=()):
        return StreamUpdate(
            confirmed=[WordEvent(t, 0.0, 0.1, emitted=0.2) for t in texts],
            tentative=[Word(t, 0.1, 0.2) for t in tentative],
            clock=0.2,
            round_s=0.1,
            buffer_s=1.0,
        )

    out = io.StringIO()
    captions = _CaptionPrinter(out)

    def shown():  # the printer breaks lines at 78 columns
        return out.getvalue().replace("\n", " ")

    captions(update("represented", "in", "the", "exhibition."))
    assert shown() == "represented in the"
    captions(update("in", "being", "modern,", "etc."))
    captions(update("and", "so", "on."))
    captions(update("The", "end.", tentative=["as"]))
    assert shown() == "represented in the exhibition, in being modern, etc. and so on. The end,"
    captions(update("said."))
    captions(update(tentative=["Then"]))
    captions(update("Then", "quiet."))
    assert shown().endswith("end, said. Then")
    captions(update())
    assert shown().endswith("end, said. Then quiet.")
    captions(update("last."))
    captions.close()
    assert shown().endswith("Then quiet. last. ") and out.getvalue().endswith("\n")


def test_transcript_file_holds_the_final_text_one_utterance_a_line(tmp_path):
    out, text = tmp_path / "events.jsonl", tmp_path / "final.txt"
    run = whisperflow("stream", str(CLIP), "--pace", "unaware", "--jsonl", str(out), "--transcript", str(text))
    assert run.returncode == 0, run.stderr
    events = read_jsonl(out)
    finals = [e for e in events if e["type"] == "final"]
    confirmed = [e for e in events if e["type"] == "word"]
    assert finals and events[-1]["finalized"] == len(finals)
    assert sum(f["count"] for f in finals) == len(confirmed)  # every confirmed word was finalized
    lines = text.read_text(encoding="utf-8").splitlines()
    assert lines == [" ".join(w["text"] for w in f["words"]) for f in finals]
    assert wer(" ".join(lines)) < 0.1


def test_transcript_into_a_missing_folder_is_refused_before_the_stream_starts(tmp_path):
    run = whisperflow("stream", str(CLIP), "--transcript", str(tmp_path / "nowhere" / "final.txt"))
    assert run.returncode != 0 and "--transcript" in run.stderr and "does not exist" in run.stderr

"""Issue 17: replaying recorded rounds exactly, and a recorded realtime stall that must lose no speech.

The stall fixture (tests/data/stall17_*, see docs/stall-17.md) holds the round boundaries and clocks
of a `--policy flow --pace realtime` run over the long-form file that lost a stretch of speech, cut to
the file's first clips, and the reference: the corpus transcript and word times from an offline
tiny.en transcription of the cut.
"""

import json
from pathlib import Path

import pytest
from testdata import DATA

from engine.audio.sources import FileSource
from engine.scoring.wer import wer_counts
from engine.session.events import round_record
from engine.stream.config import StreamConfig, build_processor
from engine.stream.runner import run_stream

STALL = sorted(DATA.glob("stall17_*.wav"))[0].with_suffix("")
MAX_SILENT_SPEECH_S = 3.0


def replay(model, audio: Path, pace: str):
    """Stream audio through the flow policy as it was when the run was recorded (serial, padded, 1 s rounds,
    trimmed at segments); the updates and the done event."""
    recorded_flow = StreamConfig(
        policy="flow",
        pipeline=False,
        hush=False,
        guard_frames=0,
        min_chunk_s=1.0,
        buffer_trimming_s=15.0,
        trim_at="segment",
        vad=False,
        max_delay_s=0.0,
        emit_margin_s=0.0,
        agree_gap_s=0.0,
    )
    processor, _ = build_processor(model, recorded_flow)
    updates = []
    done = run_stream(processor, FileSource(audio), pace=pace, on_update=updates.append)
    return updates, done


def rounds_of(path: Path) -> list[dict]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["type"] == "round"]


@pytest.fixture(scope="module")
def stall(tiny_model):
    return replay(tiny_model, STALL.with_suffix(".wav"), f"replay:{STALL}.rounds.jsonl")


def test_replay_takes_the_recorded_boundaries_and_clocks(stall):
    updates, done = stall
    recorded = rounds_of(Path(f"{STALL}.rounds.jsonl"))
    replayed = [round_record(u.round) for u in updates if u.round]
    assert [(r["buffer_end"], r["clock"]) for r in replayed] == [(r["buffer_end"], r["clock"]) for r in recorded]
    assert done.audio_s == pytest.approx(recorded[-1]["buffer_end"], abs=1e-4)
    previous = None
    for r in replayed:
        assert set(r) == {"type", "buffer_start", "buffer_end", "clock"} and r["type"] == "round"
        assert 0 <= r["buffer_start"] < r["buffer_end"]
        if previous:
            assert r["buffer_end"] > previous["buffer_end"] and r["clock"] >= previous["clock"]
            assert r["buffer_start"] >= previous["buffer_start"]
        previous = r


def test_recorded_stall_loses_no_speech(stall):
    updates, done = stall
    reference = json.loads(Path(f"{STALL}.reference.json").read_text())
    words = [w for u in updates for w in u.confirmed]
    assert not [d for u in updates for d in u.dropped]
    # every gap of more than 3 s between confirmed words holds no reference word
    edges = [0.0] + [t for w in words for t in (w.start, w.end)] + [done.audio_s]
    gaps = [(a, b) for a, b in zip(edges[::2], edges[1::2]) if b - a > MAX_SILENT_SPEECH_S]
    lost = [(text, s, e) for a, b in gaps for text, s, e in reference["words"] if a <= s and e <= b]
    assert not lost, f"speech without confirmed words: {lost}"
    counts = wer_counts(reference["text"], " ".join(w.text for w in words))
    assert counts.deletions <= 0.01 * counts.reference_words, counts


def test_replay_of_a_recorded_run_repeats_it_exactly(tiny_model, tmp_path):
    from engine.session.events import word_record

    audio = DATA / "LJ001-0008.wav"
    first, first_done = replay(tiny_model, audio, "fast")
    recording = tmp_path / "run.jsonl"
    recording.write_text(
        "".join(json.dumps(round_record(u.round)) + "\n" for u in first if u.round)
        + json.dumps({"type": "done", "wall_s": first_done.wall_s})
        + "\n"
    )
    again, again_done = replay(tiny_model, audio, f"replay:{recording}")
    assert [round_record(u.round) for u in again if u.round] == [round_record(u.round) for u in first if u.round]
    assert [word_record(w) for u in again for w in u.confirmed] == [word_record(w) for u in first for w in u.confirmed]
    assert again_done.wall_s == first_done.wall_s

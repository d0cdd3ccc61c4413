"""schedule-synth rebuilds the realtime loop around recorded round times; its schedules replay round for round."""

import json

import pytest
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import FileSource
from engine.scoring.wer import wer_counts
from engine.session.events import round_record
from engine.stream.config import StreamConfig, build_processor
from engine.stream.runner import run_stream
from tools.schedule_synth import main, synthesize


def ends_and_clocks(events):
    """buffer_end, clock, buffer_end, clock, ... of the round events."""
    return [t for e in events if e["type"] == "round" for t in (e["buffer_end"], e["clock"])]


def test_fast_rounds_wait_for_the_min_chunk_and_the_last_takes_the_rest_when_the_audio_ends():
    events = synthesize([0.05], duration_s=1.0, min_chunk_s=0.3)
    assert ends_and_clocks(events) == pytest.approx([0.3, 0.35, 0.6, 0.65, 0.9, 0.95, 1.0, 1.05])
    assert events[-1] == {"type": "done", "wall_s": pytest.approx(1.05)}


def test_slow_rounds_take_every_whole_block_that_arrived_meanwhile():
    events = synthesize([0.25, 0.33], duration_s=1.5, min_chunk_s=0.1)
    # the first round waits for 0.1 s; each later one takes the 20 ms blocks released by the previous one's end
    assert ends_and_clocks(events) == pytest.approx(
        [0.1, 0.35, 0.34, 0.68, 0.68, 0.93, 0.92, 1.26, 1.26, 1.51, 1.5, 1.84]
    )


def test_the_offset_starts_at_a_later_recorded_round_time():
    assert ends_and_clocks(synthesize([0.1, 0.2], 0.5, 0.2, offset=1))[:2] == pytest.approx([0.2, 0.4])


def test_a_schedule_from_a_bench_row_replays_round_for_round(tiny_model, tmp_path, capsys):
    audio = DATA / "LJ001-0008.wav"
    duration = len(load_audio(audio)) / SAMPLE_RATE
    results = tmp_path / "results.jsonl"
    rows = [
        {"type": "meta"},
        {"type": "stream", "config": "fast machine", "duration_s": duration, "round_s": [1.5, 0.07, 0.09, 0.08]},
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    schedule = tmp_path / "schedule.jsonl"
    assert main([str(results), "--config", "fast machine", "--min-chunk", "0.5", "--out", str(schedule)]) == 0
    assert "rounds over" in capsys.readouterr().out
    written = [json.loads(line) for line in schedule.read_text().splitlines()]
    assert written[0]["clock"] == pytest.approx(0.57)  # the first recorded time, a warm-up, is left out
    assert written[-2]["buffer_end"] == pytest.approx(duration, abs=1e-5)

    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow"))
    updates = []
    run_stream(processor, FileSource(audio), pace=f"replay:{schedule}", on_update=updates.append)
    replayed = [round_record(u.round) for u in updates if u.round]
    assert ends_and_clocks(replayed) == pytest.approx(ends_and_clocks(written), abs=1e-4)
    heard = " ".join(w.text for u in updates for w in u.confirmed)
    assert wer_counts("has never been surpassed", heard).errors <= 1, heard


def test_a_missing_row_is_named_with_the_rows_there_are(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"type": "stream", "config": "serial", "duration_s": 1.0, "round_s": [0.1]}) + "\n")
    assert main([str(results), "--config", "pipelined", "--min-chunk", "0.2", "--out", str(tmp_path / "s.jsonl")]) == 1
    assert "no stream row for config 'pipelined' (it has: serial)" in capsys.readouterr().err
    assert not (tmp_path / "s.jsonl").exists()


def test_a_row_without_round_times_and_an_unwritable_schedule_are_named(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    rows = [
        {"type": "stream", "config": "peer", "duration_s": 1.0},
        {"type": "stream", "config": "serial", "duration_s": 1.0, "round_s": [0.5, 0.1]},
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main([str(results), "--config", "peer", "--min-chunk", "0.2", "--out", str(tmp_path / "s.jsonl")]) == 1
    assert "the row 'peer' has no round times" in capsys.readouterr().err
    missing_folder = tmp_path / "no such folder" / "s.jsonl"
    assert main([str(results), "--config", "serial", "--min-chunk", "0.2", "--out", str(missing_folder)]) == 1
    assert "does not exist" in capsys.readouterr().err and not missing_folder.exists()

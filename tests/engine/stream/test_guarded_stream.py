"""A hushed stream with the guard on: rounds over a real clip cut mid-word stop at the end of their audio,
without repetition, and the stream's done record counts the guard's stops and the padded retries; over a pause, a
round that ends at a loop does not keep the pause away."""

import json

import numpy as np
import soundfile as sf
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import FileSource
from engine.encoder.input import encoder_gflops
from engine.stream.config import StreamConfig, build_processor
from engine.stream.runner import run_stream

REFERENCE = "printing then for our purpose may be considered as the art of making books by means of movable types"


def test_a_hushed_guarded_stream_over_a_clip_cut_mid_word_stops_without_repetition(tiny_model, tmp_path):
    clip = load_audio(DATA / "LJ001-0009.wav")
    cut = tmp_path / "cut.wav"
    sf.write(cut, clip[: int(4.48 * SAMPLE_RATE)], SAMPLE_RATE)  # ends inside "making"
    config = StreamConfig(policy="flow", hush=True, guard_frames=8, pipeline=False)
    processor, notices = build_processor(tiny_model, config)
    assert notices == []  # tiny.en has its hush word: no padding
    words = []
    done = run_stream(
        processor,
        FileSource(str(cut)),
        pace="fast",
        min_chunk_s=1.0,
        on_update=lambda update: words.extend(w.text for w in update.confirmed),
    )
    processor.close()
    said = [w.strip(".,").lower() for w in words]
    trigrams = list(zip(said, said[1:], said[2:]))
    assert len(trigrams) == len(set(trigrams))  # nothing said twice: no runaway
    assert "".join(said) in REFERENCE.replace(" ", "") and said[:4] == ["printing", "then", "for", "our"]
    assert len(said) >= 11  # the words up to the cut (the unguarded last round may finish "mak" as "making")
    assert done.guard_stops >= 1 and done.padded_retries <= 1
    # rounds encode the buffer, silence up to 8 s and the hush word, not 30 s (only the last round pads)
    assert done.encoder_gflops / done.rounds < 0.5 * encoder_gflops(tiny_model.dims, 3000)


def test_the_last_word_of_a_guarded_stream_is_kept(tiny_model, tmp_path):
    """At the end of the stream nothing follows: its last rounds run unguarded, so "types" is not held back."""
    whole = tmp_path / "whole.wav"
    sf.write(whole, load_audio(DATA / "LJ001-0009.wav"), SAMPLE_RATE)
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", hush=True, guard_frames=8, pipeline=False))
    words = []
    run_stream(
        processor,
        FileSource(str(whole)),
        pace="fast",
        min_chunk_s=1.0,
        on_update=lambda update: words.extend(w.text for w in update.confirmed),
    )
    processor.close()
    said = [w.strip(".,").lower() for w in words]
    assert said[-3:] == ["of", "movable", "types"]


def test_the_no_speech_gate_is_off_with_a_voice_activity_detector(tiny_model):
    """Whisper's no-speech probability drops a round with unsure text unless a VAD already decides silence."""
    from engine.decoder.options import DecodeResult
    from engine.stream.round import Transcriber

    unsure = DecodeResult([tiny_model.tokenizer().encode(" Many people")[0]], -3.0, 0.8)
    assert Transcriber(tiny_model).hallucinated(unsure)
    assert not Transcriber(tiny_model, silence_gate=False).hallucinated(unsure)


def test_silence_before_the_hush_word_keeps_a_weak_first_word(tiny_model):
    """LJ001-0003 starts with speech: "For although the Chinese…". Hushed rounds over its first second or two
    alone drop "although" (``hush_min_s=0`` does); with flow's silence up to 8 s before the hush word the
    early rounds read like padded ones and keep it (docs/bench/hush-min)."""
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow"))
    assert processor.transcriber.padding.min_seconds == 8.0
    words = []
    run_stream(
        processor,
        FileSource(str(DATA / "LJ001-0003.wav")),
        pace="unaware",
        on_update=lambda update: words.extend(w.text for w in update.confirmed),
    )
    processor.close()
    said = [w.strip(".,").lower() for w in words]
    assert said[:4] == ["for", "although", "the", "chinese"], said


# Round boundaries (stream seconds) of an app session over the two sentences below that lost "fine in form" on a loaded
# 2-core machine (tests/app/test_trial.py): from 14.61 s on, tiny.en read the rounds over "letter used should be fine
# in form" as "art of" (its prompt's words) and stopped at the loop each time, so no pause was ever taken.
STUCK_ROUND_ENDS = (0.34, 3.48, 5.43, 7.59, 9.48, 10.83, 12.38, 13.43, 14.61, 15.89, 17.34, 18.76, 20.11, 21.12)


def test_a_round_that_loops_after_the_speech_ends_does_not_keep_the_pause_away(tiny_model, tmp_path):
    """The unguarded round over a pause ends in a loop: it held nothing back all the same, so the next round
    pauses and the final pass hears the words the rounds never said."""
    first, second = (load_audio(DATA / name) for name in ("LJ001-0009.wav", "LJ001-0011.wav"))
    silence = np.zeros(3 * SAMPLE_RATE, np.float32)
    reading = tmp_path / "reading.wav"
    sf.write(reading, np.concatenate([first, silence, second, silence, silence, silence]), SAMPLE_RATE)
    rounds = tmp_path / "rounds.jsonl"
    rounds.write_text(
        "".join(json.dumps({"type": "round", "buffer_end": end, "clock": end + 0.8}) + "\n" for end in STUCK_ROUND_ENDS)
    )
    config = StreamConfig(policy="flow", hush=False, beam_size=1, beam_pruning=False, pipeline=False)  # the app's
    processor, _ = build_processor(tiny_model, config)  # settings in tests/app/live_app.py
    updates = []
    run_stream(processor, FileSource(str(reading)), pace=f"replay:{rounds}", on_update=updates.append)
    processor.close()
    last = [f for u in updates for f in u.finals][-1]
    assert " ".join(w.text for w in last.words).endswith("should be fine in form.")
    assert last.ended < updates[-1].clock  # at the pause, not at the stream's end

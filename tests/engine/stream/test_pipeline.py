"""Pipelining: same words as the serial loop, clean shutdown, and calibration profiles that streams load."""

import os
import signal
import subprocess
import sys
import threading

from testdata import DATA

from engine.audio.sources import FileSource, PacedFileSource
from engine.stream.config import StreamConfig, build_processor, choose_allocation
from engine.stream.profiler import calibrate
from engine.stream.profiles import Allocation, load_profile
from engine.stream.runner import run_stream

CLIP = DATA / "LJ001-0009.wav"
SHORT = DATA / "LJ001-0008.wav"
SAME_WORDS_CLIP = DATA / "LJ001-0011.wav"  # 4.5 s and 15 words, streamed twice (CLIP's 7.5 s took 31 s on CI)


def confirmed_words(loaded, allocation):
    # without the VAD, whose skips follow the rounds already applied (one call later when pipelined)
    config = StreamConfig.for_allocation(allocation, policy="flow", hush=False, vad=False)
    processor, _ = build_processor(loaded, config)
    words = []
    try:
        run_stream(processor, FileSource(SAME_WORDS_CLIP), pace="fast", on_update=lambda u: words.extend(u.confirmed))
    finally:
        processor.close()
    return [(w.text, round(w.start, 2), round(w.end, 2)) for w in words]


def whisperflow_threads():
    return [t.name for t in threading.enumerate() if t.name.startswith("whisperflow-")]


def test_pipeline_confirms_the_same_words_as_the_serial_loop(tiny_model):
    serial = confirmed_words(tiny_model, Allocation(False))
    pipelined = confirmed_words(tiny_model, Allocation(True, 0, handoff_tokens=3))
    assert serial and pipelined == serial
    assert whisperflow_threads() == []


def test_stop_mid_stream_joins_every_thread(tiny_model):
    processor, _ = build_processor(tiny_model, StreamConfig.for_allocation(Allocation(True, 0, 2), policy="flow"))
    stop = threading.Event()
    updates = []

    def on_update(update):
        updates.append(update)
        if len(updates) == 2:
            stop.set()

    done = run_stream(processor, PacedFileSource(CLIP), pace="realtime", on_update=on_update, stop=stop)
    assert whisperflow_threads() == ["whisperflow-accelerator"]
    processor.close()
    assert whisperflow_threads() == []
    assert done.audio_s < 7.0  # stopped before the end of the clip


def test_interrupted_pipelined_cli_stream_exits_zero():
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "stream", str(CLIP), "--policy", "flow", "--pipeline"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    for line in proc.stderr:  # notes first, then "listening:" once the stream runs
        if line.startswith("listening:"):
            break
    threading.Timer(3.0, proc.send_signal, (signal.SIGINT,)).start()
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr


def test_calibrate_writes_a_profile_the_next_stream_loads(tiny_model, isolated_dirs):
    allocations = [Allocation(False, 2), Allocation(True, 2, 2)]
    seen = []
    profile = calibrate(tiny_model, sample=SHORT, allocations=allocations, progress=lambda i, n, row: seen.append(i))
    assert seen == [0, 1, 2] and len(profile.rows) == 2
    assert all(r.mean_latency_s is not None and r.wer <= 0.2 for r in profile.rows)
    saved = load_profile("tiny.en")
    assert saved is not None and saved.allocation == profile.allocation
    notices = []
    assert (
        choose_allocation(StreamConfig(policy="flow", pipeline=True), notices) == profile.allocation and notices == []
    )
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", pipeline=True))
    processor.close()
    assert processor.__class__.__name__ == ("PipelinedProcessor" if profile.allocation.pipeline else "OnlineProcessor")


def test_a_round_is_prompted_with_the_words_before_its_own_audio(tiny_model):
    """A pipelined round encoded its audio before the previous round trimmed the buffer: the words trimmed away in
    between are in that audio, so its prompt must end before them (docs/bench/gpu: repeated phrases otherwise)."""
    from engine.session.words import Word

    processor, _ = build_processor(tiny_model, StreamConfig.for_allocation(Allocation(True, 0, 0), policy="flow"))
    try:
        processor.committed = [
            Word("Printing,", 0.0, 0.6),
            Word("in", 0.6, 0.9),
            Word("the", 2.1, 2.3),
            Word("only", 2.3, 2.8),
        ]
        processor.buffer_offset = 2.8  # trimmed at "only" after the pending round's audio was taken at 1.0
        assert processor.prompt() == "Printing, in the only"
        assert processor.prompt(1.0) == "Printing, in"
        assert processor.prompt(0.0) == ""
    finally:
        processor.close()


def test_a_pipeline_hands_its_rounds_to_the_decoder_its_allocation_names():
    from engine.runtime.mlx_thread import gpu_available
    from engine.stream.config import decoder_backend

    assert decoder_backend(Allocation(False)) is None  # serial: MLX's default device decides
    assert decoder_backend(Allocation(True, 0, 0, "cpu")) == "numpy"
    assert decoder_backend(Allocation(True, 0, 0, "gpu")) == ("mlx" if gpu_available() else "numpy")

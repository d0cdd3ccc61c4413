"""Drive an OnlineProcessor from an audio source, rounds back to back, on a stream clock.

Paces: ``realtime`` (audio arrives at wall-clock speed; the clock is wall time, so latency
includes compute), ``fast`` (each round takes the next min_chunk at once; clock is wall time),
``unaware`` (each round takes the next min_chunk; the clock is the audio position, a lower bound),
``replay:RUN.jsonl`` (each round takes the audio up to a recorded run's round boundary; the clock is
the recorded one, see engine.stream.replay).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.audio.sources import AudioSource
from engine.errors import DeviceError, WhisperFlowError
from engine.runtime.executor import Executor
from engine.runtime.mlx_thread import gpu_available
from engine.session.events import DoneEvent, FinalEvent, RoundEvent, StreamUpdate
from engine.session.words import Word, WordEvent
from engine.stream.finalize import Finalizer
from engine.stream.processor import OnlineProcessor
from engine.stream.replay import is_replay, load_recorded
from engine.stream.shown import ShownTracker


def _level(audio: np.ndarray) -> float:
    return float(np.sqrt(np.mean(audio**2))) if len(audio) else 0.0


def run_stream(
    processor: OnlineProcessor,
    source: AudioSource,
    *,
    pace: str = "realtime",
    min_chunk_s: float | None = None,
    on_update: Callable[[StreamUpdate], None] | None = None,
    on_started: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    notices: list[str] | None = None,
) -> DoneEvent:
    """Stream source through processor until the source ends or stop is set; return the totals.

    min_chunk_s: the new audio a round waits for (default: the processor's, from its configuration).

    A DeviceError from the source (e.g. an unplugged device) ends the stream as a clean stop does (the
    tail is confirmed by finish() and reported), then propagates with the totals as its ``done``.
    """
    stop = stop or threading.Event()
    loop = StreamLoop(processor, source, pace=pace, min_chunk_s=min_chunk_s, on_update=on_update, stop=stop)
    source.start()
    loop.started()
    if on_started:
        on_started()
    executor = final_pass_executor() if processor.final_policy else None
    loop.attach_finalizer(executor)
    try:
        while loop.live:
            loop.step()
        loop.flush()
    finally:
        source.stop()
        if executor:
            executor.close()
    return loop.done(notices)


def final_pass_executor() -> Executor:
    """The thread final passes run on: the accelerator where there is one (the rounds' device)."""
    return Executor("finalize", "gpu" if gpu_available() else "cpu")


class StreamLoop:
    """One stream's rounds, one step at a time (run_stream drives one; engine.stream.call interleaves two).

    ``step()`` takes the next audio and runs a round; ``flush()`` confirms the tail once the source ended or stop
    was set; ``done()`` returns the totals (or raises the source's DeviceError carrying them as ``done``).
    """

    def __init__(
        self,
        processor: OnlineProcessor,
        source: AudioSource,
        *,
        pace: str = "realtime",
        min_chunk_s: float | None = None,
        on_update: Callable[[StreamUpdate], None] | None = None,
        stop: threading.Event | None = None,
    ):
        self.processor = processor
        self.source = source
        self.pace = pace
        self.on_update = on_update
        self.stop = stop or threading.Event()
        self.min_samples = int((min_chunk_s or processor.min_chunk_s) * SAMPLE_RATE)
        self.recorded = load_recorded(pace) if is_replay(pace) else None
        self.consumed, self.rounds = 0, 0
        self.tracker = ShownTracker()
        self.finalizer: Finalizer | None = None
        self.failure: DeviceError | None = None
        self.level = 0.0  # the latest round's input level
        self.tail: list[Word] = []  # the unconfirmed words of the latest update
        self.ended = False
        self.finished = 0.0
        self.cpu0, self.wall0 = time.process_time(), time.perf_counter()

    def started(self) -> None:
        """The source has started: wall time counts from here."""
        self.wall0 = time.perf_counter()

    def attach_finalizer(self, executor: Executor | None) -> None:
        """Final passes run on executor (None: this stream has none). In realtime a final text decoded while a round
        runs goes out between that round's decoding steps, not once the round is over (a round's time later)."""
        if executor is not None:
            processor = self.processor
            self.finalizer = Finalizer(
                processor.transcriber.final_pass(),
                executor.submit,
                self.clock,
                policy=processor.final_policy,
                detector=processor.vad,
            )
            if self.pace == "realtime":
                processor.transcriber.between_steps = self._report_finals

    def clock(self) -> float:
        if self.recorded is not None:
            rounds, recorded = self.rounds, self.recorded
            return recorded.clocks[rounds - 1] if rounds <= len(recorded.clocks) else recorded.finish_clock
        return self.consumed / SAMPLE_RATE if self.pace == "unaware" else time.perf_counter() - self.wall0

    def _report(
        self, words, round_s: float, level: float, span: tuple[float, float] | None, paused=False, cut=False
    ) -> float:
        processor = self.processor
        now = round(self.clock(), 5)  # to 10 µs, as a round record keeps it: a replay's words carry the same times
        tentative = self.tail = processor.tentative()
        shown = self.tracker.update(words, tentative, now)
        events = [w.confirmed(now, shown=at) for w, at in zip(words, shown)]
        self.level = level
        dropped, processor.dropped = processor.dropped, []
        finals = _finals(self.finalizer, events, paused, span is None, cut, self.clock)
        if self.on_update:
            event = RoundEvent(span[0], span[1], now) if span else None
            update = StreamUpdate(events, tentative, now, round_s, processor.buffer_s, level, event, dropped, finals)
            self.on_update(update)
        return now

    def _report_finals(self) -> None:
        """While the stream waits for audio, or between a round's decoding steps in realtime: final texts decoded
        since the last update go out at once, in an update without a round, with the tail as last shown (the next
        round's update would come up to a round's time later)."""
        done = self.finalizer.ready() if self.finalizer else []
        if done and self.on_update:
            now = round(self.clock(), 5)
            finals = [replace(f, clock=now) for f in done]
            update = StreamUpdate([], self.tail, now, 0.0, self.processor.buffer_s, self.level, finals=finals)
            self.on_update(update)

    def _take(self) -> np.ndarray:
        """The next audio of a round (the pace decides how much); sets ended at the source's end."""
        source, recorded = self.source, self.recorded
        if self.pace == "realtime":
            chunk, self.ended = _gather_realtime(source, self.min_samples, self.stop, self._report_finals)
        elif recorded is not None:
            wanted = round(recorded.ends[self.rounds] * SAMPLE_RATE) - self.consumed
            chunk = source.read(wanted) if wanted > 0 else None
            if chunk is None or len(chunk) < wanted:
                raise WhisperFlowError(f"cannot replay round {self.rounds + 1}: the recording and the audio differ")
            self.ended = self.rounds + 1 == len(recorded.ends)
        else:
            got = source.read(self.min_samples, timeout=1.0)
            self.ended = got is None
            chunk = np.zeros(0, np.float32) if got is None else got
        return chunk

    @property
    def live(self) -> bool:
        """Whether another step may run: the source has not ended and no stop was asked for."""
        return not self.ended and not self.stop.is_set()

    def step(self) -> bool:
        """Take the next audio and run a round over it; whether the stream goes on."""
        try:
            chunk = self._take()
        except DeviceError as exc:  # what arrived before the failure is still transcribed
            self.failure, chunk, self.ended = exc, getattr(exc, "partial", np.zeros(0, np.float32)), True
        if len(chunk):
            processor = self.processor
            self.consumed += len(chunk)
            processor.insert_audio_chunk(chunk)
            if self.finalizer:
                self.finalizer.add_audio(chunk)
            t, skipped = time.perf_counter(), processor.stats.skipped
            confirmed = processor.process_iter()
            self.rounds += 1
            span = (processor.round_start, self.consumed / SAMPLE_RATE)
            paused = processor.stats.skipped > skipped
            self._report(confirmed, time.perf_counter() - t, _level(chunk), span, paused)
        return self.live

    def flush(self) -> None:
        """Confirm the tail: the source ended, failed or was stopped (the last update carries every final text)."""
        self.processor.transcriber.between_steps = None
        self.rounds += 1
        cut = self.failure is not None or not self.ended  # stopped mid-speech: the last word may be cut off
        self.finished = self._report(self.processor.finish(cut), 0.0, 0.0, None, cut=cut)

    def done(self, notices: list[str] | None = None) -> DoneEvent:
        """The stream's totals; a source's DeviceError is raised again, carrying them as ``done``."""
        stats = self.processor.stats
        finalizer, failure = self.finalizer, self.failure
        done = DoneEvent(
            audio_s=self.consumed / SAMPLE_RATE,
            wall_s=time.perf_counter() - self.wall0 if self.pace == "unaware" else self.finished,  # the final flush
            rounds=stats.rounds,
            encode_s=stats.encode_s,
            decode_s=stats.decode_s,
            align_s=stats.align_s,
            encoder_gflops=stats.encoder_gflops,
            avg_beam=stats.avg_beam,
            reduced_beam_fraction=stats.reduced_steps / stats.beam_steps if stats.beam_steps else 0.0,
            cpu_s=time.process_time() - self.cpu0,
            forced=stats.forced,
            padded_retries=stats.padded_retries,
            early_retries=stats.early_retries,
            guard_stops=stats.guard_stops,
            budget_stops=stats.budget_stops,
            skipped_rounds=stats.skipped,
            late=stats.late,
            dropped_s=stats.dropped_s,
            corrections=self.tracker.corrections,
            finalized=finalizer.finalized if finalizer else 0,
            notices=list(notices or []),
            error=str(failure) if failure else None,
        )
        if failure is not None:
            failure.done = done
            raise failure
        return done


def _finals(
    finalizer: Finalizer | None,
    confirmed: list[WordEvent],
    paused: bool,
    ended: bool,
    cut: bool,
    clock: Callable[[], float],
) -> list[FinalEvent]:
    """The utterances finalized since the last update, stamped with the clock once they are: after a pause, a
    length limit or the end of the stream (which waits for them; cut: a stopped stream's)."""
    if finalizer is None:
        return []
    finalizer.add_confirmed(confirmed)
    if ended:
        done = finalizer.finish(cut)
    else:
        if paused:
            finalizer.pause()
        else:
            finalizer.check_length()
        done = finalizer.ready()
    now = round(clock(), 5)
    return [replace(f, clock=now) for f in done]


def _gather_realtime(
    source: AudioSource, min_samples: int, stop: threading.Event, idle: Callable[[], None]
) -> tuple[np.ndarray, bool]:
    """Everything that has arrived, waiting until at least min_samples have (or the stream ends); idle is called
    after each wait."""
    parts: list[np.ndarray] = []
    have = 0
    while have < min_samples and not stop.is_set():
        try:
            got = source.read(None, timeout=0.05)
        except DeviceError as exc:
            exc.partial = np.concatenate(parts) if parts else np.zeros(0, np.float32)
            raise
        if got is None:
            return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), True
        if len(got):
            parts.append(got)
            have += len(got)
        idle()
    try:
        extra = source.read(None, timeout=0.0)  # whatever else is already there
    except DeviceError as exc:
        exc.partial = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        raise
    if extra is not None and len(extra):
        parts.append(extra)
    return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), False

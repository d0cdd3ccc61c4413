"""A call: two streams, You (the microphone) and Them (the computer's audio), sharing one loaded model.

Each side has its own processor (buffer, prompt, agreement, finalization) built on the same model; one loop runs
their rounds in turn (Them's, then You's), so both stay live: a side whose voice-activity detector hears no speech
skips its round at almost no cost, and when both speak each gets every other round. The final passes of both sides
share one thread. A side whose source ends or fails is finished (its tail confirmed) and the other goes on.
Every update, word, round and final record carries its side's ``speaker``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from engine.audio.echo_canceller import EchoCancelledSource, EchoCanceller, SharedReference
from engine.audio.files import SAMPLE_RATE
from engine.audio.sources import AudioSource
from engine.errors import DeviceError, WhisperFlowError
from engine.session.events import DoneEvent, StreamUpdate
from engine.stream.echo_guard import EchoGuard
from engine.stream.processor import OnlineProcessor
from engine.stream.runner import StreamLoop, final_pass_executor

SPEAKERS = ("you", "them")
ORDER = ("them", "you")  # Them's round first: the echo guard has heard Them's words when You's round repeats them


@dataclass
class CallSide:
    """One side of a call: who speaks, and their stream's processor and source."""

    speaker: str
    processor: OnlineProcessor
    source: AudioSource


def label(update: StreamUpdate, speaker: str) -> StreamUpdate:
    """The update with speaker on it and on each of its words, its round and its final records."""
    tag = lambda words: [replace(w, speaker=speaker) for w in words]  # noqa: E731
    finals = [replace(f, speaker=speaker, words=tag(f.words)) for f in update.finals]
    round_event = replace(update.round, speaker=speaker) if update.round else None
    return replace(
        update,
        confirmed=tag(update.confirmed),
        tentative=tag(update.tentative),
        finals=finals,
        round=round_event,
        speaker=speaker,
    )


def check_sides(sides: Sequence[CallSide]) -> None:
    """Raise WhisperFlowError unless the sides are You and Them, each with a processor of its own."""
    if sorted(s.speaker for s in sides) != sorted(SPEAKERS):
        raise WhisperFlowError("a call has two sides: you and them")
    if sides[0].processor is sides[1].processor or sides[0].source is sides[1].source:
        raise WhisperFlowError("each side of a call needs a processor and a source of its own")


def run_call(
    sides: Sequence[CallSide],
    *,
    pace: str = "realtime",
    on_update: Callable[[StreamUpdate], None] | None = None,
    on_started: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    notices: list[str] | None = None,
    guard: EchoGuard | None = None,
    canceller: EchoCanceller | None = None,
) -> dict[str, DoneEvent]:
    """Stream both sides until both end or stop is set; each side's totals (a failed side's with its error).

    guard: drops You's words that repeat Them's, each of You's updates held until Them's stream has heard past its
    words (None: none dropped or held). You's rounds over Them's echo still run (a gate that skipped them by level
    cut your own words and saved no CPU: docs/bench/call). canceller: removes Them's voice from your audio, with
    Them's audio as its reference (engine.audio.echo_canceller; None: your audio as it comes)."""
    check_sides(sides)
    stop = stop or threading.Event()

    by_speaker = {s.speaker: s for s in sides}
    if canceller is not None:
        reference = SharedReference(by_speaker["them"].source)
        you = EchoCancelledSource(by_speaker["you"].source, reference, canceller)
        by_speaker = {
            "them": replace(by_speaker["them"], source=reference.stream_source()),
            "you": replace(by_speaker["you"], source=you),
        }

    def deliver(speaker: str, update: StreamUpdate) -> None:
        update = label(update, speaker)
        if guard is None:
            ready = [update]
        elif speaker == "them":
            them = loops["them"]
            guard.hear(update, them.consumed / SAMPLE_RATE if them.live else float("inf"))
            ready = [update, *guard.ready(update.clock)]
        else:
            ready = guard.hold(update)
        for each in ready if on_update else ():
            on_update(each)

    loops = {
        k: StreamLoop(
            s.processor,
            s.source,
            pace=pace,
            stop=stop,
            on_update=lambda u, k=k: deliver(k, u),
        )
        for k, s in by_speaker.items()
    }
    started: list[AudioSource] = []
    try:
        for k in ORDER:
            by_speaker[k].source.start()
            started.append(by_speaker[k].source)
        for loop in loops.values():
            loop.started()
        if on_started:
            on_started()
        executor = final_pass_executor() if any(s.processor.final_policy for s in sides) else None
        for loop in loops.values():
            loop.attach_finalizer(executor)
        try:
            _interleave([loops[k] for k in ORDER])
        finally:
            if executor:
                executor.close()
    finally:
        for source in started:
            source.stop()
    return {k: _done(loop, notices) for k, loop in loops.items()}


def _interleave(loops: list[StreamLoop]) -> None:
    """A round of each live stream in turn; a stream that ended (or was stopped) is flushed and left out."""
    active = list(loops)
    while active:
        for loop in list(active):
            if loop.live:
                loop.step()
            if not loop.live:
                loop.flush()
                loop.source.stop()
                active.remove(loop)


def _done(loop: StreamLoop, notices: list[str] | None) -> DoneEvent:
    try:
        return loop.done(notices)
    except DeviceError as exc:  # this side's device failed; the other went on, and its words are all kept
        return exc.done

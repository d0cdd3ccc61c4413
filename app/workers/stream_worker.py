"""Captioning on a background thread: audio source → streaming processor → session journal → GUI.

Confirmed words are appended to the session journal before the GUI hears of them, so every word a
person has seen is already on disk. A failing source (an unplugged device) ends the session with a
message; what was confirmed before it stays in the journal and the transcript.
"""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, Signal, Slot

from app.workers.metered_source import MeteredSource
from engine.audio.call_sources import CallSources
from engine.audio.echo_canceller import optional_canceller
from engine.audio.sources import AudioSource
from engine.errors import DeviceError, DiskFullError, WhisperFlowError
from engine.model.whisper_model import LoadedModel
from engine.runtime.mlx_thread import own_stream
from engine.session.events import DoneEvent, FinalEvent, StreamUpdate, WordEvent
from engine.stream.call import CallSide, run_call
from engine.stream.config import StreamConfig, build_processor
from engine.stream.echo_guard import EchoGuard
from engine.stream.runner import run_stream

log = logging.getLogger(__name__)


class WordSink(Protocol):
    """Where confirmed words are kept as they arrive (the session journal)."""

    def append(self, words: list[WordEvent], finals: list[FinalEvent] = ()) -> None: ...

    def close(self) -> None: ...


class StreamWorker(QObject):
    """Run on a QThread. Setting `stop_event` (from any thread) ends the session; `finished` is emitted once."""

    update = Signal(object)  # StreamUpdate
    level = Signal(float)  # RMS of each block read from the source, as it is read
    listening = Signal()  # the source is open: from now on, what is said is heard
    notice = Signal(str)
    failed = Signal(str)
    device_lost = Signal(str)  # the source stopped working (unplugged); what was confirmed is kept
    finished = Signal(object)  # DoneEvent, or None when the session could not run to the end

    def __init__(
        self,
        loaded: LoadedModel,
        config: StreamConfig,
        open_source: Callable[[], AudioSource],
        journal: WordSink | None = None,
        pace: str = "realtime",
        cancel_echo: bool = True,
    ):
        """cancel_echo: in a call, remove Them's voice from your microphone (engine.audio.echo_canceller); off
        for a person in headphones, where there is no echo and the canceller would only reshape your voice."""
        super().__init__()
        self.loaded = loaded
        self.config = config
        self.open_source = open_source
        self.journal = journal
        self.pace = pace
        self.cancel_echo = cancel_echo
        self.stop_event = threading.Event()
        self._disk_full_told = False

    def _deliver(self, update: StreamUpdate) -> None:
        if (update.confirmed or update.finals) and self.journal is not None:
            try:
                self.journal.append(update.confirmed, update.finals)
            except DiskFullError as exc:  # the journal keeps the words and retries with the next round
                if not self._disk_full_told:
                    self.notice.emit(str(exc))
                self._disk_full_told = True
        self.update.emit(update)

    @Slot()
    def run(self) -> None:
        done = None
        try:
            with own_stream():
                processor, notices = build_processor(self.loaded, self.config)
                for text in notices:
                    self.notice.emit(text)
                try:
                    opened = self.open_source()
                    if isinstance(opened, CallSources):
                        done = self._run_call(opened, processor, notices)
                    else:
                        done = run_stream(
                            processor,
                            MeteredSource(opened, self.level.emit),
                            pace=self.pace,
                            on_update=self._deliver,
                            on_started=self.listening.emit,
                            stop=self.stop_event,
                            notices=notices,
                        )
                finally:
                    processor.close()  # the pipelined processor's executor threads
        except DeviceError as exc:
            self.device_lost.emit(str(exc))
        except WhisperFlowError as exc:
            self.failed.emit(str(exc))
        except OSError as exc:
            reason = "the disk is full" if exc.errno == errno.ENOSPC else str(exc)
            self.failed.emit(f"Captioning stopped: {reason}. Everything confirmed before this is kept.")
        except Exception as exc:  # a bug must not take the transcript or the app down with it
            log.exception("captioning stopped by an unexpected error")
            self.failed.emit(
                f"Captioning stopped by an unexpected error ({exc!r}). Everything confirmed before this is kept."
            )
        finally:
            self._close_journal()
            self.finished.emit(done)

    def _run_call(self, call: CallSources, processor, notices: list[str]) -> DoneEvent:
        """Both sides of a call through the same model (engine.stream.call), your words echo-guarded; the meter
        shows your side. A side whose device fails is reported once the other ends; every word is kept."""
        them, _ = build_processor(self.loaded, self.config)
        you = MeteredSource(call.you, self.level.emit)
        sides = [CallSide("you", processor, you), CallSide("them", them, call.them)]
        canceller = optional_canceller(self.notice.emit) if self.cancel_echo else None
        try:
            dones = run_call(
                sides,
                pace=self.pace,
                on_update=self._deliver,
                on_started=self.listening.emit,
                stop=self.stop_event,
                notices=notices,
                guard=EchoGuard(),
                canceller=canceller,
            )
        finally:
            them.close()
        for speaker, done in dones.items():
            if done.error:
                self.device_lost.emit(f"{'Your' if speaker == 'you' else 'Their'} side: {done.error}")
        return dones["you"]

    def _close_journal(self) -> None:
        if self.journal is None:
            return
        try:
            self.journal.close()
        except WhisperFlowError as exc:
            self.failed.emit(f"{exc} The session stays open for recovery at the next start.")

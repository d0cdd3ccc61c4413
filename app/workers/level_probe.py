"""Test an audio source: open it on a thread and report its level until stopped (the wizard's meter)."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal, Slot

from app.widgets.source_picker import SourceChoice
from app.workers.metered_source import MeteredSource
from engine.errors import WhisperFlowError

MAX_SECONDS = 60.0
FILE_BLOCK = 1600  # 0.1 s


class LevelProbe(QObject):
    """Emits level(rms) for each block read; failed(message) if the source cannot be opened or dies."""

    level = Signal(float)
    failed = Signal(str)
    finished = Signal()

    def __init__(self, choice: SourceChoice):
        super().__init__()
        self.choice = choice
        self.stop_event = threading.Event()

    @Slot()
    def run(self) -> None:
        source = MeteredSource(self.choice.open(), self.level.emit)
        try:
            source.start()
            paced = self.choice.kind == "file"
            read = 0
            while not self.stop_event.is_set() and read < MAX_SECONDS * source.sample_rate:
                block = source.read(FILE_BLOCK if paced else None, timeout=0.05)
                if block is None:
                    break
                read += len(block)
                if paced:  # a file is there at once: hand it out at its own speed so the meter moves
                    self.stop_event.wait(len(block) / source.sample_rate)
        except WhisperFlowError as exc:
            self.failed.emit(str(exc))
        finally:
            source.stop()
            self.finished.emit()

"""The thread-allocation profile: the saved choice, and "Calibrate now" running the profiler with
progress, cancel and its result table (shared by the settings pane and the first-run wizard)."""
from __future__ import annotations

import dataclasses
import threading

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from engine.errors import WhisperFlowError
from engine.model_store import prepare_model
from engine.whisper_model import load_model_dir

from .mlx_thread import own_stream
from .model_worker import ModelCache
from .threads import start_on_thread


def profiler_module():
    """engine.profiler when this build has it, else None."""
    try:
        from engine import profiler
    except ImportError:
        return None
    return profiler


class CalibrationWorker(QObject):
    """Loads the model if needed and runs the profiler; `cancel()` may be called from any thread."""

    progress = Signal(float, str)
    result = Signal(object)
    failed = Signal(str)
    finished = Signal()

    def __init__(self, model: str, cache: ModelCache):
        super().__init__()
        self.model = model
        self.cache = cache
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @Slot()
    def run(self) -> None:
        try:
            with own_stream():
                loaded = self.cache.get(self.model)
                if loaded is None:
                    self.progress.emit(0.0, f"Preparing {self.model}…")
                    loaded = load_model_dir(prepare_model(self.model), self.model)
                    self.cache.put(loaded)
                outcome = profiler_module().calibrate(loaded, progress=lambda f, text: self.progress.emit(f, text),
                                                      cancelled=self._cancel.is_set)
            if self._cancel.is_set():
                self.failed.emit("Calibration cancelled; the previous profile is kept.")
            else:
                self.result.emit(outcome)
        except WhisperFlowError as exc:
            self.failed.emit(str(exc))
        finally:
            self.finished.emit()


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


class CalibrationPanel(QWidget):
    """Shows the current profile and runs calibration. `model_name` is read when calibration starts."""

    calibrated = Signal(object)

    def __init__(self, cache: ModelCache, model_name, parent: QWidget | None = None):
        super().__init__(parent)
        self.cache = cache
        self.model_name = model_name
        self.summary = QLabel(wordWrap=True)
        self.start_button = QPushButton("Calibrate now")
        self.cancel_button = QPushButton("Cancel", enabled=False)
        self.progress = QProgressBar(textVisible=True, maximum=1000)
        self.progress.setFormat("")
        self.status = QLabel(wordWrap=True)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self._worker: CalibrationWorker | None = None
        self._thread = None
        self.refresh()

    def refresh(self) -> None:
        profiler = profiler_module()
        if profiler is None:
            self.summary.setText("Thread allocation: the default (accelerator only). The profiler that measures "
                                 "the best allocation for this machine is not part of this build.")
            self.start_button.setEnabled(False)
            return
        profile = profiler.load_profile(self.model_name())
        self.summary.setText(f"Thread allocation for {self.model_name()}: "
                             + (profile.describe() if profile is not None else
                                "not calibrated yet (running accelerator only). Calibrating takes a few minutes."))

    def running(self) -> bool:
        return self._worker is not None

    def start(self) -> None:
        if self._worker is not None or profiler_module() is None:
            return
        self._worker = CalibrationWorker(self.model_name(), self.cache)
        self._worker.progress.connect(self._on_progress)
        self._worker.result.connect(self._on_result)
        self._worker.failed.connect(self.status.setText)
        self._worker.finished.connect(self._on_finished)
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText("Calibrating…")
        self._thread = start_on_thread(self._worker, self)

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self.status.setText("Cancelling after the current measurement…")

    def _on_progress(self, fraction: float, text: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{fraction:.0%}")
        self.status.setText(text)

    def _on_result(self, outcome) -> None:
        rows = list(outcome.rows)
        names = [f.name for f in dataclasses.fields(rows[0])] if rows else []
        self.table.setColumnCount(len(names))
        self.table.setHorizontalHeaderLabels([n.replace("_", " ") for n in names])
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, name in enumerate(names):
                item = QTableWidgetItem(_cell(getattr(row, name)))
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(r, c, item)
            if row == outcome.best:
                self.table.selectRow(r)
        self.table.setVisible(True)
        self.status.setText("Calibrated: the best allocation is selected in the table and saved.")
        self.refresh()
        self.calibrated.emit(outcome)

    def _on_finished(self) -> None:
        self._worker = None
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def shutdown(self) -> None:
        """Cancel a running calibration and wait for it to end (the window is closing)."""
        if self._worker is not None:
            self._worker.cancel()
        if self._thread is not None:
            self._thread.wait()

"""The thread-allocation profile in a person's words: the saved speed setting and why it was chosen, and "Find the
best setting" running the profiler with progress, cancel and its result table behind "Show details" (shared by the
settings pane and the first-run wizard)."""

from __future__ import annotations

import html
import threading

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.workers.model_worker import ModelCache, load_cached
from app.workers.threads import start_on_thread
from engine.errors import WhisperFlowError
from engine.runtime.mlx_thread import own_stream
from engine.stream.profiler import LATENCY_MARGIN, calibrate, candidate_allocations
from engine.stream.profiles import CalibrationRow, Profile, load_profile


class CalibrationWorker(QObject):
    """Loads the model if needed and runs the profiler; `cancel()` may be called from any thread."""

    progress = Signal(float, str)
    result = Signal(object)  # Profile
    failed = Signal(str)
    finished = Signal()

    def __init__(self, model: str, cache: ModelCache, allocations=None):
        super().__init__()
        self.model = model
        self.cache = cache
        self.allocations = allocations
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @Slot()
    def run(self) -> None:
        try:
            if self.cache.get(self.model) is None:
                self.progress.emit(0.0, f"Preparing {self.model}…")
            loaded = load_cached(self.model, self.cache)
            with own_stream():
                profile = calibrate(loaded, allocations=self.allocations, progress=self._progress, cancel=self._cancel)
            if profile is None:
                self.failed.emit("Calibration cancelled; the previous profile is kept.")
            else:
                self.result.emit(profile)
        except WhisperFlowError as exc:
            self.failed.emit(str(exc))
        finally:
            self.finished.emit()

    def _progress(self, done: int, total: int, last: CalibrationRow | None) -> None:
        text = f"Trying speed setting {min(done + 1, total)} of {total}"
        if last is not None and last.mean_latency_s is not None:
            text += f" (the last one showed words {last.mean_latency_s:.1f} s after they were said)"
        self.progress.emit(done / total if total else 1.0, text if done < total else "Choosing the best…")


# The table's columns: header and what it means (the header's tooltip).
COLUMN_HELP = {
    "Setting": "How the work is shared between the processor's cores and the graphics chip",
    "Average delay": "How long after a word is said it appears, on average",
    "Most words within": "9 words in 10 appeared within this time",
    "Word errors": "Words wrong, missing or added on the test recording",
    "Processor use": "Processor cores kept busy, on average, while captioning",
    "Power": "Power drawn while captioning",
    "Chosen": "The setting WhisperFlow uses",
}
COLUMNS = tuple(COLUMN_HELP)


def row_cells(row: CalibrationRow, profile: Profile) -> list[str]:
    def seconds(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f} s"

    watts = "—" if row.watts is None else f"{row.watts:.1f} W"  # where it comes from: the cell's tooltip
    chosen = "✔" if row.allocation == profile.allocation else ("" if row.accepted else "too many errors")
    return [
        row.allocation.describe(),
        seconds(row.mean_latency_s),
        seconds(row.p90_latency_s),
        f"{100 * row.wer:.1f} %",
        f"{row.cpu_s_per_audio_s:.1f} cores",
        watts,
        chosen,
    ]


class CalibrationPanel(QWidget):
    """Shows the current profile and runs calibration. `model_name` is read when calibration starts."""

    calibrated = Signal(object)  # Profile; emitted once the run has ended (running() is False)
    stopped = Signal()  # a run ended: calibrated, cancelled or failed

    def __init__(self, cache: ModelCache, model_name, parent: QWidget | None = None):
        super().__init__(parent)
        self.cache = cache
        self.model_name = model_name
        self.summary = QLabel(wordWrap=True)
        self.start_button = QPushButton("Find the best setting")
        self.cancel_button = QPushButton("Cancel", enabled=False)
        self.progress = QProgressBar(textVisible=True, maximum=1000)
        self.progress.setFormat("")
        self.progress.setVisible(False)
        self.status = QLabel(wordWrap=True)
        self.details_button = QToolButton(text="Show details", checkable=True, autoRaise=True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.RightArrow)
        self.details_button.toggled.connect(self._toggle_details)
        self.details_button.setVisible(False)
        self.table = QTableWidget(0, len(COLUMNS))
        for c, (title, help_text) in enumerate(COLUMN_HELP.items()):
            header_item = QTableWidgetItem(title)
            header_item.setToolTip(help_text)
            self.table.setHorizontalHeaderItem(c, header_item)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)  # as tall as its rows: nothing to scroll
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.Stretch)  # the setting's words wrap; every number column fits
        header.sectionResized.connect(lambda *_: self._fit_rows())
        self.table.setWordWrap(True)
        self.table.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        buttons.addStretch(0)  # keeps the buttons at their size while the progress bar is hidden
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.details_button, 0, Qt.AlignLeft)
        layout.addWidget(self.table)
        layout.addStretch(1)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self._worker: CalibrationWorker | None = None
        self._thread = None
        self._result: Profile | None = None
        self.allocations = None  # None: every allocation worth measuring here (tests measure fewer)
        self.refresh()

    def _toggle_details(self, shown: bool) -> None:
        self.details_button.setText("Hide details" if shown else "Show details")
        self.details_button.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
        self.table.setVisible(shown and self.table.rowCount() > 0)

    def refresh(self) -> None:
        """Show the saved profile for the current model (and its table, when it has one)."""
        model = self.model_name()
        profile = load_profile(model)
        if profile is None:
            count = len(candidate_allocations())
            self.summary.setText(
                f"WhisperFlow has not yet measured which speed setting suits {model} on this "
                f"computer, so it uses a safe one. Measuring plays a short bundled recording "
                f"{count} times, once per setting, and keeps the one using the least power among those within "
                f"{round(100 * LATENCY_MARGIN)} % of the fastest (a few minutes)."
            )
            self.table.setVisible(False)
            self.details_button.setVisible(False)
            return
        why = f"<br>Why: {html.escape(profile.reason)}." if profile.reason else ""
        self.summary.setText(
            f"Speed setting found for this computer: <b>{profile.allocation.describe()}</b> "
            f"(measured {profile.created[:16].replace('T', ' ')}).{why}"
        )
        self.show_profile(profile)

    def running(self) -> bool:
        return self._worker is not None

    def start(self) -> None:
        if self._worker is not None:
            return
        self._worker = CalibrationWorker(self.model_name(), self.cache, self.allocations)
        self._worker.progress.connect(self._on_progress)
        self._worker.result.connect(self._on_result)
        self._worker.failed.connect(self.status.setText)
        self._worker.finished.connect(self._on_finished)
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.progress.setVisible(True)
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

    def show_profile(self, profile: Profile) -> None:
        self.table.setRowCount(len(profile.rows))
        for r, row in enumerate(profile.rows):
            for c, text in enumerate(row_cells(row, profile)):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignCenter)
                if COLUMNS[c] == "Power":
                    item.setToolTip(row.energy_source)
                self.table.setItem(r, c, item)
        self._fit_rows()
        self.details_button.setVisible(bool(profile.rows))
        self.table.setVisible(bool(profile.rows) and self.details_button.isChecked())

    def _fit_rows(self) -> None:
        """Every row tall enough for its wrapped setting, and the table tall enough for every row."""
        self.table.resizeRowsToContents()
        rows = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        self.table.setFixedHeight(self.table.horizontalHeader().height() + rows + 2 * self.table.frameWidth())

    def _on_result(self, profile: Profile) -> None:
        self._result = profile  # announced in _on_finished, once running() is False

    def _on_finished(self) -> None:
        self._worker = None
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        profile, self._result = self._result, None
        if profile is not None:
            self.refresh()
            self.status.setText(f"Done: the setting is saved ({profile.allocation.describe()}).")
            self.calibrated.emit(profile)
        self.stopped.emit()

    def shutdown(self) -> None:
        """Cancel a running calibration and wait for it to end (the window is closing)."""
        if self._worker is not None:
            self._worker.cancel()
        if self._thread is not None:
            self._thread.wait()

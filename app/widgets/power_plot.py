"""Live power draw and CPU load: a sampler on its own thread feeding a small pyqtgraph plot."""

from __future__ import annotations

import math
from collections import deque

import psutil
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.power import PowerUnavailable, default_meter

HISTORY = 120  # samples shown (one a second: two minutes)
PERIOD_MS = 1000
Y_PADDING = 0.1  # room for the end labels ("0", the top): pyqtgraph drops a label that overflows the plot
IDLE_WATTS = 5.0  # the power plot's least top: an idle computer's draw sits low on it, not magnified to fill it
TIME_TICKS = [(-90, "90 s ago"), (-60, "1 min ago"), (-30, "30 s ago"), (0, "now")]  # two minutes shown


def watts_ceiling(watts) -> float:
    """The power plot's top: IDLE_WATTS, or the highest reading with a little headroom rounded up to 5 W."""
    readings = [w for w in watts if w == w]  # NaN: no reading
    highest = max(readings, default=0.0) * 1.1
    return max(IDLE_WATTS, 5.0 * math.ceil(highest / 5.0))


class PowerSampler(QObject):
    """Reads the power meter and the CPU load once a second (meter reads may block, so not on the GUI thread)."""

    meter_found = Signal(str)  # what the readings are: source, what it covers, measured or estimated
    sample = Signal(float, float)  # watts (NaN when unavailable), CPU load in percent of all cores
    failed = Signal(str)

    def __init__(self):
        super().__init__()
        self._meter = None
        self._timer: QTimer | None = None

    @Slot()
    def run(self) -> None:
        try:
            self._meter = default_meter()
            self.meter_found.emit(self._meter.describe())
        except PowerUnavailable as exc:
            self.failed.emit(f"No power meter: {exc}")
        psutil.cpu_percent(None)  # the first call only sets the reference point
        self._timer = QTimer(self, interval=PERIOD_MS, timeout=self._read)
        self._timer.start()

    @Slot()
    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    def _read(self) -> None:
        watts = float("nan")
        if self._meter is not None:
            try:
                watts = self._meter.read().watts
            except PowerUnavailable as exc:
                self._meter = None
                self.failed.emit(f"The power meter stopped answering: {exc}")
        self.sample.emit(watts, psutil.cpu_percent(None))


class PowerPlot(QWidget):
    """Two small plots (watts, CPU %) with the meter's source above them. Samples only while shown."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.source_label = QLabel("Power meter: starting…", wordWrap=True)
        self.watts: deque[float] = deque(maxlen=HISTORY)
        self.cpu: deque[float] = deque(maxlen=HISTORY)
        pg.setConfigOptions(antialias=True)
        self.plot = pg.GraphicsLayoutWidget()
        self.plot.setMinimumHeight(260)
        self.power_axes = self.plot.addPlot(row=0, col=0)
        self.cpu_axes = self.plot.addPlot(row=1, col=0)
        for axes, title in (
            (self.power_axes, "Power used (watts)"),
            (self.cpu_axes, "Processor busy (% of all cores)"),
        ):
            # titles above each plot: rotated axis titles of two short stacked plots overlap
            axes.setTitle(title, size="9pt")
            axes.getAxis("left").setWidth(44)
            axes.showGrid(y=True, alpha=0.3)
            axes.setMouseEnabled(x=False, y=False)
            axes.hideButtons()
            axes.setXRange(-HISTORY, 5, padding=0)  # room right of "now" for its label
            for side in ("left", "bottom"):
                axes.getAxis(side).enableAutoSIPrefix(False)  # plain numbers, never "(x0.001)"
            axes.getAxis("bottom").setTicks([TIME_TICKS])
        self._set_power_top(IDLE_WATTS)
        self.cpu_axes.setYRange(0, 100, padding=Y_PADDING)
        self.cpu_axes.getAxis("left").setTicks([[(v, str(v)) for v in (0, 50, 100)]])
        self.cpu_axes.getAxis("bottom").setHeight(28)
        self.power_curve = self.power_axes.plot(pen=pg.mkPen("#f0883e", width=2))
        self.cpu_curve = self.cpu_axes.plot(pen=pg.mkPen("#58a6ff", width=2))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.source_label)
        layout.addWidget(self.plot)
        self._thread: QThread | None = None
        self._sampler: PowerSampler | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = QThread(self)
        self._sampler = PowerSampler()
        self._sampler.moveToThread(self._thread)
        self._thread.started.connect(self._sampler.run)
        self._thread.finished.connect(self._sampler.stop, Qt.DirectConnection)  # runs on the sampler's thread
        self._sampler.meter_found.connect(self._meter_found)
        self._sampler.failed.connect(self.source_label.setText)
        self._sampler.sample.connect(self.add_sample)
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling and wait for the sampler's thread to end."""
        if self._thread is None:
            return
        thread = self._thread
        thread.quit()
        thread.wait()
        thread.deleteLater()
        self._thread = self._sampler = None  # the sampler's thread has ended, so it can be freed here

    def _meter_found(self, description: str) -> None:
        self.source_label.setText(f"Power meter: {description}")

    def add_sample(self, watts: float, cpu_percent: float) -> None:
        self.watts.append(watts)
        self.cpu.append(cpu_percent)
        xs = [i - len(self.cpu) + 1 for i in range(len(self.cpu))]
        self.power_curve.setData(xs, list(self.watts), connect="finite")
        self.cpu_curve.setData(xs, list(self.cpu))
        self._set_power_top(watts_ceiling(self.watts))

    def _set_power_top(self, top: float) -> None:
        """The power axis from 0 to top, labelled at 0, half way and the top (pyqtgraph would drop the 0)."""
        self.power_axes.setYRange(0, top, padding=Y_PADDING)
        self.power_axes.getAxis("left").setTicks([[(v, f"{v:g}") for v in (0, top / 2, top)]])

    def showEvent(self, event) -> None:
        self.start()

    def hideEvent(self, event) -> None:
        self.stop()

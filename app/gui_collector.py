"""Run Python's cyclic garbage collector on the GUI thread only.

A collection runs on whichever thread happens to allocate. When a worker thread collects a cycle that holds
Qt wrappers, it destroys those Qt objects there, and PySide hands some deletions over to the GUI thread. The two
threads can then deadlock: one holds the interpreter lock and waits for a Qt mutex, the other holds the mutex
and waits for the lock. So while the app runs, automatic collection is off and a timer on the GUI thread
collects instead, one generation at a time, once the interpreter's own thresholds are passed (pyqtgraph's
`GarbageCollector` does the same for the same reason). Reference counting still frees everything else at once.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Switches automatic collection off on `start` and collects from a GUI-thread timer until `stop`."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_INTERVAL_MS):
        super().__init__(parent)
        self._timer = QTimer(self, interval=interval_ms, timeout=self.collect_due)

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Collect everything left, on this thread, and give collection back to the interpreter."""
        self._timer.stop()
        gc.collect()
        gc.enable()

    def collect_due(self) -> None:
        """Collect the oldest generation whose allocation count has passed its threshold."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        for generation in (2, 1, 0):
            if counts[generation] > thresholds[generation]:
                gc.collect(generation)
                return

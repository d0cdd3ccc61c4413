"""Run a worker object on its own QThread (Buzz style): the worker's `run` slot starts with the thread,
the thread quits once the worker emits `finished`, and the worker is then deleted. The thread object
stays with its parent, so callers can always `wait()` on it."""
from __future__ import annotations

from PySide6.QtCore import QObject, QThread


def start_on_thread(worker: QObject, parent: QObject | None = None) -> QThread:
    """Move worker (which has a `run()` slot and a `finished` signal) to a new thread and start it."""
    thread = QThread(parent)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    worker.finished.connect(thread.quit)
    worker.finished.connect(worker.deleteLater)
    thread.start()
    return thread

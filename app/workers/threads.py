"""Run a worker object on its own QThread (Buzz style): the worker's `run` slot starts with the thread
and the thread quits once the worker emits `finished`. The worker is kept alive here until its thread
has ended; the thread object stays with its parent, so callers can always `wait()` on it."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QThread

_running: set[QObject] = set()  # workers whose thread has not ended yet (Python would free them otherwise)


def start_on_thread(worker: QObject, parent: QObject | None = None) -> QThread:
    """Move worker (which has a `run()` slot and a `finished` signal) to a new thread and start it."""
    thread = QThread(parent)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    worker.finished.connect(thread.quit, Qt.DirectConnection)  # also while the GUI thread waits on it
    _running.add(worker)
    thread.finished.connect(lambda: _running.discard(worker))
    thread.start()
    return thread

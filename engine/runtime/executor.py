"""A named worker thread with its own MLX stream, for overlapping pipeline stages.

MLX streams are per thread: each executor opens a stream on its device once, on its own
thread, and runs every job under it (``own_stream``, which also releases the thread's MLX
state when the thread stops). ``close()`` stops and joins the thread, so a process that used
MLX from several threads exits cleanly.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")
_STOP = object()


class Executor:
    """Runs submitted callables one at a time on a dedicated thread, on an MLX device."""

    def __init__(self, name: str, device: str = "cpu"):
        self.name = name
        self.device = device
        self._jobs: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"whisperflow-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from engine.runtime.mlx_thread import mlx_device, own_stream

        with own_stream(mlx_device(self.device)):
            while True:
                job = self._jobs.get()
                if job is _STOP:
                    return
                fn, future = job
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    future.set_result(fn())
                except BaseException as exc:  # handed to the waiting thread
                    future.set_exception(exc)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        if not self._thread.is_alive():
            raise RuntimeError(f"executor {self.name} is closed")
        future: Future = Future()
        self._jobs.put((fn, future))
        return future

    def close(self) -> None:
        """Finish queued jobs, stop the thread and wait for it."""
        if self._thread.is_alive():
            self._jobs.put(_STOP)
            self._thread.join()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""Garbage made on a worker thread is collected on the GUI thread, and only while the collector runs."""

import gc
import os
import subprocess
import sys
import threading

from PySide6.QtCore import QCoreApplication, QEvent

from app.gui_collector import GuiThreadCollector


class _Cycle:
    """Refers to itself, so only the cyclic collector frees it; records the thread that did."""

    def __init__(self, freed_on: list):
        self.me, self.freed_on = self, freed_on

    def __del__(self):
        self.freed_on.append(threading.current_thread())


GARBAGE = 3  # times the youngest generation's threshold


def _make_garbage_on_a_worker(freed_on: list) -> None:
    def work():
        for _ in range(gc.get_threshold()[0] * GARBAGE):
            _Cycle(freed_on)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()


def _settle() -> None:
    """Free what earlier tests left (their deferred deletions, their cycles) and zero the allocation counts.

    Each object freed lowers the youngest generation's count, so leftovers freed while the test waits could keep
    its garbage under the threshold.
    """
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


def test_a_worker_threads_cyclic_garbage_is_collected_on_the_gui_thread(qtbot, gui_thread_collector):
    assert not gc.isenabled()
    _settle()
    freed_on = []
    _make_garbage_on_a_worker(freed_on)
    assert freed_on == []  # the worker's allocations did not collect it
    qtbot.waitUntil(lambda: len(freed_on) == gc.get_threshold()[0] * GARBAGE, timeout=5000)
    assert set(freed_on) == {threading.main_thread()}


def test_stopping_the_collector_gives_collection_back_to_the_interpreter(qtbot, qapp):
    gc.enable()  # as outside the app
    collector = GuiThreadCollector(qapp)
    collector.start()
    assert not gc.isenabled()
    freed_on = []
    _Cycle(freed_on)
    collector.stop()
    assert freed_on == [threading.main_thread()] and gc.isenabled()
    gc.disable()  # back to this module's collector
    collector.deleteLater()


def test_the_app_starts_with_collection_on_the_gui_thread_only():
    probe = (
        "from app.main import make_application; import gc; app = make_application([]);"
        "print(gc.isenabled(), app.quitOnLastWindowClosed(), app.applicationName())"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "False", "WhisperFlow"], out.stderr

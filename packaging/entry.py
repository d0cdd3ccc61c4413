"""The bundle's entry point: `--selftest`, CLI subcommands when arguments are given, the app without.

WHISPERFLOW_SCREENSHOT=path makes the app save a screen grab of its main window once it is on screen and then
close the window the way a person would (the packaging test's check that the GUI shows and closes cleanly).
"""
from __future__ import annotations

import glob
import os
import sys

SCREENSHOT_ENV = "WHISPERFLOW_SCREENSHOT"
SCREENSHOT_SETTLE_MS = 1500  # after the window is exposed, let layouts and the first paint finish
SCREENSHOT_TIMEOUT_MS = 60000
EXIT_NO_SCREENSHOT = 3


def _use_bundled_openblas() -> None:
    """Point engine/runtime/blas.py at the OpenBLAS the Linux bundle ships (unless the user chose one)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and "WHISPERFLOW_OPENBLAS" not in os.environ:
        found = sorted(glob.glob(os.path.join(bundle, "openblas", "libopenblas*.so*")))
        if found:
            os.environ["WHISPERFLOW_OPENBLAS"] = found[0]


def _use_bundled_portaudio() -> None:
    """sounddevice looks PortAudio up with ctypes.util.find_library, which on Linux asks only the system (ldconfig,
    gcc, ld), never the bundle: keep the system's copy first, and fall back to the one the Linux bundle ships."""
    bundle = getattr(sys, "_MEIPASS", None)
    bundled = sorted(glob.glob(os.path.join(bundle, "libportaudio.so*"))) if bundle else []
    if not bundled:
        return
    import ctypes.util

    system_find = ctypes.util.find_library

    def find_library(name: str) -> str | None:
        found = system_find(name)
        return bundled[0] if found is None and name == "portaudio" else found

    ctypes.util.find_library = find_library


def _bundled(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is not in the bundle
        return False


def _run_cli(argv: list[str]) -> int:
    """The `whisperflow` command line, with the subcommands whose code the bundle carries (no bench)."""
    from cli import cli

    cli.COMMAND_MODULES = tuple(m for m in cli.COMMAND_MODULES if _bundled(m))
    return cli.main(argv)


def _schedule_screenshot(path: str) -> None:
    """Once the main window is exposed, grab it from the screen into path and close it; exit 3 if it never shows."""
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from app.windows.main_window import MainWindow

    clock = QElapsedTimer()
    clock.start()

    def shoot(window: MainWindow) -> None:
        g = window.frameGeometry()
        pixmap = window.screen().grabWindow(0, g.x(), g.y(), g.width(), g.height())
        if pixmap.isNull() or not pixmap.save(path):
            print(f"screenshot: could not save {path}", file=sys.stderr)
            QApplication.exit(EXIT_NO_SCREENSHOT)
            return
        print(f"screenshot: {path} ({pixmap.width()}x{pixmap.height()})", flush=True)
        window.close()

    def poll() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        handle = windows[0].windowHandle() if windows else None
        if handle is not None and handle.isExposed():
            QTimer.singleShot(SCREENSHOT_SETTLE_MS, lambda: shoot(windows[0]))
        elif clock.elapsed() > SCREENSHOT_TIMEOUT_MS:
            print("screenshot: the main window never showed", file=sys.stderr)
            QApplication.exit(EXIT_NO_SCREENSHOT)
        else:
            QTimer.singleShot(100, poll)

    QTimer.singleShot(0, poll)


def _run_app() -> int:
    from PySide6.QtWidgets import QApplication

    from app.main import run_app

    screenshot = os.environ.get(SCREENSHOT_ENV)
    if screenshot:
        QApplication.instance() or QApplication(sys.argv)
        _schedule_screenshot(screenshot)
    return run_app()


def main(argv: list[str]) -> int:
    argv = [a for a in argv if not a.startswith("-psn_")]  # older macOS Finder launches add a process serial number
    _use_bundled_openblas()
    _use_bundled_portaudio()
    import engine  # noqa: F401  (loads OpenBLAS before MLX)

    if argv == ["--selftest"]:
        from engine.runtime.selftest import main as selftest

        return selftest()
    if argv:
        return _run_cli(argv)
    return _run_app()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

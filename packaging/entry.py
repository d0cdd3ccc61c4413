"""The bundle's entry point: `--selftest`, CLI subcommands when arguments are given, the app without.

WHISPERFLOW_LAUNCH_CHECK=audio-file makes the app, once its main window shows, pick that file as the source, press
Captions ▸ Start, wait for confirmed words, press Stop, print the words and quit through File ▸ Quit (exit 0; 4 when
it cannot): the packaging test's proof that the double-click path works in the built bundle.

WHISPERFLOW_SCREENSHOT=path makes the app save a screen grab of its main window once it is on screen and then
close the window the way a person would (the packaging test's check that the GUI shows and closes cleanly).
"""

from __future__ import annotations

import glob
import os
import sys

SCREENSHOT_ENV = "WHISPERFLOW_SCREENSHOT"
LAUNCH_CHECK_ENV = "WHISPERFLOW_LAUNCH_CHECK"  # an audio file: caption it from the real window, stop, quit
LAUNCH_CHECK_TIMEOUT_MS = 240000
EXIT_LAUNCH_CHECK_FAILED = 4
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


def _run_cli(argv: list[str]) -> int:
    """The `whisperflow` command line: the bundle has no `tools` package, so only the product's commands."""
    from cli.main import main as cli_main

    return cli_main(argv)


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


def _schedule_launch_check(audio: str) -> None:
    """Drive the real main window through its own actions: source = audio, Start, first words, Stop, Quit."""
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from app.windows.main_window import MainWindow

    clock = QElapsedTimer()
    clock.start()
    state = {"step": "window"}

    def fail(why: str) -> None:
        print(f"launch check: {why}", file=sys.stderr, flush=True)
        QApplication.exit(EXIT_LAUNCH_CHECK_FAILED)

    def poll() -> None:
        if clock.elapsed() > LAUNCH_CHECK_TIMEOUT_MS:
            return fail(f"timed out waiting for {state['step']}")
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        window = windows[0] if windows else None
        if state["step"] == "window" and window is not None and window.windowHandle().isExposed():
            print(f"launch check: main window shown ({window.width()}x{window.height()})", flush=True)
            window.source_picker.choose_file(audio)
            window.start_action.trigger()
            state["step"] = "words"
        elif state["step"] == "words" and window is not None:
            if window.banner.isVisible():
                return fail(f"error shown: {window.banner_text.text()}")
            if window.transcript.words():
                if window.controller.state == "running":
                    window.start_action.trigger()  # Stop
                state["step"] = "stop"
        elif state["step"] == "stop" and window is not None and window.controller.state == "idle":
            print(f"launch check: captioned and stopped: {window.transcript.text()}", flush=True)
            window.menu_actions()["File/Quit"].trigger()
            return
        QTimer.singleShot(100, poll)

    QTimer.singleShot(0, poll)


def _run_app() -> int:
    from PySide6.QtWidgets import QApplication

    from app.main import run_app

    screenshot = os.environ.get(SCREENSHOT_ENV)
    launch_check = os.environ.get(LAUNCH_CHECK_ENV)
    if screenshot or launch_check:
        QApplication.instance() or QApplication(sys.argv)
    if screenshot:
        _schedule_screenshot(screenshot)
    if launch_check:
        _schedule_launch_check(launch_check)
    return run_app()


def main(argv: list[str]) -> int:
    argv = [a for a in argv if not a.startswith("-psn_")]  # older macOS Finder launches add a process serial number
    _use_bundled_openblas()
    _use_bundled_portaudio()
    from engine.runtime.startup import prepare

    prepare()  # after the bundle's OpenBLAS is chosen, before anything imports MLX

    if argv == ["--selftest"]:
        from engine.selftest import main as selftest

        return selftest()
    if argv:
        return _run_cli(argv)
    return _run_app()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

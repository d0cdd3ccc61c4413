"""The tray (menu-bar) icon: start and stop captions, show the captions or the main window, quit.

Where the desktop has a tray (every Mac: the menu bar), the icon shows, and closing the main window while captions
run keeps them running behind it; closed while idle, or where there is no tray, the window quits the app.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from app.widgets.app_icon import app_icon


def tray_available() -> bool:
    """Whether this desktop shows tray icons (the main window shows its icon only then)."""
    return QSystemTrayIcon.isSystemTrayAvailable()


def tray_place(platform: str = sys.platform) -> str:
    """Where the icon sits, as the person's desktop names it."""
    return "menu bar" if platform == "darwin" else "system tray"


def closing_behaviour(tray: bool, platform: str = sys.platform) -> str:
    """What starting captions and closing the main window do here, in a person's words (HTML)."""
    if not tray:
        return (
            "<p>Press <b>Start</b> (Ctrl+Return) in the main window to start captions.</p>"
            "<p>Closing the main window stops captions and quits WhisperFlow.</p>"
        )
    place = tray_place(platform)
    return (
        f"<p>Press <b>Start</b> (Ctrl+Return) in the main window, or choose <b>Start captions</b> from the "
        f"WhisperFlow icon in the {place}, to start captions.</p>"
        f"<p>Closing the main window while captions run keeps them running: the icon in the {place} stops them "
        "or opens the window again. Closing it while nothing is captioned quits WhisperFlow.</p>"
    )


class TrayIcon(QSystemTrayIcon):
    start_stop_requested = Signal()
    captions_toggled = Signal(bool)
    show_window_requested = Signal()
    quit_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(app_icon(), parent)
        self.setToolTip("WhisperFlow")
        self.menu = QMenu(parent)
        self.start_action = self.menu.addAction("Start captions", self.start_stop_requested.emit)
        self.captions_action = self.menu.addAction("Show caption window")
        self.captions_action.setCheckable(True)
        self.captions_action.setChecked(True)
        self.captions_action.toggled.connect(self.captions_toggled.emit)
        self.menu.addAction("Open WhisperFlow", self.show_window_requested.emit)
        self.menu.addSeparator()
        self.menu.addAction("Quit", self.quit_requested.emit)
        self.setContextMenu(self.menu)
        self.activated.connect(self._activated)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.Trigger:
            self.show_window_requested.emit()

    def set_state(self, state: str) -> None:
        """Reflect the session state: idle, preparing, running or stopping."""
        live = state in ("running", "stopping")
        self.setIcon(app_icon(live))
        self.start_action.setText("Stop captions" if live or state == "preparing" else "Start captions")
        self.start_action.setEnabled(state != "stopping")
        self.setToolTip(
            {
                "running": "WhisperFlow: captioning",
                "preparing": "WhisperFlow: preparing the model",
                "stopping": "WhisperFlow: stopping",
            }.get(state, "WhisperFlow")
        )

    def set_captions_shown(self, shown: bool) -> None:
        self.captions_action.blockSignals(True)
        self.captions_action.setChecked(shown)
        self.captions_action.blockSignals(False)

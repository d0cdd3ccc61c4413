"""Help ▸ About: the version, the model in use, the folders where a person's files are, and the licences of what
the app bundles."""

from __future__ import annotations

import html
import platform
from importlib import metadata
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from app.widgets.app_icon import app_icon
from engine.model.store import models_root
from engine.runtime.paths import config_dir, log_dir
from engine.session.journal import sessions_dir

# What ships with the app besides its own code, and under which terms.
BUNDLED = (
    ("Whisper tiny.en and base models", "OpenAI", "MIT licence"),
    ("mlx-whisper and MLX", "Apple", "MIT licence"),
    ("Speech sample", "LJ Speech 1.1, Linda Johnson", "public domain"),
    ("Hush words", "WhisperFlow, trained on LJ Speech", "MIT licence"),
    ("Qt 6 through PySide6", "The Qt Company", "LGPL v3"),
    ("NumPy, OpenBLAS, PortAudio, libsndfile", "their authors", "BSD / MIT / LGPL"),
)


def app_version() -> str:
    try:
        return metadata.version("whisperflow")
    except metadata.PackageNotFoundError:
        return "development"


def readable_path(path: Path) -> str:
    """A folder as a person reads it: inside the home folder as ~/…, elsewhere in full."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def your_folders() -> tuple[tuple[str, str], ...]:
    """What WhisperFlow keeps for the person, and the folder it is in on this computer (readable_path)."""
    return (
        ("Transcripts", readable_path(sessions_dir())),
        ("Settings", readable_path(config_dir())),
        ("Models", readable_path(models_root())),
        ("Log files", readable_path(log_dir())),
    )


def about_html(model: str) -> str:
    rows = "".join(f"<tr><td>{what}</td><td>{who}</td><td>{licence}</td></tr>" for what, who, licence in BUNDLED)
    folders = "".join(f"<tr><td>{what}</td><td>{html.escape(folder)}</td></tr>" for what, folder in your_folders())
    return (
        f"<h2>WhisperFlow {app_version()}</h2>"
        "<p>On-device live captions. Speech is recognised on this computer; nothing is sent anywhere.</p>"
        f"<p>Model in use: <b>{model}</b><br>Running on {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}</p>"
        f"<p><b>Your files</b></p><table cellspacing='0' cellpadding='3'>{folders}</table>"
        "<p><b>Bundled speech, models and libraries</b></p>"
        f"<table cellspacing='0' cellpadding='3'><tr><th align='left'>What</th><th align='left'>From</th>"
        f"<th align='left'>Licence</th></tr>{rows}</table>"
    )


class AboutDialog(QDialog):
    def __init__(self, model: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("About WhisperFlow")
        self.setWindowIcon(app_icon())
        self.text = QLabel(about_html(model), wordWrap=True)
        self.text.setTextFormat(Qt.RichText)
        self.text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(560, 420)

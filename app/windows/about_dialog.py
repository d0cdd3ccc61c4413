"""Help ▸ About: the version, the model in use, and the licences of what the app bundles."""

from __future__ import annotations

import platform
from importlib import metadata

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from app.widgets.app_icon import app_icon

# What ships with the app besides its own code, and under which terms.
BUNDLED = (
    ("Whisper tiny.en and base models", "OpenAI", "MIT licence"),
    ("mlx-whisper and MLX", "Apple", "MIT licence"),
    ("Speech sample (assets/sample.wav)", "LJ Speech 1.1, Linda Johnson", "public domain"),
    ("Hush words (hushwords/)", "WhisperFlow, trained on LJ Speech", "MIT licence"),
    ("Qt 6 through PySide6", "The Qt Company", "LGPL v3"),
    ("NumPy, OpenBLAS, PortAudio, libsndfile", "their authors", "BSD / MIT / LGPL"),
)


def app_version() -> str:
    try:
        return metadata.version("whisperflow")
    except metadata.PackageNotFoundError:
        return "development"


def about_html(model: str) -> str:
    rows = "".join(f"<tr><td>{what}</td><td>{who}</td><td>{licence}</td></tr>" for what, who, licence in BUNDLED)
    return (
        f"<h2>WhisperFlow {app_version()}</h2>"
        "<p>On-device live captions. Speech is recognised on this computer; nothing is sent anywhere.</p>"
        f"<p>Model in use: <b>{model}</b><br>Running on {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}</p>"
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

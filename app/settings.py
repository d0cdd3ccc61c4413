"""The app's settings: one JSON file in the user config dir, read at start and written on every change."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from engine.model.store import DEFAULT_MODEL
from engine.runtime.paths import config_dir
from engine.stream.config import StreamConfig

SETTINGS_FILE = "settings.json"


@dataclass
class CaptionStyle:
    """How the floating caption window looks and behaves."""

    font_size: int = 22
    text_color: str = "#ffffff"
    background_color: str = "#14181e"
    opacity: float = 0.82
    lines: int = 2
    hide_after_s: float = 8.0  # hide after this much silence; 0 keeps it shown
    show_latency: bool = False
    geometry: list[int] | None = None  # x, y, width, height


@dataclass
class AppSettings:
    """Everything the app remembers between runs."""

    model: str = DEFAULT_MODEL
    language: str | None = None
    min_chunk_s: float = 1.0
    beam_size: int = 5  # the `flow` policy's choices: every technique that helps
    hush: bool = True
    beam_pruning: bool = True
    pipeline: bool = True  # used once calibration saved a profile for the model; serial until then
    source_id: str | None = None  # str(InputDevice.id); None = the default microphone
    caption: CaptionStyle = field(default_factory=CaptionStyle)
    main_geometry: list[int] | None = None
    first_run_done: bool = False

    def stream_config(self) -> StreamConfig:
        return StreamConfig(model=self.model, policy="flow", language=self.language,
                            min_chunk_s=self.min_chunk_s, hush=self.hush, beam_size=self.beam_size,
                            beam_pruning=self.beam_pruning, pipeline=self.pipeline)


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def _known(cls, data: dict) -> dict:
    """Only the keys cls has (a file from another version may carry more or fewer)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def load_settings(path: Path | None = None) -> AppSettings:
    """The saved settings, or defaults when there are none or the file is unreadable."""
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        caption = CaptionStyle(**_known(CaptionStyle, data.pop("caption", {}) or {}))
        return AppSettings(caption=caption, **_known(AppSettings, data))
    except (OSError, ValueError, TypeError):
        return AppSettings()


def save_settings(settings: AppSettings, path: Path | None = None) -> None:
    """Write atomically, so a crash mid-write never leaves a broken settings file."""
    path = path or settings_path()
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(asdict(settings), out, indent=2)
    os.replace(tmp, path)

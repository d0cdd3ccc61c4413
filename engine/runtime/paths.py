"""Where WhisperFlow keeps its files (platformdirs); overridable for tests and bundles."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "WhisperFlow"


def _dir(env: str, default: str) -> Path:
    path = Path(os.environ.get(env) or default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Converted models and other rebuildable files."""
    return _dir("WHISPERFLOW_CACHE_DIR", platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """Settings and calibration profiles."""
    return _dir("WHISPERFLOW_CONFIG_DIR", platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """Session journals: transcripts a person must never lose."""
    return _dir("WHISPERFLOW_DATA_DIR", platformdirs.user_data_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    """The app's log files (engine.runtime.logs)."""
    return _dir("WHISPERFLOW_LOG_DIR", platformdirs.user_log_dir(APP_NAME, appauthor=False))


# assets/ sits next to the engine package in a checkout and in a PyInstaller bundle (sys._MEIPASS) alike.
ASSETS = Path(__file__).resolve().parents[2] / "assets"
# The bundled sample: LJ Speech LJ001-0001 (public domain, see assets/ATTRIBUTION.md).
SAMPLE_AUDIO = ASSETS / "sample.wav"

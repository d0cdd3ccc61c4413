"""Where log lines go: the one place that configures logging, for the CLI (stderr) and the app (a rotating file).

Modules log through ``logging.getLogger(__name__)``; the engine's rules say at DEBUG which words they confirm
and drop, the app and the engine say at INFO/WARNING what a person would ask about (a model loaded, a device
opened or lost, a message shown). Nothing is formatted unless its level is on.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Protocol

from engine.runtime.paths import log_dir

LEVELS = ("debug", "info", "warning", "error")
OUR_LOGGERS = ("engine", "app", "cli", "tools")  # at the chosen level; other libraries' at warning or above
LOG_FILE = "whisperflow.log"
MAX_BYTES = 1_000_000  # the file rotates at this size, keeping BACKUPS older ones
BACKUPS = 3
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
STDERR_FORMAT = "%(levelname)s %(name)s: %(message)s"


class _Stderr(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a line is written (a test's capture, a redirected stream)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


_installed: list[logging.Handler] = []  # the handlers configure_logging added (replaced by its next call)


def log_file() -> Path:
    """The app's log file, in the user log folder (WHISPERFLOW_LOG_DIR overrides it)."""
    return log_dir() / LOG_FILE


def configure_logging(level: str = "warning", file: Path | None = None) -> None:
    """Send WhisperFlow's log lines at level and above (one of LEVELS) to stderr, or with file to that rotating file
    (MAX_BYTES × BACKUPS); replaces what an earlier call set up."""
    if level not in LEVELS:
        raise ValueError(f"unknown log level {level!r}; choose one of: {', '.join(LEVELS)}")
    numeric = getattr(logging, level.upper())
    root = logging.getLogger()
    for handler in _installed:
        root.removeHandler(handler)
        handler.close()
    _installed.clear()
    if file is None:
        handler: logging.Handler = _Stderr()
        handler.setFormatter(logging.Formatter(STDERR_FORMAT))
    else:
        handler = RotatingFileHandler(file, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        handler.setFormatter(logging.Formatter(FILE_FORMAT))
    root.addHandler(handler)
    _installed.append(handler)
    root.setLevel(max(numeric, logging.WARNING))
    for name in OUR_LOGGERS:
        logging.getLogger(name).setLevel(numeric)


class TimedWord(Protocol):
    text: str
    start: float
    end: float


class WordList:
    """Words as a log line shows them ('books' 12.30-12.61), their times plus offset (a round's words are timed
    from its buffer's start); formatted only when the line is written."""

    __slots__ = ("words", "offset")

    def __init__(self, words: Sequence[TimedWord], offset: float = 0.0):
        self.words = words
        self.offset = offset

    def __str__(self) -> str:
        shown = (f"{w.text!r} {w.start + self.offset:.2f}-{w.end + self.offset:.2f}" for w in self.words)
        return ", ".join(shown) or "no words"

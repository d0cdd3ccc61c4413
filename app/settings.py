"""The app's settings: one JSON file in the user config dir, read at start and written on every change.

How a stream is transcribed comes from the engine's `flow` policy (engine.stream.policies.POLICIES["flow"]);
a stream setting here is None until the person changes it ("the policy decides"), and settings.json keeps
only what differs from the defaults, so a later change of the policy reaches everyone who never overrode it.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

from engine.errors import SettingsError
from engine.model.store import DEFAULT_MODEL
from engine.runtime.paths import config_dir
from engine.runtime.safe_write import write_file_atomic
from engine.stream.config import DEFAULT_POLICY, StreamConfig
from engine.stream.settings import check_setting

SETTINGS_FILE = "settings.json"
LOW_POWER_POLICY = "low-power"  # the app's "Low power" setting: for a laptop on battery
# The stream settings a person can override; None = what the `flow` policy (or StreamConfig) decides.
STREAM_FIELDS = ("language", "words", "min_chunk_s", "beam_size", "hush", "beam_pruning", "pipeline")


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
    unsure_below: float = 0.5  # words the model gave a lower probability are underlined dotted; 0 marks none
    only_them: bool = False  # in a call, caption the other side only (not your own words)
    geometry: list[int] | None = None  # x, y, width, height


@dataclass
class AppSettings:
    """Everything the app remembers between runs. Stream settings are overrides of the `flow` policy."""

    model: str = DEFAULT_MODEL
    language: str | None = None
    words: str | None = None  # words to know, separated by commas (engine.stream.vocabulary)
    min_chunk_s: float | None = None
    beam_size: int | None = None
    hush: bool | None = None
    beam_pruning: bool | None = None
    pipeline: bool | None = None  # used once calibration saved a profile for the model; serial until then
    low_power: bool = False  # the `low-power` policy instead of `flow` (fewer rounds, the hush word)
    headphones: bool = False  # in a call, no echo to remove: the microphone is captioned as it comes
    source_id: str | None = None  # str(InputDevice.id); None = the default microphone
    caption: CaptionStyle = field(default_factory=CaptionStyle)
    main_geometry: list[int] | None = None
    export_dir: str | None = None  # the folder of the last export
    first_run_done: bool = False

    def stream_config(self) -> StreamConfig:
        """The `flow` policy (or `low-power`) for the chosen model, with the person's overrides (unresolved)."""
        overrides = {name: getattr(self, name) for name in STREAM_FIELDS if getattr(self, name) is not None}
        return StreamConfig(
            model=self.model, policy=LOW_POWER_POLICY if self.low_power else DEFAULT_POLICY, **overrides
        )

    def effective(self) -> StreamConfig:
        """What a stream will run with: the overrides over the policy's choices (for showing in the UI)."""
        return self.stream_config().resolved()


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def _known(cls, data: dict) -> dict:
    """Only the keys cls has (a file from another version may carry more or fewer)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _default(f):
    return f.default_factory() if f.default is MISSING else f.default


def overrides(settings: AppSettings) -> dict:
    """What differs from the defaults: all that settings.json keeps."""
    out = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        if f.name == "caption":
            style = {k: v for k, v in asdict(value).items() if v != getattr(CaptionStyle(), k)}
            if style:
                out["caption"] = style
        elif value != _default(f):
            out[f.name] = value
    return out


# What a saved caption value may be: a number within these bounds, a colour, or the window's rectangle.
CAPTION_RANGES = {
    "font_size": (10, 72),
    "opacity": (0.1, 1.0),
    "lines": (1, 6),
    "hide_after_s": (0.0, 600.0),
    "unsure_below": (0.0, 1.0),
}


def _caption_value_ok(key: str, value) -> bool:
    if key in CAPTION_RANGES:
        low, high = CAPTION_RANGES[key]
        return isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high
    if key in ("text_color", "background_color"):
        return isinstance(value, str) and value.startswith("#") and len(value) in (4, 7, 9)
    if key == "geometry":
        return value is None or (
            isinstance(value, list) and len(value) == 4 and all(isinstance(v, int) and abs(v) < 100_000 for v in value)
        )
    return isinstance(value, bool)  # show_latency, only_them


def _caption_in_range(data: dict) -> dict:
    """The saved caption values without those of the wrong kind or out of range (the defaults apply)."""
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in _known(CaptionStyle, data).items() if _caption_value_ok(k, v)}


# The app's own saved values (not stream settings) and the kinds they may be.
APP_VALUE_KINDS = {
    "source_id": (str, type(None)),
    "main_geometry": (list, type(None)),
    "export_dir": (str, type(None)),
    "first_run_done": (bool,),
    "low_power": (bool,),
    "headphones": (bool,),
}


def _valid(key: str, value) -> bool:
    """A saved stream setting is valid as the CLI's flag would be (engine.stream.settings); the app's own values
    by their kind."""
    if key in APP_VALUE_KINDS:
        return isinstance(value, APP_VALUE_KINDS[key])
    try:
        check_setting(key, value)
    except SettingsError:
        return False
    return True


def _in_range(data: dict) -> dict:
    """The saved values without those outside their allowed range or of the wrong kind (the policy, or the
    default, decides those again)."""
    return {key: value for key, value in data.items() if _valid(key, value)}


def load_settings(path: Path | None = None) -> AppSettings:
    """The saved settings, or defaults when there are none or the file is unreadable."""
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        caption = CaptionStyle(**_caption_in_range(data.pop("caption", {}) or {}))
        return AppSettings(caption=caption, **_in_range(_known(AppSettings, data)))
    except (OSError, ValueError, TypeError, AttributeError):
        return AppSettings()


def save_settings(settings: AppSettings, path: Path | None = None) -> None:
    """Write the overrides atomically (engine.runtime.safe_write), so a crash never leaves a broken file.

    Raises WhisperFlowError (DiskFullError when the disk is full) with a message for the person.
    """
    path = path or settings_path()
    write_file_atomic(path, json.dumps(overrides(settings), indent=2).encode("utf-8"))

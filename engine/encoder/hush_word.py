"""The shipped hush word for a model: 0.5 s of learned audio appended to the buffer instead of
padding it to 30 s. Found by model name in hushwords/, used only with the exact weights it was
trained against; anything else falls back to padding to 30 s, and says why."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.encoder.input import PAD30, Padding
from engine.errors import ModelError
from engine.model.whisper_model import LoadedModel


def hush_dir() -> Path:
    """Where the hush words ship: the hushwords package."""
    import hushwords

    return Path(hushwords.__file__).resolve().parent


@dataclass(frozen=True)
class HushWord:
    """A trained hush word: its samples (16 kHz float32) and its training metadata."""

    model: str
    samples: np.ndarray
    metadata: dict

    @property
    def seconds(self) -> float:
        return len(self.samples) / SAMPLE_RATE

    @property
    def padding(self) -> Padding:
        return Padding("hush", self.seconds, self.samples)


@dataclass(frozen=True)
class HushChoice:
    """What a model's rounds append, and a sentence saying why (for the app and the CLI)."""

    padding: Padding
    note: str


def _read(name: str, directory: Path) -> tuple[np.ndarray, dict] | None:
    meta_path, samples_path = directory / f"{name}.json", directory / f"{name}.npz"
    if not meta_path.exists() or not samples_path.exists():
        return None
    try:
        metadata = json.loads(meta_path.read_text())
        with np.load(samples_path) as f:
            samples = np.asarray(f["samples"], dtype=np.float32)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise ModelError(
            f"the hush word for {name!r} in {directory} is unreadable ({exc}); reinstall WhisperFlow"
        ) from exc
    if samples.ndim != 1 or len(samples) != metadata.get("samples") or not np.isfinite(samples).all():
        raise ModelError(
            f"the hush word for {name!r} in {directory} is damaged (expected {metadata.get('samples')} "
            f"finite samples, found shape {samples.shape}); reinstall WhisperFlow"
        )
    return samples, metadata


def choose_hush(loaded: LoadedModel, directory: Path | None = None) -> tuple[HushWord | None, str]:
    """The hush word for this model if one ships and matches its weights, else None; with the reason."""
    found = _read(loaded.name, directory or hush_dir())
    if found is None:
        return None, f"no hush word for {loaded.name}: padding every buffer to 30 s"
    samples, metadata = found
    # the same weights converted to float16 (on a GPU) have their own checksum, recorded beside float32's
    if loaded.weights_sha256 not in (metadata.get("weights_sha256"), metadata.get("weights_sha256_float16")):
        return None, (
            f"the hush word for {loaded.name} was trained on other weights "
            f"({str(metadata.get('weights_sha256'))[:12]}… ≠ {loaded.weights_sha256[:12]}…): "
            "padding every buffer to 30 s"
        )
    word = HushWord(loaded.name, samples, metadata)
    return word, f"hush word for {loaded.name}: appending {word.seconds:g} s instead of padding to 30 s"


def hush_choice(loaded: LoadedModel, directory: Path | None = None) -> HushChoice:
    """The hush word's padding when there is one, else padding to 30 s; with the note to show."""
    word, note = choose_hush(loaded, directory)
    return HushChoice(word.padding if word else PAD30, note)

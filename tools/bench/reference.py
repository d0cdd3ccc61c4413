"""Reference word timings and offline transcripts: forced alignment where the corpus has it, otherwise
an offline whole-file transcription (cached on disk) by the strongest local model."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import WhisperFlowError
from engine.model.store import file_sha256
from engine.runtime.paths import cache_dir
from engine.session.words import Word
from tools.bench.textgrid import read_textgrid_words

OFFLINE_METHOD = "offline-v2: whole file, 30 s windows with seeking, greedy, padded to 30 s, seeded fallback"
_SIZE_RANK = {"tiny": 0, "base": 1, "small": 2, "medium": 3, "turbo": 3.5, "large": 4}


def model_rank(name: str) -> tuple[float, bool]:
    """How strong a Whisper model is by its size name; English-only models win a tie on English speech."""
    tokens = re.split(r"[-./_]", name.lower())
    rank = max((_SIZE_RANK[t] for t in tokens if t in _SIZE_RANK), default=-1.0)
    return rank, name.endswith(".en")


def strongest_local_model() -> str:
    """The largest installed or prepared model (tiny.en unless a bigger one is on this machine)."""
    from engine.model.store import list_models

    usable = [m.name for m in list_models() if m.available]
    if not usable:
        raise WhisperFlowError("no Whisper model is installed; run `whisperflow models prepare tiny.en`")
    return max(usable, key=model_rank)


@dataclass(frozen=True)
class TimedReference:
    """Reference words with their times, and where the times came from."""

    words: list[Word]
    source: str


class OfflineTranscripts:
    """Whole-file transcripts with word timestamps per (model, audio file), computed once and cached on
    disk, keyed by the model's weights, the audio's bytes and the method."""

    def __init__(self, directory: Path | None = None):
        self.directory = directory or cache_dir() / "bench-offline"
        self._models: dict = {}
        self._weights: dict[str, str] = {}

    def _model(self, name: str):
        if name not in self._models:
            from engine.model.whisper_model import load_model

            self._models[name] = load_model(name)
        return self._models[name]

    def _weights_sha256(self, name: str) -> str:
        """The prepared model's weights checksum (verified once), without loading the model."""
        if name not in self._weights:
            from engine.model.store import prepare_model

            self._weights[name] = json.loads((prepare_model(name) / "manifest.json").read_text())["sha256"]
        return self._weights[name]

    def _cache_path(self, model_name: str, audio_path: Path) -> Path:
        weights = self._weights_sha256(model_name)
        key = hashlib.sha256(f"{weights}|{file_sha256(audio_path)}|{OFFLINE_METHOD}".encode()).hexdigest()
        return self.directory / f"{model_name.replace('/', '--')}-{key[:24]}.json"

    def words(self, model_name: str, audio_path: Path) -> list[Word]:
        path = self._cache_path(model_name, Path(audio_path))
        try:
            return [Word(*w) for w in json.loads(path.read_text())["words"]]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        from engine.audio.files import load_audio
        from engine.stream.offline import transcribe_audio
        from engine.stream.round import Transcriber

        words = transcribe_audio(Transcriber(self._model(model_name)), load_audio(audio_path))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {
                    "model": model_name,
                    "audio": str(audio_path),
                    "method": OFFLINE_METHOD,
                    "words": [[w.text, w.start, w.end, w.probability] for w in words],
                }
            )
        )
        tmp.replace(path)
        return words

    def text(self, model_name: str, audio_path: Path) -> str:
        return " ".join(w.text for w in self.words(model_name, audio_path))

    def release(self) -> None:
        """Drop the loaded models (before measuring memory elsewhere)."""
        self._models.clear()


def timed_reference(
    audio_path: Path, textgrid: Path | None, offline: OfflineTranscripts, reference_model: str
) -> TimedReference:
    """Forced-alignment words when there is a TextGrid, else the reference model's offline words."""
    if textgrid is not None:
        return TimedReference(read_textgrid_words(textgrid), f"forced alignment ({textgrid.name})")
    return TimedReference(offline.words(reference_model, audio_path), f"offline {reference_model}")

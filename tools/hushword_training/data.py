"""Training and validation examples for a hush word.

Split by speaker and source, never by clip. Training hears the shared corpus's Asterisk
telephone prompts (one real speaker, 8 kHz, resampled to 16 kHz) and the same texts spoken
by ten espeak-ng voices (full band, more voices than the corpus has speakers); their target
is the reference with one timestamped segment, [SOT, <|0.00|>, text, <|speech end|>, EOT].
Validation hears Montreal Forced Aligner clips (other, real speakers); their target is the
model's own output on the clip padded to 30 s, because the hush word's job is to make short
input behave like padded input and those references are lowercase without punctuation.
The corpus's short clips stay out of both: they are the padding study's test set.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.errors import AudioError
from engine.runtime.paths import cache_dir

TRAIN_KINDS = ("ivr",)
VALIDATION_KINDS = ("odd",)
TEST_KINDS = ("short",)
MIN_SECONDS = 0.8
MAX_SECONDS = 15.0


def corpus_dir() -> Path:
    """The shared corpus: WHISPERFLOW_CORPUS, else shared/corpus in the working directory or a folder above it."""
    from tools.bench.manifest import find_default_manifest

    if os.environ.get("WHISPERFLOW_CORPUS"):
        return Path(os.environ["WHISPERFLOW_CORPUS"])
    manifest = find_default_manifest()
    return manifest.parent if manifest else Path("shared/corpus")


@dataclass(frozen=True)
class Clip:
    """One corpus clip and its reference transcript."""

    path: str
    duration: float
    kind: str
    reference: str
    source: str


@dataclass
class Example:
    """A clip's 16 kHz audio and its tokens: the given context (prompt and SOT sequence), then the
    target that the loss scores, ending in EOT."""

    clip: Clip
    audio: np.ndarray
    target: list[int]
    context: int


def read_manifest(root: Path | None = None) -> list[Clip]:
    """All clips listed in the corpus manifest."""
    root = root or corpus_dir()
    manifest = root / "manifest.tsv"
    if not manifest.exists():
        raise AudioError(f"no corpus manifest at {manifest}; set WHISPERFLOW_CORPUS to the corpus folder")
    clips = []
    for line in manifest.read_text().splitlines()[1:]:
        cols = line.split("\t")
        clips.append(Clip(cols[0], float(cols[1]), cols[2], cols[3].strip('"'), cols[4]))
    return clips


def clips_of(kinds: tuple[str, ...], root: Path | None = None) -> list[Clip]:
    """Clips of the given kinds that are short enough to train on, in manifest order."""
    return [c for c in read_manifest(root) if c.kind in kinds and MIN_SECONDS <= c.duration <= MAX_SECONDS]


def load_clip(clip: Clip, root: Path | None = None) -> np.ndarray:
    """Mono float32 audio at 16 kHz."""
    return load_audio((root or corpus_dir()) / clip.path)


def labels_path(model_name: str, weights_sha256: str) -> Path:
    """Where the padded-output targets for one model are cached."""
    return cache_dir() / "hushwords" / f"targets-{model_name}-{weights_sha256[:12]}.json"


def padded_output_tokens(transcriber, audio: np.ndarray) -> list[int]:
    """The model's own tokens (text and timestamps) for the clip padded to 30 s."""
    features = transcriber.encode(audio).features
    return transcriber.decode(features, []).tokens


def build_examples(loaded, clips: list[Clip], progress=print, root: Path | None = None) -> list[Example]:
    """Examples for the clips, labelling each (once, cached) with the padded output."""
    from engine.stream.round import Transcriber

    cache = labels_path(loaded.name, loaded.weights_sha256)
    cache.parent.mkdir(parents=True, exist_ok=True)
    labels: dict[str, list[int]] = json.loads(cache.read_text()) if cache.exists() else {}
    tokenizer = loaded.tokenizer()
    transcriber = Transcriber(loaded, word_timestamps=False)
    examples = []
    for i, clip in enumerate(clips):
        audio = load_clip(clip, root)
        key = f"{clip.path}:{hashlib.sha256(audio.tobytes()).hexdigest()[:12]}"
        if key not in labels:
            labels[key] = padded_output_tokens(transcriber, audio)
            cache.write_text(json.dumps(labels))
            text = tokenizer.decode([t for t in labels[key] if t < tokenizer.eot])
            progress(f"labelled {i + 1}/{len(clips)} {clip.path}: {text!r}")
        tokens = labels[key]
        if not any(t < tokenizer.eot for t in tokens):
            continue  # the padded model heard nothing: no speech to learn from
        examples.append(
            Example(clip, audio, list(tokenizer.sot_sequence) + tokens + [tokenizer.eot], len(tokenizer.sot_sequence))
        )
    return examples


TTS_VOICES = (
    "en-us+m3",
    "en-us+f2",
    "en-gb+m1",
    "en-gb-scotland+f4",
    "en-gb-x-rp+m7",
    "en-029+f1",
    "en-gb-x-gbclan+m4",
    "en-us+f5",
    "en-gb-x-gbcwmd+m2",
    "en-us+klatt",
)


def speech_end(audio: np.ndarray, frame: int = 320, floor: float = 0.05) -> float:
    """Seconds to the last 20 ms frame whose RMS is above ``floor`` of the loudest frame."""
    n = len(audio) // frame
    if n == 0:
        return len(audio) / SAMPLE_RATE
    rms = np.sqrt((audio[: n * frame].reshape(n, frame) ** 2).mean(axis=1))
    loud = np.nonzero(rms > floor * rms.max())[0]
    return (loud[-1] + 1) * frame / SAMPLE_RATE if len(loud) else n * frame / SAMPLE_RATE


def reference_target(tokenizer, text: str, audio: np.ndarray) -> list[int]:
    """[SOT, <|0.00|>, text, <|speech end|>, EOT]: one timestamped segment, as Whisper writes a short clip."""
    end = min(round(speech_end(audio) / 0.02), 1500)
    ts = tokenizer.timestamp_begin
    return list(tokenizer.sot_sequence) + [ts] + tokenizer.encode(" " + text.strip()) + [ts + end, tokenizer.eot]


def synthesize(text: str, voice: str, speed: int, out: Path) -> np.ndarray:
    """Speak text with espeak-ng (Debian package espeak-ng) and return 16 kHz audio, cached in ``out``."""
    import subprocess

    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                ["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(out), text], check=True, capture_output=True
            )
        except (OSError, subprocess.CalledProcessError) as exc:
            raise AudioError(
                f"espeak-ng could not speak {text!r} ({exc}); install it with `apt-get install espeak-ng`"
            ) from exc
    return load_audio(out)


def reference_examples(tokenizer, clips: list[Clip], root: Path | None = None) -> list[Example]:
    """Examples whose targets come from the corpus references (cased, punctuated ones only)."""
    examples = []
    for clip in clips:
        audio = load_clip(clip, root)
        examples.append(
            Example(clip, audio, reference_target(tokenizer, clip.reference, audio), len(tokenizer.sot_sequence))
        )
    return examples


def tts_examples(tokenizer, texts: list[str], seed: int = 0) -> list[Example]:
    """The texts spoken by espeak-ng voices at varied speeds: more voices than the corpus has speakers."""
    rng = np.random.default_rng(seed)
    examples = []
    for i, text in enumerate(texts):
        voice = TTS_VOICES[i % len(TTS_VOICES)]
        speed = int(rng.integers(130, 200))
        name = hashlib.sha256(f"{voice}|{speed}|{text}".encode()).hexdigest()[:16]
        audio = synthesize(text, voice, speed, cache_dir() / "hushwords" / "tts" / f"{name}.wav")
        if not MIN_SECONDS <= len(audio) / SAMPLE_RATE <= MAX_SECONDS:
            continue
        clip = Clip(f"espeak-ng:{voice}:{speed}", len(audio) / SAMPLE_RATE, "tts", text, "espeak-ng")
        examples.append(Example(clip, audio, reference_target(tokenizer, text, audio), len(tokenizer.sot_sequence)))
    return examples

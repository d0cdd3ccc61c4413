"""A two-sided call built from real speech: `whisperflow call-fixture OUT_DIR`.

Two speakers of shared/corpus take turns (tools/call/parts.tsv, the recipe), with pauses, overlaps of up to 1 s and
short backchannels said during the other side's turn. It is rendered as 16 kHz tracks:

- ``them.wav``: the other side (the computer's audio);
- ``you-noecho.wav``: you, with a little noise (headphones: no echo);
- ``you-echo10.wav`` and ``you-echo3.wav``: you plus Them's echo from the speakers 10 and 3 dB below your voice,
  60–150 ms late, through a short synthetic room response, with the same noise.

``parts.tsv`` says where each part was placed; ``reference-you.json`` and ``reference-them.json`` hold each side's
words with their times (a TextGrid's where the clip has one, else the clip's words spread over its speech by
length). Everything follows from the seed.
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.words import Word
from tools.hushword_training.data import corpus_dir

RECIPE = Path(__file__).with_name("parts.tsv")
CORPUS = corpus_dir()  # WHISPERFLOW_CORPUS, else shared/corpus here or in a folder above
SIDES = ("you", "them")
SPEECH_RMS = 0.05  # each part's speech is brought to this level (about -26 dBFS)
OUTLIER_DB = 12.0  # a frame this far above the median of a clip's frames is not speech (speech_level)
NOISE_RMS = 0.002  # the microphone's noise floor (about -54 dBFS)
ECHO_DB = (10.0, 3.0)  # how far below your voice Them's echo reaches the microphone, per echo track
ECHO_DELAY_S = (0.06, 0.15)
ROOM_RT60_S = 0.25  # the synthetic room's reverberation time
PAUSE_S = (-1.0, 1.2)  # gap between turns: negative overlaps the end of the previous turn
OWN_GAP_S = 0.3  # a side's next turn starts at least this long after its last one ends
EDGE_S = 0.25  # a backchannel falls at least this far inside the other side's turn


@dataclass(frozen=True)
class Part:
    """One piece of the recipe: a clip (or a cut of it) said by one side."""

    side: str
    path: str
    start: float | None = None
    end: float | None = None
    kind: str = "turn"  # or "backchannel"
    text: str = ""


@dataclass(frozen=True)
class Placed:
    """A part's audio and words (seconds from its own start) placed at offset seconds of the call."""

    part: Part
    offset: float
    audio: np.ndarray
    words: list[Word]

    @property
    def end(self) -> float:
        return self.offset + len(self.audio) / SAMPLE_RATE


@dataclass
class Call:
    """The rendered call: the tracks by name, and each side's reference words."""

    tracks: dict[str, np.ndarray]
    references: dict[str, list[Word]]
    placed: list[Placed]
    echo_delay_s: float


def read_recipe(path: Path = RECIPE) -> list[Part]:
    rows = [line for line in Path(path).read_text().splitlines() if line.strip() and not line.startswith("#")]
    parts = []
    for side, clip, start, end, kind, *text in csv.reader(rows, delimiter="\t"):
        if side not in SIDES:
            raise ValueError(f"{path}: unknown side {side!r}")
        number = lambda s: float(s) if s else None  # noqa: E731
        parts.append(Part(side, clip, number(start), number(end), kind, text[0] if text else ""))
    return parts


def _manifest_text(root: Path, clip: str) -> str:
    with open(root / "manifest.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["file"] == clip:
                return row["reference"]
    raise ValueError(f"{clip} is not in {root / 'manifest.tsv'} and the recipe gives no text")


def _speech_span(audio: np.ndarray) -> tuple[float, float]:
    """Where a clip's speech starts and ends: the first and last 20 ms frames within 30 dB of its loudest."""
    frame = SAMPLE_RATE // 50
    n = len(audio) // frame
    if n == 0:
        return 0.0, len(audio) / SAMPLE_RATE
    rms = np.sqrt(np.mean(audio[: n * frame].reshape(n, frame) ** 2, axis=1))
    loud = np.flatnonzero(rms > rms.max() * 10 ** (-30 / 20))
    return loud[0] * frame / SAMPLE_RATE, (loud[-1] + 1) * frame / SAMPLE_RATE


def speech_level(audio: np.ndarray) -> float:
    """The RMS of a stretch of speech over its 20 ms frames, without frames more than OUTLIER_DB above their median
    (a cough or a bump: counted, it brought cold_corpus.wav's speech down to -35…-45 dBFS, under the voice-activity
    detector's threshold, and You's first turn went missing)."""
    frame = SAMPLE_RATE // 50
    n = max(len(audio) // frame, 1)
    power = np.mean(np.resize(audio, n * frame).reshape(n, frame) ** 2, axis=1)
    return float(np.sqrt(np.mean(power[power <= np.median(power) * 10 ** (OUTLIER_DB / 10)])))


def _spread(text: str, start: float, end: float) -> list[Word]:
    """Words over [start, end], each as long as its letters (and a space) are of the whole."""
    tokens = text.split()
    weights = np.array([len(t) + 1 for t in tokens], float)
    edges = start + (end - start) * np.concatenate([[0.0], np.cumsum(weights) / weights.sum()])
    return [Word(t, float(a), float(b)) for t, a, b in zip(tokens, edges[:-1], edges[1:])]


def load_part(part: Part, root: Path) -> tuple[np.ndarray, list[Word]]:
    """The part's audio at SPEECH_RMS and its words, timed from the part's start."""
    audio = load_audio(root / part.path)
    start = part.start or 0.0
    end = part.end if part.end is not None else len(audio) / SAMPLE_RATE
    audio = audio[int(start * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
    grid = (root / part.path).with_suffix(".TextGrid")
    if not part.text and grid.exists():
        from tools.bench.textgrid import read_textgrid_words

        words = [
            w.shifted(-start)
            for w in read_textgrid_words(grid)
            if w.start >= start and w.end <= end and not w.text.startswith(("<", "["))
        ]
    else:
        words = _spread(part.text or _manifest_text(root, part.path), *_speech_span(audio))
    lo, hi = _speech_span(audio)
    level = speech_level(audio[int(lo * SAMPLE_RATE) : int(hi * SAMPLE_RATE)])
    return (audio * (SPEECH_RMS / max(level, 1e-6))).astype(np.float32), words


def place(parts: list[Part], root: Path, rng: np.random.Generator) -> list[Placed]:
    """Turns one after another with a pause or an overlap between them (never a side's own turns overlapping); a
    backchannel inside the latest turn of the other side."""
    placed: list[Placed] = []
    cursor = 0.5
    last_turn: dict[str, Placed] = {}
    for part in parts:
        audio, words = load_part(part, root)
        length = len(audio) / SAMPLE_RATE
        if part.kind == "backchannel":
            other = last_turn["them" if part.side == "you" else "you"]
            room = max(other.end - other.offset - length - 2 * EDGE_S, 0.0)
            offset = other.offset + EDGE_S + rng.uniform(0.0, room)
        else:
            previous = max((p.end for p in placed if p.part.kind == "turn"), default=cursor)
            own = last_turn.get(part.side)  # a side never talks over itself: an overlap is the other side's
            offset = max(previous + rng.uniform(*PAUSE_S), cursor, own.end + OWN_GAP_S if own else cursor)
        item = Placed(part, round(offset, 3), audio, words)
        placed.append(item)
        if part.kind == "turn":
            last_turn[part.side] = item
    return placed


def room_response(rng: np.random.Generator, rt60_s: float = ROOM_RT60_S) -> np.ndarray:
    """A short synthetic impulse response: the direct sound, then noise decaying by 60 dB over rt60_s."""
    n = int(rt60_s * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    tail = rng.standard_normal(n) * 10 ** (-3 * t / rt60_s) * 0.08
    tail[: int(0.003 * SAMPLE_RATE)] = 0.0  # first reflections a few ms after the direct sound
    tail[0] = 1.0
    return (tail / np.sqrt(np.sum(tail**2))).astype(np.float32)


def render(placed: list[Placed], seed: int) -> Call:
    """The tracks and references of placed parts."""
    rng = np.random.default_rng(seed + 1)  # the room, delay and noise, apart from the placement
    length = int((max(p.end for p in placed) + 1.0) * SAMPLE_RATE)
    sides = {side: np.zeros(length, np.float32) for side in SIDES}
    references: dict[str, list[Word]] = {side: [] for side in SIDES}
    for p in placed:
        at = int(p.offset * SAMPLE_RATE)
        sides[p.part.side][at : at + len(p.audio)] += p.audio
        references[p.part.side].extend(w.shifted(p.offset) for w in p.words)
    for words in references.values():
        words.sort(key=lambda w: w.start)
    delay = float(rng.uniform(*ECHO_DELAY_S))
    echo = np.convolve(sides["them"], room_response(rng))[:length]
    echo = np.concatenate([np.zeros(int(delay * SAMPLE_RATE), np.float32), echo])[:length]
    noise = (rng.standard_normal(length) * NOISE_RMS).astype(np.float32)
    tracks = {"them": sides["them"], "you-noecho": sides["you"] + noise}
    for db in ECHO_DB:
        tracks[f"you-echo{db:g}"] = (sides["you"] + echo * 10 ** (-db / 20) + noise).astype(np.float32)
    return Call({k: np.clip(v, -1.0, 1.0) for k, v in tracks.items()}, references, placed, delay)


def build_call(parts: list[Part], root: Path = CORPUS, seed: int = 0) -> Call:
    return render(place(parts, root, np.random.default_rng(seed)), seed)


def _reference_json(words: list[Word]) -> dict:
    return {
        "text": " ".join(w.text for w in words),
        "words": [{"text": w.text, "start": round(w.start, 3), "end": round(w.end, 3)} for w in words],
    }


def write_call(call: Call, out: Path) -> None:
    import soundfile as sf

    out.mkdir(parents=True, exist_ok=True)
    for name, audio in call.tracks.items():
        sf.write(out / f"{name}.wav", audio, SAMPLE_RATE, subtype="PCM_16")
    for side, words in call.references.items():
        (out / f"reference-{side}.json").write_text(json.dumps(_reference_json(words), indent=1) + "\n")
    lines = ["side\tkind\tpath\tstart\tend\toffset\tcall_end"]
    for p in call.placed:
        cut = [f"{x:g}" if x is not None else "" for x in (p.part.start, p.part.end)]
        lines.append("\t".join([p.part.side, p.part.kind, p.part.path, *cut, f"{p.offset:.3f}", f"{p.end:.3f}"]))
    lines.append(f"# echo delay {call.echo_delay_s * 1000:.0f} ms")
    (out / "parts.tsv").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="whisperflow call-fixture", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the tracks, references and placed parts")
    parser.add_argument("--seed", type=int, default=0, help="placement, room, echo delay and noise (default 0)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=f"the corpus the recipe names (default {CORPUS})")
    parser.add_argument("--recipe", type=Path, default=RECIPE, help="parts in speaking order (default: the shipped)")
    args = parser.parse_args(argv)
    call = build_call(read_recipe(args.recipe), args.corpus, args.seed)
    write_call(call, args.out)
    seconds = len(call.tracks["them"]) / SAMPLE_RATE
    print(f"{args.out}: {seconds:.1f} s call, echo {call.echo_delay_s * 1000:.0f} ms late, seed {args.seed}")
    return 0

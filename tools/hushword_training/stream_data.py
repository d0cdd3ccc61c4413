"""Stream-shaped examples: buffers like the ones the stream feeds, cut out of joined utterances.

Utterances are joined with short gaps into one long recording. A buffer starts at an utterance (as
the stream's buffer starts after a trim) or, less often, anywhere; it is 1-20 s long (log-uniform:
most are a few seconds, as the stream's trimmed buffers are), so it often holds several sentences
and is mostly cut mid-word. Its prompt is the text of the utterances before it (the stream's
confirmed text). Its target is what the padded model writes for the same buffer and prompt (greedy,
timestamps), up to the last word that ends before the cut, closed by that word's end timestamp and
EOT: the round should stop there, and the next round says the rest.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np

from engine.audio.files import SAMPLE_RATE
from tools.hushword_training.data import Clip, Example

GAP_S = (0.1, 0.8)  # silence between joined utterances
BUFFER_S = (1.0, 20.0)  # a buffer's length, drawn log-uniform
AT_UTTERANCE_START = 0.7  # share of buffers that start where an utterance does
END_MARGIN_S = 0.1  # a word must end this long before the cut to be in the target
PROMPT_CHARS = 200  # the stream's prompt is the confirmed text's tail


@dataclass(frozen=True)
class Joined:
    """Utterances joined into one recording: the audio and each utterance's span and text."""

    audio: np.ndarray
    spans: list[tuple[int, int, str]]  # start sample, end sample, text


@dataclass(frozen=True)
class Cut:
    """A buffer cut from a joined recording, with the text before it as its prompt."""

    start: int
    end: int
    prompt: str


def join(utterances: list[tuple[np.ndarray, str]], rng: np.random.Generator) -> Joined:
    """Join (audio, text) utterances with a random gap of silence between them."""
    pieces, spans, at = [], [], 0
    for audio, text in utterances:
        gap = np.zeros(int(rng.uniform(*GAP_S) * SAMPLE_RATE), np.float32)
        pieces += [gap, audio.astype(np.float32)]
        at += len(gap)
        spans.append((at, at + len(audio), text.strip()))
        at += len(audio)
    return Joined(np.concatenate(pieces), spans)


def prompt_before(joined: Joined, start: int) -> str:
    """The text of the utterances that end before ``start``, its last PROMPT_CHARS at a word boundary."""
    text = " ".join(t for a, b, t in joined.spans if b <= start)
    if len(text) <= PROMPT_CHARS:
        return text
    tail = text[-PROMPT_CHARS:]
    return tail[tail.find(" ") + 1 :]


def cut(joined: Joined, n: int, rng: np.random.Generator) -> list[Cut]:
    """``n`` buffers of BUFFER_S seconds from the recording, most starting at an utterance."""
    cuts = []
    total = len(joined.audio)
    for _ in range(n):
        if rng.random() < AT_UTTERANCE_START:
            start = joined.spans[int(rng.integers(len(joined.spans)))][0] - int(rng.uniform(0, 0.2) * SAMPLE_RATE)
        else:
            start = int(rng.integers(total))
        start = max(0, min(start, total - int(BUFFER_S[0] * SAMPLE_RATE)))
        seconds = float(np.exp(rng.uniform(*np.log(BUFFER_S))))
        end = min(total, start + int(seconds * SAMPLE_RATE))
        cuts.append(Cut(start, end, prompt_before(joined, start)))
    return cuts


def truncated_target(tokenizer, segments, duration: float) -> list[int]:
    """Timestamped tokens for the words that end END_MARGIN_S before the buffer's end: each segment
    as [<|start|>, text, <|end|>], the last one closed at its last kept word's end."""
    ts = tokenizer.timestamp_begin

    def stamp(seconds: float) -> int:
        return ts + min(max(round(seconds / 0.02), 0), 1500)

    tokens: list[int] = []
    for seg in segments:
        kept = [w for w in seg.words if w.end <= duration - END_MARGIN_S]
        if not kept:
            break
        end = seg.end if len(kept) == len(seg.words) else kept[-1].end
        tokens += [stamp(seg.start)] + tokenizer.encode("".join(w.text for w in kept)) + [stamp(end)]
        if len(kept) < len(seg.words):
            break
    return tokens or [stamp(0.0)]


def label_key(audio: np.ndarray, prompt: str) -> str:
    return hashlib.sha256(audio.tobytes() + prompt.encode()).hexdigest()[:16]


def stream_examples(
    loaded, utterances: list[tuple[np.ndarray, str]], n: int, seed: int, labels_path, kind: str, progress=print
) -> list[Example]:
    """``n`` stream-shaped examples from the utterances, labelled (once, cached) by the padded model."""
    from engine.decoder.options import initial_tokens
    from engine.stream.round import Transcriber

    rng = np.random.default_rng(seed)
    order = rng.permutation(len(utterances))
    joined = join([utterances[i] for i in order], rng)
    tokenizer = loaded.tokenizer()
    padded = Transcriber(loaded)
    labels: dict[str, list[int]] = json.loads(labels_path.read_text()) if labels_path.exists() else {}
    examples = []
    for i, c in enumerate(cut(joined, n, rng)):
        audio = joined.audio[c.start : c.end]
        key = label_key(audio, c.prompt)
        if key not in labels:
            result = padded.transcribe(audio, c.prompt)
            labels[key] = truncated_target(tokenizer, result.segments, len(audio) / SAMPLE_RATE)
            labels_path.write_text(json.dumps(labels))
            if (i + 1) % 10 == 0 or i + 1 == n:
                progress(
                    f"labelled {kind} buffer {i + 1}/{n} ({len(audio) / SAMPLE_RATE:.1f} s): "
                    f"{tokenizer.decode([t for t in labels[key] if t < tokenizer.eot])[-60:]!r}"
                )
        context = initial_tokens(tokenizer, padded.prompt_tokens(c.prompt), loaded.model.dims.n_text_ctx, True)
        clip = Clip(f"{kind}-stream:{c.start}-{c.end}", len(audio) / SAMPLE_RATE, f"{kind}-stream", "", "joined")
        examples.append(Example(clip, audio, context + labels[key] + [tokenizer.eot], len(context)))
    return examples

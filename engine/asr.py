"""One transcription round over an audio buffer: encode, decode, word timestamps."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import mlx.core as mx
import numpy as np
from mlx_whisper.audio import HOP_LENGTH, SAMPLE_RATE

from .beam_search import decode_beam, iter_decode_beam
from .decoding import TIME_PRECISION, DecodeOptions, DecodeResult
from .fast_encoder import fast_encode
from .encoder_input import PAD30, Padding, encoder_gflops, encoder_mel, max_audio_samples
from .whisper_model import LoadedModel
from .word_timing import add_word_timestamps
from .words import Word


@dataclass
class Segment:
    start: float
    end: float
    text: str
    tokens: list[int]
    words: list[Word] = field(default_factory=list)


@dataclass
class RoundResult:
    """What one round produced, with times relative to the buffer's start, and its costs."""

    segments: list[Segment]
    tokens: list[int]
    no_speech_prob: float
    encode_s: float
    decode_s: float
    align_s: float
    encoder_frames: int
    encoder_gflops: float
    beam_widths: list[int]

    @property
    def words(self) -> list[Word]:
        return [w for s in self.segments for w in s.words]


@dataclass
class Encoded:
    """One buffer, encoded: its log-mel, encoder features, real audio length and encode time."""

    mel: mx.array
    features: mx.array
    n_samples: int
    encode_s: float


def split_segments(tokens: list[int], ts_begin: int, duration: float, tokenizer) -> list[Segment]:
    """Cut sampled tokens into segments at timestamp pairs, as openai-whisper's transcribe does."""
    def stamp(tok: int) -> float:
        return (tok - ts_begin) * TIME_PRECISION

    segments: list[Segment] = []
    is_ts = [t >= ts_begin for t in tokens]
    consecutive = [i for i in range(1, len(tokens)) if is_ts[i] and is_ts[i - 1]]
    bounds = [0] + consecutive + [len(tokens)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        piece = tokens[a:b]
        text_tokens = [t for t in piece if t < tokenizer.eot]
        if not text_tokens:
            continue
        stamps = [t for t in piece if t >= ts_begin]
        start = stamp(stamps[0]) if stamps and piece[0] >= ts_begin else 0.0
        end = stamp(stamps[-1]) if len(stamps) >= 2 or (stamps and piece[-1] >= ts_begin and piece[0] < ts_begin) else duration
        segments.append(Segment(start, max(end, start), tokenizer.decode(text_tokens), text_tokens))
    return segments


class Transcriber:
    """Transcribes a buffer of 16 kHz audio into timestamped words, one call per round."""

    def __init__(
        self,
        loaded: LoadedModel,
        *,
        language: str | None = None,
        padding: Padding = PAD30,
        decode: DecodeOptions = DecodeOptions(),
        word_timestamps: bool = True,
    ):
        self.loaded = loaded
        self.model = loaded.model
        self.tokenizer = loaded.tokenizer(language)
        self.padding = padding
        self.decode_options = decode
        self.word_timestamps = word_timestamps

    @property
    def max_buffer_s(self) -> float:
        return max_audio_samples(self.padding) / SAMPLE_RATE

    def encode(self, audio: np.ndarray) -> Encoded:
        """Log-mel and encoder features for the buffer (with this transcriber's padding)."""
        t0 = time.perf_counter()
        audio = audio[: max_audio_samples(self.padding)]
        mel = encoder_mel(audio, self.padding, self.model.dims.n_mels).astype(self.loaded.dtype)
        features = fast_encode(self.model.encoder, mel[None])
        mx.eval(features)
        return Encoded(mel, features, len(audio), time.perf_counter() - t0)

    def decode(self, features: mx.array, prompt_tokens: list[int], reference: list[int] | None = None) -> DecodeResult:
        return decode_beam(self.model, self.tokenizer, features, prompt_tokens, self.decode_options, reference)

    def decode_steps(self, features: mx.array, prompt_tokens: list[int], reference: list[int] | None = None):
        """The same decoding as a generator pausing after the prefill and each step; returns the result."""
        return iter_decode_beam(self.model, self.tokenizer, features, prompt_tokens, self.decode_options, reference)

    def prompt_tokens(self, prompt: str) -> list[int]:
        return self.tokenizer.encode(" " + prompt.strip()) if prompt.strip() else []

    def transcribe(self, audio: np.ndarray, prompt: str = "", reference: list[int] | None = None) -> RoundResult:
        """Encode, decode and time-align one buffer (times relative to the buffer's start)."""
        encoded = self.encode(audio)
        t = time.perf_counter()
        result = self.decode(encoded.features, self.prompt_tokens(prompt), reference)
        return self.assemble(encoded, result, time.perf_counter() - t)

    def assemble(self, encoded: Encoded, result: DecodeResult, decode_s: float) -> RoundResult:
        """Segments and word timestamps from a decoded round."""
        t = time.perf_counter()
        silent = result.no_speech_prob > 0.6 and result.avg_logprob < -1.0
        duration = encoded.n_samples / SAMPLE_RATE
        segments = [] if silent else split_segments(result.tokens, self.tokenizer.timestamp_begin, duration, self.tokenizer)
        if segments and self.word_timestamps:
            self.add_words(segments, encoded.features, encoded.n_samples)
        frames = encoded.mel.shape[0]
        return RoundResult(
            segments, result.tokens, result.no_speech_prob, encoded.encode_s, decode_s, time.perf_counter() - t,
            frames, encoder_gflops(self.model.dims, frames), result.beam_widths,
        )

    def add_words(self, segments: list[Segment], features: mx.array, n_samples: int) -> None:
        """Fill each segment's words by DTW over cross-attention, reusing the encoded features."""
        dicts = [dict(start=s.start, end=s.end, tokens=s.tokens) for s in segments]
        add_word_timestamps(dicts, self.model, self.tokenizer, features, n_samples // HOP_LENGTH)
        for seg, d in zip(segments, dicts):
            seg.start, seg.end = d["start"], d["end"]
            seg.words = [Word(w["word"], float(w["start"]), float(w["end"]), float(w["probability"])) for w in d["words"]]

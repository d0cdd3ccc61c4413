"""One transcription round over an audio buffer: encode, decode, word timestamps."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from copy import copy
from dataclasses import dataclass, replace

import mlx.core as mx
import numpy as np
from mlx_whisper.audio import HOP_LENGTH, N_FRAMES
from mlx_whisper.decoding import compression_ratio

from engine.audio.files import SAMPLE_RATE
from engine.decoder.beam_search import decode_beam, iter_decode_beam, run_steps
from engine.decoder.options import TIME_PRECISION, DecodeOptions, DecodeResult, Segment
from engine.decoder.word_timing import decoded_alignment, fill_segment_words, find_alignment
from engine.encoder.fast_encoder import fast_encode
from engine.encoder.input import PAD30, Padding, encoder_gflops, encoder_mel, max_audio_samples
from engine.model.whisper_model import LoadedModel
from engine.runtime.logs import WordList
from engine.session.words import Word
from engine.stream.vocabulary import Vocabulary

MAX_TOKENS_PER_SECOND = 8  # fast speech with timestamps stays well below this; a runaway round does not
# Every round (padded or not) is checked before its words can be confirmed, as openai-whisper checks a window:
NO_SPEECH_PROB = 0.6  # above this, the round is silence unless the text is confident:
LOGPROB_FLOOR = -1.0  #   average token log-probability at least this, and
WORD_PROB_FLOOR = 0.5  #   mean word probability at least this (tiny.en's "you" on silence: 0.1-0.4)
COMPRESSION_RATIO = 2.4  # above this the text repeats itself: a runaway round, never confirmed
FINAL_BEAM = 5  # the final pass's beam (engine.stream.finalize), as offline decodes with beam search
FINAL_LOOP_TOKENS = 8  # a final decoding repeating this many tokens back to back ran away (DecodeOptions.loop_runaway)
DIGITAL_SILENCE = 1e-4  # peak below this (-80 dBFS): nothing to hear, the model is not asked

log = logging.getLogger(__name__)


def is_word(text: str) -> bool:
    """A word has a letter or digit; a lone "." or "-" from noise is not one."""
    return any(c.isalnum() for c in text)


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
    guarded: bool = False  # the guard ended the decoding at the end of the audio or at a loop (DecodeOptions)
    padded_retry: bool = False  # the unpadded decoding ran away and was redone padded to 30 s
    early_retry: bool = False  # the unpadded round stopped before speech it did not say and was decoded again
    audio_s: float = 0.0  # the length of the round's audio
    at_budget: bool = False  # its final decoding stopped at its token budget (a runaway even padded)
    peek: Word | None = None  # the word the guard stopped before, to show dimmed (DecodeOptions.peek_tokens)

    @property
    def words(self) -> list[Word]:
        return [w for s in self.segments for w in s.words]

    @property
    def padded(self) -> bool:
        """Whether the round's audio was padded to 30 s (the encoder saw a whole window)."""
        return self.encoder_frames >= N_FRAMES


@dataclass
class Encoded:
    """One buffer, encoded: its audio, log-mel, encoder features and encode time."""

    audio: np.ndarray
    mel: mx.array
    features: mx.array
    encode_s: float

    @property
    def n_samples(self) -> int:
        return len(self.audio)

    @property
    def audio_steps(self) -> int:
        """The real audio's length in timestamp steps (20 ms), rounded up."""
        return -(-self.n_samples // (2 * HOP_LENGTH))


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
        end = (
            stamp(stamps[-1])
            if len(stamps) >= 2 or (stamps and piece[-1] >= ts_begin and piece[0] < ts_begin)
            else duration
        )
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
        silence_gate: bool = True,
        vocabulary: Vocabulary | None = None,
    ):
        """vocabulary: the words to know, in every round's prompt and as the decoder's bias, as it says.
        silence_gate: drop a round's words when Whisper's no-speech probability says silence and the text is
        not confident; off where a voice-activity detector already keeps silent rounds from running (a hush
        word raises the no-speech probability of a buffer that starts with speech)."""
        self.silence_gate = silence_gate
        self.loaded = loaded
        self.model = loaded.model
        self.language = language
        self.tokenizer = loaded.tokenizer(language)
        self.padding = padding
        self.vocabulary = vocabulary
        self.heard: set[int] = set()  # the listed words its rounds have written, spelled alike (Vocabulary.heard_in)
        self.decode_options = decode if vocabulary is None else replace(decode, bias=vocabulary.bias)
        self.word_timestamps = word_timestamps
        self.guarded = True  # False while the stream's last rounds decode: its audio really ends there
        self.between_steps: Callable[[], None] | None = None  # called between a round's decoding steps, on the
        # round's thread (the stream's final texts go out meanwhile: engine.stream.runner)

    @contextmanager
    def unguarded(self) -> Iterator[None]:
        """Rounds decoded inside this block run without the guard (the end of the stream: nothing follows)."""
        self.guarded = False
        try:
            yield
        finally:
            self.guarded = True

    @property
    def holds_back(self) -> bool:
        """Whether a round may leave out the last word of its audio: the guard stops before it, and a hush word
        trained on stream-shaped buffers ends the round before a word cut at the end."""
        return bool(self.decode_options.guard_frames) or self.padding.kind == "hush"

    @contextmanager
    def at_stream_end(self) -> Iterator[None]:
        """The stream's last rounds: unguarded, and padded to 30 s. A stream-shaped hush word stops before a
        word that ends at the very end of its audio (the next round will say it); at the end there is none."""
        padding, self.padding = self.padding, PAD30
        try:
            with self.unguarded():
                yield
        finally:
            self.padding = padding

    def padded_twin(self) -> Transcriber:
        """This transcriber, padded to 30 s: a separate one, as a pipelined encoder may be using this one."""
        twin = copy(self)
        twin.padding = PAD30
        if self.decode_options.loop_runaway:  # padded, a decoding ends where the speech does: no loop to cut short
            twin.decode_options = replace(self.decode_options, loop_tokens=0, loop_runaway=False)
        return twin

    def final_pass(self) -> Transcriber:
        """The transcriber that decodes an utterance again once it ended (engine.stream.finalize): this model, with
        this transcriber's hush word after the audio (no silence before it) or padded to 30 s, at beam FINAL_BEAM
        without the guard. A decoding that loops is decoded again padded to 30 s as soon as the loop shows
        (FINAL_LOOP_TOKENS), not after running to its token budget; ended at the loop instead, short prompts kept a
        repeated word (docs/bench/finalize). Given a reference (the final text already heard before the utterance
        and the utterance's confirmed words), it re-reads that at beam 1, checked in one pass, and widens to the
        full beam where it hears otherwise. The hush word reads as well as padding there and costs less
        (docs/bench/finalize). The words to know are its bias only: in its prompt they made it stop early, leaving
        out the end of an utterance; the finalizer keeps a confirmed listed word its text replaced
        (docs/bench/words)."""
        padding = replace(self.padding, min_seconds=0.0) if self.padding.kind == "hush" else PAD30
        decode = DecodeOptions(
            beam_size=FINAL_BEAM,
            beam_pruning=True,
            verify_reference=True,
            loop_tokens=FINAL_LOOP_TOKENS,
            loop_runaway=True,
            decoder=self.decode_options.decoder,
        )
        vocabulary = self.vocabulary and self.vocabulary.bias_only()
        return Transcriber(self.loaded, language=self.language, padding=padding, decode=decode, vocabulary=vocabulary)

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
        return Encoded(audio, mel, features, time.perf_counter() - t0)

    def options_for(self, audio_steps: int | None, speech_until: float = 0.0) -> DecodeOptions:
        """Unpadded rounds get a token budget from the audio's length, so a runaway round stops early; the
        guard is off while `unguarded` (the loop stop stays: a loop is a loop there too); speech_until: the
        round may not end before it (seconds into its audio: DecodeOptions.speech_until_step)."""
        options = self.decode_options if self.guarded else replace(self.decode_options, guard_frames=0)
        if speech_until > 0:
            options = replace(options, speech_until_step=round(speech_until / TIME_PRECISION))
        if self.padding.kind == "pad30" or audio_steps is None:
            return options
        budget = int(audio_steps * TIME_PRECISION * MAX_TOKENS_PER_SECOND) + 16
        return replace(options, max_tokens=min(options.max_tokens, budget))

    def decode(
        self,
        features: mx.array,
        prompt_tokens: list[int],
        reference: list[int] | None = None,
        audio_steps: int | None = None,
    ) -> DecodeResult:
        """Decode encoded features; audio_steps caps timestamps at the real audio (20 ms steps)."""
        return decode_beam(
            self.model,
            self.tokenizer,
            features,
            prompt_tokens,
            self.options_for(audio_steps),
            reference,
            audio_steps=audio_steps,
        )

    def decode_steps(
        self, encoded: Encoded, prompt_tokens: list[int], reference: list[int] | None = None, speech_until: float = 0.0
    ) -> Generator[None, None, DecodeResult]:
        """The same decoding as a generator pausing after the prefill and each step; returns the result."""
        return iter_decode_beam(
            self.model,
            self.tokenizer,
            encoded.features,
            prompt_tokens,
            self.options_for(encoded.audio_steps, speech_until),
            reference,
            audio_steps=encoded.audio_steps,
        )

    def degenerate(self, result: DecodeResult, encoded: Encoded) -> bool:
        """An unpadded round that ran away: it used its whole token budget, repeats itself, or looped where a loop is
        a runaway (DecodeOptions.loop_runaway)."""
        if self.padding.kind == "pad30":
            return False
        text = self.tokenizer.decode([t for t in result.tokens if t < self.tokenizer.eot])
        used_budget = len(result.beam_widths) >= self.options_for(encoded.audio_steps).max_tokens
        looped = result.looped and self.decode_options.loop_runaway
        ran_away = used_budget or looped or compression_ratio(text) > COMPRESSION_RATIO
        if ran_away and log.isEnabledFor(logging.DEBUG):
            log.debug(
                "padded retry: a %.2f s round ran away (%d tokens%s, compression %.2f): %r",
                encoded.n_samples / SAMPLE_RATE,
                len(result.beam_widths),
                ", its whole budget" if used_budget else ", a loop" if looped else "",
                compression_ratio(text),
                text[-80:],
            )
        return ran_away

    def padded_round(
        self, encoded: Encoded, prompt_tokens: list[int], reference: list[int] | None
    ) -> tuple[Encoded, DecodeResult]:
        """Redo a degenerate round padded to 30 s, which does not run away."""
        padded = self.padded_twin()
        again = padded.encode(encoded.audio)
        return again, padded.decode(again.features, prompt_tokens, reference, again.audio_steps)

    def text_tokens(self, text: str) -> list[int]:
        """The tokens of a text (a prompt, or a decoding's reference)."""
        return self.tokenizer.encode(" " + text.strip()) if text.strip() else []

    def prompt_tokens(self, prompt: str) -> list[int]:
        """The prompt's tokens, after the words to know when they go in the prompt."""
        tokens = self.text_tokens(prompt)
        return tokens if self.vocabulary is None else self.vocabulary.prompt(tokens, self.heard)

    def transcribe(
        self, audio: np.ndarray, prompt: str = "", reference: list[int] | None = None, speech_until: float = 0.0
    ) -> RoundResult:
        """Encode, decode and time-align one buffer (times relative to the buffer's start); speech_until: a
        voice-activity detector heard speech up to there, so the round may not end before it."""
        if not len(audio) or float(np.max(np.abs(audio))) < DIGITAL_SILENCE:
            return RoundResult([], [], 1.0, 0.0, 0.0, 0.0, 0, 0.0, [], audio_s=len(audio) / SAMPLE_RATE)
        return Round(self, audio, speech_until).encode().run(self.prompt_tokens(prompt), reference)

    def assemble(self, encoded: Encoded, result: DecodeResult, decode_s: float, check: bool = True) -> RoundResult:
        """Segments and word timestamps from a decoded round; check: drop a silent or runaway round's words."""
        t = time.perf_counter()
        duration = encoded.n_samples / SAMPLE_RATE
        segments = (
            []
            if check and self.hallucinated(result)
            else split_segments(result.tokens, self.tokenizer.timestamp_begin, duration, self.tokenizer)
        )
        if segments and self.word_timestamps:
            self.add_words(segments, encoded.features, encoded.n_samples, result)
            clamp_to(segments, duration)
            if check and self.silence_gate and result.no_speech_prob > NO_SPEECH_PROB:
                probs = [w.probability for seg in segments for w in seg.words]
                if not probs or sum(probs) / len(probs) < WORD_PROB_FLOOR:
                    log.debug(
                        "silence gate: dropped %s (no speech %.2f)",
                        WordList([w for seg in segments for w in seg.words]),
                        result.no_speech_prob,
                    )
                    segments = []
        words = [w for seg in segments for w in seg.words]
        if self.vocabulary is not None and self.vocabulary.heard_only:
            self.heard.update(self.vocabulary.heard_in(words))
        peek = None
        if result.peek and words:  # the word the guard stopped before, from the last word's end to the audio's
            peek = Word(self.tokenizer.decode(result.peek).strip(), words[-1].end, duration, result.peek_prob)
        frames = encoded.mel.shape[0]
        return RoundResult(
            segments,
            result.tokens,
            result.no_speech_prob,
            encoded.encode_s,
            decode_s,
            time.perf_counter() - t,
            frames,
            encoder_gflops(self.model.dims, frames),
            result.beam_widths,
            result.guarded,
            audio_s=duration,
            peek=peek,
        )

    def hallucinated(self, result: DecodeResult) -> bool:
        """Silence (likely no speech and no confident text) or a runaway (text that repeats itself)."""
        if self.silence_gate and result.no_speech_prob > NO_SPEECH_PROB and result.avg_logprob < LOGPROB_FLOOR:
            log.debug(
                "silence gate: dropped a round (no speech %.2f, log-probability %.2f)",
                result.no_speech_prob,
                result.avg_logprob,
            )
            return True
        text = self.tokenizer.decode([t for t in result.tokens if t < self.tokenizer.eot])
        runaway = bool(text.strip()) and compression_ratio(text) > COMPRESSION_RATIO
        if runaway:
            log.debug("runaway: dropped a round that repeats itself: %r", text[-80:])
        return runaway

    def add_words(
        self, segments: list[Segment], features: mx.array, n_samples: int, result: DecodeResult | None = None
    ) -> None:
        """Fill each segment's words by DTW over cross-attention: the decoding's own when the result
        carries it, else a second decoder pass over the encoded features."""
        frames = n_samples // HOP_LENGTH
        if result is not None and result.attention is not None:
            alignment = decoded_alignment(self.tokenizer, result.tokens, result.token_probs, result.attention, frames)
        else:
            text_tokens = [t for s in segments for t in s.tokens]
            alignment = find_alignment(self.model, self.tokenizer, text_tokens, features, frames)
        fill_segment_words(segments, alignment, self.tokenizer.language)
        for seg in segments:
            seg.words = [w for w in seg.words if is_word(w.text)]


def clamp_to(segments: list[Segment], duration: float) -> None:
    """Keep every time within the audio: 0 ≤ start ≤ end ≤ duration."""

    def clamp(x: float) -> float:
        return min(max(x, 0.0), duration)

    for seg in segments:
        seg.start, seg.end = clamp(seg.start), clamp(max(seg.end, seg.start))
        seg.words = [w.clamped(0.0, duration) for w in seg.words]


class Round:
    """One round over one buffer: encode → decode → padded retry of a runaway → assemble.

    The serial loop runs it whole (``run``); the pipeline drives the same stages on its executors:
    ``encode`` on the accelerator, ``steps`` handed from the accelerator to the CPU, ``assemble``.
    """

    def __init__(self, transcriber: Transcriber, audio: np.ndarray, speech_until: float = 0.0):
        """speech_until: the round may not end before this time of its audio (Transcriber.transcribe)."""
        self.transcriber = transcriber
        self.audio = audio
        self.speech_until = speech_until
        self.encoded: Encoded | None = None
        self.result: DecodeResult | None = None
        self.decode_s = 0.0
        self.padded_retry = False
        self.at_budget = False

    def encode(self) -> Round:
        self.encoded = self.transcriber.encode(self.audio)
        return self

    def steps(self, prompt_tokens: list[int], reference: list[int] | None) -> Generator[None, None, DecodeResult]:
        """Decoding as a generator (pausing after the prefill and each step); a round that ran away is
        redone padded to 30 s after its last step. Returns the round's decoding."""
        t0 = time.perf_counter()
        tr = self.transcriber
        result = yield from tr.decode_steps(self.encoded, prompt_tokens, reference, self.speech_until)
        budget = tr.options_for(self.encoded.audio_steps).max_tokens
        if tr.degenerate(result, self.encoded):
            self.padded_retry = True
            self.encoded, result = tr.padded_round(self.encoded, prompt_tokens, reference)
            budget = tr.decode_options.max_tokens
        self.at_budget = len(result.beam_widths) >= budget
        self.result, self.decode_s = result, time.perf_counter() - t0
        return result

    def assemble(self) -> RoundResult:
        result = self.transcriber.assemble(self.encoded, self.result, self.decode_s)
        return replace(result, padded_retry=self.padded_retry, at_budget=self.at_budget)

    def run(self, prompt_tokens: list[int], reference: list[int] | None) -> RoundResult:
        run_steps(self.steps(prompt_tokens, reference), self.transcriber.between_steps)
        return self.assemble()

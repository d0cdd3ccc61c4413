"""Offline whole-file transcription with word timestamps: Whisper's 30 s windows with seeking.

Seeking is openai-whisper's (transcribe.py): a window keeps its complete segments (those closed by a
timestamp pair) and the next window starts where the last of them ends (its last word's end, with word
timestamps); a window that ends on a single timestamp is kept whole. A failed window (its text repeats
itself: compression ratio > 2.4, or it is unsure: average log-probability < -1) is decoded again at
rising temperatures, as openai-whisper does, unless it is silence. The sampling starts from a fixed seed, so the
same file gives the same transcript every time (MLX seeds its generator from the clock).
"""

from __future__ import annotations

from collections.abc import Callable

import mlx.core as mx
import numpy as np
from mlx_whisper.decoding import compression_ratio

from engine.audio.files import SAMPLE_RATE
from engine.decoder.options import TIME_PRECISION, DecodeResult
from engine.session.words import Word
from engine.stream.round import COMPRESSION_RATIO, LOGPROB_FLOOR, NO_SPEECH_PROB, Encoded, Transcriber

WINDOW = 30 * SAMPLE_RATE
TEMPERATURES = (0.2, 0.4, 0.6, 0.8, 1.0)  # after the transcriber's own decoding at temperature 0
SAMPLING_SEED = 0


def _failed(transcriber: Transcriber, result: DecodeResult) -> bool:
    if result.no_speech_prob > NO_SPEECH_PROB and result.avg_logprob < LOGPROB_FLOOR:
        return False  # silence: nothing to retry
    text = transcriber.tokenizer.decode([t for t in result.tokens if t < transcriber.tokenizer.eot])
    return compression_ratio(text) > COMPRESSION_RATIO or result.avg_logprob < LOGPROB_FLOOR


def _sample(transcriber: Transcriber, encoded: Encoded, prompt: list[int], temperature: float) -> DecodeResult:
    """One sampled decoding at temperature (mlx_whisper's decoder, the same model and features)."""
    from mlx_whisper.decoding import DecodingOptions, decode

    fp16 = transcriber.loaded.dtype == mx.float16
    options = DecodingOptions(
        language=transcriber.language or "en",
        temperature=temperature,
        prompt=prompt or None,
        fp16=fp16,
        sample_len=transcriber.decode_options.max_tokens,
    )
    mx.random.seed(SAMPLING_SEED)
    out = decode(transcriber.model, encoded.features[0], options)
    tokens = [t for t in out.tokens if t < transcriber.tokenizer.eot or t >= transcriber.tokenizer.timestamp_begin]
    steps = encoded.audio_steps
    tokens = [
        min(t, transcriber.tokenizer.timestamp_begin + steps) if t >= transcriber.tokenizer.timestamp_begin else t
        for t in tokens
    ]
    return DecodeResult(tokens, out.avg_logprob * (len(tokens) + 1), out.no_speech_prob)


def decode_with_fallback(transcriber: Transcriber, encoded: Encoded, prompt: list[int], with_temperature: bool = False):
    """The window's decoding, retried at rising temperatures while it fails (and the temperature used)."""
    result, used = transcriber.decode(encoded.features, prompt, None, encoded.audio_steps), 0.0
    for temperature in TEMPERATURES:
        if not _failed(transcriber, result):
            break
        result, used = _sample(transcriber, encoded, prompt, temperature), temperature
    return (result, used) if with_temperature else result


def transcribe_audio(
    transcriber: Transcriber, audio: np.ndarray, progress: Callable[[float], None] | None = None
) -> list[Word]:
    """Words of the whole audio on its own clock, each window prompted with the text before it."""
    words: list[Word] = []
    prompt_from = 0
    seek = 0
    ts_begin = transcriber.tokenizer.timestamp_begin
    duration = len(audio) / SAMPLE_RATE
    while seek < len(audio) - SAMPLE_RATE // 10:
        window = audio[seek : seek + WINDOW]
        offset = seek / SAMPLE_RATE
        # as openai-whisper (condition_on_previous_text): the text since the last reset, its last 223 tokens
        prompt = " ".join(w.text.strip() for w in words[prompt_from:][-400:])
        encoded = transcriber.encode(window)
        result, temperature = decode_with_fallback(transcriber, encoded, transcriber.prompt_tokens(prompt), True)
        tokens = result.tokens
        single_end = len(tokens) >= 1 and tokens[-1] >= ts_begin and (len(tokens) < 2 or tokens[-2] < ts_begin)
        pairs = [i for i in range(1, len(tokens)) if tokens[i] >= ts_begin and tokens[i - 1] >= ts_begin]
        advance = len(window)
        if (
            pairs
            and not single_end
            and not (result.no_speech_prob > NO_SPEECH_PROB and result.avg_logprob < LOGPROB_FLOOR)
        ):  # keep the complete segments; the next window starts after them
            last = pairs[-1]
            result = DecodeResult(tokens[:last], result.sum_logprob, result.no_speech_prob, result.beam_widths)
            advance = int(round((tokens[last - 1] - ts_begin) * TIME_PRECISION * SAMPLE_RATE))
        silent = result.no_speech_prob > NO_SPEECH_PROB and result.avg_logprob < LOGPROB_FLOOR
        # as openai-whisper: a silent window is skipped; otherwise the best decoding is kept, fallback or not
        segments = [] if silent else transcriber.assemble(encoded, result, 0.0, check=False).segments
        kept = [w for s in segments for w in s.words if w.text.strip()]
        if pairs and not single_end and kept and kept[-1].end > 0:
            advance = int(round(kept[-1].end * SAMPLE_RATE))  # as openai-whisper with word timestamps
        if advance <= 0:
            advance = len(window)
        words += [w.stripped().shifted(offset).clamped(0.0, duration) for w in kept]  # on the file's clock
        seek += advance
        if temperature > 0.5:  # a window that needed a hot retry does not prompt the next one
            prompt_from = len(words)
        if progress:
            progress(min(1.0, seek / len(audio)))
    return words

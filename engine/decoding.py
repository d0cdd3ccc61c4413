"""Decoding Whisper tokens against encoded audio: prompt, prefill, greedy steps.

Beam search (engine.beam_search) builds on the same prompt layout, rules and result.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mlx.core as mx
import numpy as np
from mlx_whisper.tokenizer import Tokenizer

from .token_rules import TokenRules, log_softmax

TIME_PRECISION = 0.02  # seconds per timestamp token


@dataclass(frozen=True)
class DecodeOptions:
    """How one round decodes."""

    beam_size: int = 1
    patience: float = 1.0
    length_penalty: float | None = None
    with_timestamps: bool = True
    max_initial_timestamp: float = 1.0
    max_tokens: int = 224
    beam_pruning: bool = False  # beam 1 while re-reading the previous round (engine.beam_pruning)
    pruning_rematch: bool = True  # after a fallback, return to beam 1 once the text re-matches
    verify_reference: bool = False  # accept re-read text in one teacher-forced pass (engine.beam_search)


@dataclass
class DecodeResult:
    """The sampled tokens (text and timestamps, no EOT) and what it cost."""

    tokens: list[int]
    sum_logprob: float
    no_speech_prob: float
    beam_widths: list[int] = field(default_factory=list)

    @property
    def avg_logprob(self) -> float:
        return self.sum_logprob / (len(self.tokens) + 1)


def initial_tokens(tokenizer: Tokenizer, prompt: list[int], n_text_ctx: int, with_timestamps: bool) -> list[int]:
    """[sot_prev, prompt…, sot, lang, task, (no_timestamps)] as openai-whisper lays them out."""
    tokens = list(tokenizer.sot_sequence)
    if not with_timestamps:
        tokens.append(tokenizer.no_timestamps)
    if prompt:
        tokens = [tokenizer.sot_prev] + list(prompt)[-(n_text_ctx // 2 - 1) :] + tokens
    return tokens


def make_rules(model, tokenizer: Tokenizer, sample_begin: int, options: DecodeOptions, n_audio_ctx: int) -> TokenRules:
    """Rules for decoding against n_audio_ctx encoder frames (the largest timestamp is the audio's end)."""
    return TokenRules(
        tokenizer,
        model.dims.n_vocab,
        sample_begin,
        with_timestamps=options.with_timestamps,
        max_initial_timestamp_index=round(options.max_initial_timestamp / TIME_PRECISION),
        max_timestamp_index=n_audio_ctx,
    )


def prefill(model, tokens: list[int], features: mx.array, batch: int = 1):
    """Run the prompt through the decoder; return last-position logits (numpy), the KV cache and
    the no-speech probability at the SOT position."""
    x = mx.array([tokens] * batch)
    logits, kv_cache, _ = model.decoder(x, features, kv_cache=None)
    return logits, kv_cache


def no_speech_probability(logits: mx.array, tokenizer: Tokenizer, sot_index: int) -> float:
    if tokenizer.no_speech is None:
        return 0.0
    row = np.array(logits[0, sot_index].astype(mx.float32))
    return float(np.exp(log_softmax(row)[tokenizer.no_speech]))


def decode_greedy(model, tokenizer: Tokenizer, features: mx.array, prompt: list[int], options: DecodeOptions) -> DecodeResult:
    """Greedy decoding (beam 1) with timestamp rules, against features of any length."""
    start = initial_tokens(tokenizer, prompt, model.dims.n_text_ctx, options.with_timestamps)
    sample_begin = len(start)
    rules = make_rules(model, tokenizer, sample_begin, options, features.shape[1])
    logits, kv_cache = prefill(model, start, features)
    no_speech = no_speech_probability(logits, tokenizer, start.index(tokenizer.sot))
    seq = list(start)
    total = 0.0
    limit = min(options.max_tokens, model.dims.n_text_ctx - sample_begin)
    for _ in range(limit):
        row = np.array(logits[:, -1].astype(mx.float32))
        lp = rules.logprobs(row, [seq])[0]
        token = int(lp.argmax())
        total += float(lp[token])
        if token == tokenizer.eot:
            break
        seq.append(token)
        logits, kv_cache, _ = model.decoder(mx.array([[token]]), features, kv_cache=kv_cache)
    return DecodeResult(seq[sample_begin:], total, no_speech, [1] * (len(seq) - sample_begin + 1))

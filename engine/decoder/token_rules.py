"""openai-whisper's logit rules in numpy, for one row per hypothesis.

Suppressed tokens, blank suppression at the first step, and the timestamp rules
(pairs, monotone, initial timestamp cap), plus a cap at the real audio length so that
decoding against shorter audio features never emits a timestamp past the audio. With a list of words to know, the
beam ranks by scores: the log-probabilities plus the words' bonus (engine.decoder.word_bias); the tokens keep the
model's own probabilities, which the rules downstream read as how sure a round is.
"""

from __future__ import annotations

import numpy as np
from mlx_whisper.tokenizer import Tokenizer

from engine.decoder.word_bias import WordBias


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    shifted = x - np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return (m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))).squeeze(axis)


class TokenRules:
    """Masks logits for a batch of hypotheses that share sample_begin."""

    def __init__(
        self,
        tokenizer: Tokenizer,
        n_vocab: int,
        sample_begin: int,
        *,
        with_timestamps: bool = True,
        max_initial_timestamp_index: int | None = 50,
        max_timestamp_index: int | None = None,
        suppress_blank: bool = True,
        speech_until_step: int = 0,
        bias: WordBias | None = None,
    ):
        """speech_until_step: EOT is masked until a timestamp of at least this index has been sampled; bias: the
        listed words' bonus, which scores adds."""
        self.tokenizer = tokenizer
        self.bias = bias
        self.sample_begin = sample_begin
        self.with_timestamps = with_timestamps
        self.ts_begin = tokenizer.timestamp_begin
        self.eot = tokenizer.eot
        self.max_initial = max_initial_timestamp_index
        self.speech_until_step = speech_until_step
        suppress = set(tokenizer.non_speech_tokens)
        suppress.update(
            [tokenizer.transcribe, tokenizer.translate, tokenizer.sot, tokenizer.sot_prev, tokenizer.sot_lm]
        )
        if tokenizer.no_speech is not None:
            suppress.add(tokenizer.no_speech)
        if not with_timestamps:
            suppress.update(range(self.ts_begin, n_vocab))
        elif tokenizer.no_timestamps is not None:
            suppress.add(tokenizer.no_timestamps)
        self.base_mask = np.zeros(n_vocab, np.float32)
        self.base_mask[sorted(t for t in suppress if t < n_vocab)] = -np.inf
        if with_timestamps and max_timestamp_index is not None:
            self.base_mask[self.ts_begin + max_timestamp_index + 1 :] = -np.inf
        self.blank_mask = np.zeros(n_vocab, np.float32)
        if suppress_blank:
            self.blank_mask[tokenizer.encode(" ") + [tokenizer.eot]] = -np.inf

    def logprobs(self, logits: np.ndarray, sequences: list[list[int]]) -> np.ndarray:
        """Masked log-probabilities, shape (len(sequences), n_vocab)."""
        logits = logits.astype(np.float32) + self.base_mask
        at_begin = len(sequences[0]) == self.sample_begin
        if at_begin:
            logits += self.blank_mask
        if self.with_timestamps:
            self._timestamp_rules(logits, sequences, at_begin)
        return log_softmax(logits)

    def scores(self, logprobs: np.ndarray, sequences: list[list[int]]) -> np.ndarray:
        """What the beam ranks by: the log-probabilities plus the listed words' bonus (the same array without a
        list)."""
        if self.bias is None:
            return logprobs
        scores = logprobs.copy()
        self.bias.add_to(scores, sequences, self.sample_begin)
        return scores

    def _timestamp_rules(self, logits: np.ndarray, sequences: list[list[int]], at_begin: bool) -> None:
        ts = self.ts_begin
        for k, full in enumerate(sequences):
            seq = full[self.sample_begin :]
            last_ts = len(seq) >= 1 and seq[-1] >= ts
            penult_ts = len(seq) < 2 or seq[-2] >= ts
            if last_ts:
                if penult_ts:
                    logits[k, ts:] = -np.inf
                else:
                    logits[k, : self.eot] = -np.inf
            stamps = [v for v in seq if v > ts]
            if self.speech_until_step and (not stamps or stamps[-1] - ts < self.speech_until_step):
                logits[k, self.eot] = -np.inf
            if stamps:
                floor = stamps[-1] if (last_ts and not penult_ts) else stamps[-1] + 1
                logits[k, ts:floor] = -np.inf
        if at_begin:
            logits[:, :ts] = -np.inf
            if self.max_initial is not None:
                logits[:, ts + self.max_initial + 1 :] = -np.inf
        lp = log_softmax(logits)
        ts_mass = logsumexp(lp[:, ts:], axis=-1)
        text_max = lp[:, :ts].max(axis=-1)
        logits[ts_mass > text_max, :ts] = -np.inf

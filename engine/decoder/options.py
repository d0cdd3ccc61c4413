"""What decoding shares: options, results (tokens, segments), the prompt layout, the logit rules and the no-speech
probability.

The decoder itself is engine.decoder.beam_search (beam 1 is greedy decoding).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mlx_whisper.tokenizer import Tokenizer

from engine.decoder.token_rules import TokenRules, log_softmax
from engine.decoder.word_bias import WordBias
from engine.session.words import Word

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
    beam_pruning: bool = False  # beam 1 while re-reading the previous round (engine.decoder.beam_pruning)
    pruning_rematch: bool = True  # after a fallback, return to beam 1 once the text re-matches
    verify_reference: bool = False  # accept re-read text in one teacher-forced pass (engine.decoder.beam_search)
    decoder: str | None = None  # "numpy" or "mlx" session; None: by device (engine.decoder.session)
    # End the round when the next token's query attends most to the last guard_frames encoder frames (20 ms
    # each) of the real audio (AlignAtt's rule); 0: off. Needs the numpy session's attention record.
    guard_frames: int = 0
    # End the round after the first copy when its text ends in a span repeated back to back, loop_tokens tokens or
    # more in all (a loop, which would run to the token budget); 0: off
    loop_tokens: int = 0
    # With the guard: when it ends a round, spell the word it stopped before greedily, at most peek_tokens tokens,
    # for display only (DecodeResult.peek); 0: off
    peek_tokens: int = 0
    # With loop_tokens: a loop makes the decoding a runaway (DecodeResult.looped), which the final pass decodes again
    # padded to 30 s, where it would otherwise have run to its token budget first; a round keeps the first copy
    loop_runaway: bool = False
    # No EOT before a timestamp token has reached this index (20 ms steps into the audio): a voice-activity
    # detector heard speech up to there, so a round that ends sooner has left it unsaid; 0: off
    speech_until_step: int = 0
    # A bonus for tokens that spell a listed word (engine.decoder.word_bias); None: none
    bias: WordBias | None = None


@dataclass
class DecodeResult:
    """The sampled tokens (text and timestamps, no EOT) and what it cost."""

    tokens: list[int]
    sum_logprob: float
    no_speech_prob: float
    beam_widths: list[int] = field(default_factory=list)
    token_probs: list[float] = field(default_factory=list)  # each sampled token's probability
    attention: np.ndarray | None = None  # alignment heads' cross-attention logits (engine.word_timing)
    guarded: bool = False  # the guard ended the round at the end of its audio or at a loop (guard_frames, loop_tokens)
    looped: bool = False  # the loop stop ended it (loop_tokens)
    peek: list[int] = field(default_factory=list)  # the word the guard stopped before, whole (peek_tokens)
    peek_prob: float = 0.0  # the model's probability of the peek's tokens

    @property
    def avg_logprob(self) -> float:
        return self.sum_logprob / (len(self.tokens) + 1)


@dataclass
class Segment:
    """Decoded text between timestamp tokens, in seconds from the buffer's start: its text tokens, and its words
    once timed (engine.decoder.word_timing)."""

    start: float
    end: float
    text: str
    tokens: list[int]
    words: list[Word] = field(default_factory=list)


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
        speech_until_step=min(options.speech_until_step, n_audio_ctx) if options.with_timestamps else 0,
        bias=options.bias,
    )


def no_speech_probability(logits, tokenizer: Tokenizer, sot_index: int) -> float:
    if tokenizer.no_speech is None:
        return 0.0
    row = np.asarray(logits[0, sot_index], dtype=np.float32)
    return float(np.exp(log_softmax(row)[tokenizer.no_speech]))

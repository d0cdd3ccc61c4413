"""Word timestamps by DTW over the decoder's cross-attention, reusing a round's encoded features.

Adapted from mlx-whisper's timing.py (MIT, Apple), itself from openai-whisper: the alignment runs
against features the round already encoded (no second encoder pass), and the DTW is vectorised
numpy over anti-diagonals instead of a numba kernel that compiles for seconds on first use.
"""

from __future__ import annotations

from dataclasses import replace

import mlx.core as mx
import numpy as np
from mlx_whisper.audio import TOKENS_PER_SECOND
from mlx_whisper.tokenizer import Tokenizer

from engine.decoder.options import Segment
from engine.decoder.timing_helpers import WordTiming, join_word_pieces, median_filter, merge_punctuations
from engine.session.words import Word

PREPEND_PUNCTUATIONS = "\"'“¿([{-"
APPEND_PUNCTUATIONS = "\"'.。,，!！?？:：”)]}、"


def dtw(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimal-cost monotonic path through x (N, M); returns (row indices, column indices).

    openai-whisper's dtw_cpu recurrence and tie-breaking (diagonal or up only when strictly cheaper than
    both others, else left), one row at a time: within a row the left-to-right dependency is a running
    minimum, cost[i, j] = S[j] + min over k <= j of (above[k] - S[k - 1]) with S the row's prefix sums.
    """
    n, m = x.shape
    cost = np.full((n + 1, m + 1), np.inf)
    trace = np.full((n + 1, m + 1), 2, dtype=np.int8)
    cost[0, 0] = 0
    for i in range(1, n + 1):
        diagonal, up = cost[i - 1, :-1], cost[i - 1, 1:]
        above = np.where(diagonal < up, diagonal, np.where(up < diagonal, up, np.inf))  # a tie goes left
        sums = np.cumsum(x[i - 1], dtype=np.float64)
        entry = above - np.concatenate(([0.0], sums[:-1]))
        best = np.minimum.accumulate(entry)
        cost[i, 1:] = sums + best
        taken = entry < np.concatenate(([np.inf], best[:-1]))  # strictly below every earlier entry
        trace[i, 1:] = np.where(taken, np.where(diagonal < up, 0, 1), 2)
    trace[0, :] = 2
    trace[:, 0] = 1
    i, j, path = n, m, []
    while i > 0 or j > 0:
        path.append((i - 1, j - 1))
        step = trace[i, j]
        if step == 0:
            i, j = i - 1, j - 1
        elif step == 1:
            i -= 1
        else:
            j -= 1
    rows, cols = np.array(path[::-1]).T
    return rows, cols


def find_alignment(
    model, tokenizer: Tokenizer, text_tokens: list[int], features: mx.array, num_frames: int, medfilt_width: int = 7
) -> list[WordTiming]:
    """Word timings (seconds from the buffer's start) for text_tokens against encoded features, by a
    second decoder pass over the text."""
    if not text_tokens:
        return []
    tokens = mx.array([[*tokenizer.sot_sequence, tokenizer.no_timestamps, *text_tokens, tokenizer.eot]])
    logits, _, cross_qk = model.decoder(tokens, features)
    sampled = logits[0][len(tokenizer.sot_sequence) : -2, : tokenizer.eot]
    probs = mx.softmax(sampled, axis=-1, precise=True)
    token_probs = np.array(mx.take_along_axis(probs, mx.array(text_tokens)[:, None], axis=1).squeeze(1))
    qk = np.array(mx.stack([cross_qk[layer][0, head] for layer, head in model.alignment_heads.tolist()]))
    return words_from_attention(
        tokenizer, text_tokens, qk, token_probs, num_frames, len(tokenizer.sot_sequence), medfilt_width
    )


def decoded_alignment(
    tokenizer: Tokenizer,
    tokens: list[int],
    token_probs: list[float],
    attention: np.ndarray,
    num_frames: int,
    medfilt_width: int = 7,
) -> list[WordTiming]:
    """Word timings from the decoding's own attention: `attention` (heads, len(tokens) + 1, frames) holds
    the queries that predicted each sampled token and EOT (engine.decoder.beam_search); timestamps are skipped."""
    text = [k for k, t in enumerate(tokens) if t < tokenizer.eot]
    if not text:
        return []
    rows = text + [text[-1] + 1]  # each text token's query, then the one after the last text token
    return words_from_attention(
        tokenizer,
        [tokens[k] for k in text],
        attention[:, rows],
        np.array([token_probs[k] for k in text]),
        num_frames,
        0,
        medfilt_width,
    )


def words_from_attention(
    tokenizer: Tokenizer,
    text_tokens: list[int],
    qk: np.ndarray,
    token_probs: np.ndarray,
    num_frames: int,
    first: int,
    medfilt_width: int = 7,
) -> list[WordTiming]:
    """DTW over cross-attention logits qk (heads, rows, frames), whose rows first … first + n hold the
    queries that predict the n text tokens and EOT; words and their mean token probabilities."""
    logits = np.asarray(qk[:, :, : num_frames // 2], dtype=np.float32)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))  # softmax in numpy: MLX's CPU exp is slow
    weights /= weights.sum(axis=-1, keepdims=True)
    weights = (weights - weights.mean(axis=-2, keepdims=True)) / np.sqrt(weights.var(axis=-2, keepdims=True))
    matrix = median_filter(weights, medfilt_width).mean(axis=0)[first : first + len(text_tokens) + 1]
    text_indices, time_indices = dtw(-matrix)

    words, word_tokens = tokenizer.split_to_word_tokens(text_tokens + [tokenizer.eot])
    if len(word_tokens) <= 1:
        return []
    boundaries = np.pad(np.cumsum([len(t) for t in word_tokens[:-1]]), (1, 0))
    jumps = np.pad(np.diff(text_indices), (1, 0), constant_values=1).astype(bool)
    jump_times = time_indices[jumps] / TOKENS_PER_SECOND
    starts, ends = jump_times[boundaries[:-1]], jump_times[boundaries[1:]]
    probabilities = [np.mean(token_probs[i:j]) for i, j in zip(boundaries[:-1], boundaries[1:])]
    return [WordTiming(*fields) for fields in zip(words, word_tokens, starts, ends, probabilities)]


def fill_segment_words(segments: list[Segment], alignment: list[WordTiming], language: str | None) -> None:
    """Fill each segment's words from the alignment of all their tokens (and refine its start/end), as
    openai-whisper's transcribe does; times rounded to 10 ms."""
    durations = np.array([t.end - t.start for t in alignment])
    durations = durations[durations.nonzero()]
    median = min(0.7, float(np.median(durations))) if len(durations) else 0.0
    longest = median * 2
    if len(durations):  # words at sentence boundaries are at most twice the median duration
        for i in range(1, len(alignment)):
            if alignment[i].end - alignment[i].start > longest:
                if alignment[i].word in ".。!！?？":
                    alignment[i].end = alignment[i].start + longest
                elif alignment[i - 1].word in ".。!！?？":
                    alignment[i].start = alignment[i].end - longest
    merge_punctuations(alignment, PREPEND_PUNCTUATIONS, APPEND_PUNCTUATIONS)
    join_word_pieces(alignment, language)  # "self" + "-substantial" -> "self-substantial"
    index, last_speech = 0, 0.0
    for segment in segments:
        saved, words = 0, []
        while index < len(alignment) and saved < len(segment.tokens):
            timing = alignment[index]
            if timing.word:
                words.append(timing.to_word())
            saved += len(timing.tokens)
            index += 1
        if words:
            _trim_long_words(words, segment, median, longest, last_speech)
            last_speech = segment.end
        segment.words = words


def _trim_long_words(words: list[Word], segment: Segment, median: float, longest: float, last_speech: float) -> None:
    """openai-whisper's heuristics for overlong first/last words at pauses and segment edges (in place)."""
    first = words[0]
    if first.end - last_speech > median * 4 and (
        first.duration > longest or (len(words) > 1 and words[1].end - first.start > longest * 2)
    ):
        if len(words) > 1 and words[1].duration > longest:
            boundary = max(words[1].end / 2, words[1].end - longest)
            first, words[1] = replace(first, end=boundary), replace(words[1], start=boundary)
        first = replace(first, start=max(0.0, first.end - longest))
    if segment.start < first.end and segment.start - 0.5 > first.start:
        first = replace(first, start=max(0.0, min(first.end - median, segment.start)))
    else:
        segment.start = first.start
    words[0] = first
    last = words[-1]
    if segment.end > last.start and segment.end + 0.5 < last.end:
        words[-1] = replace(last, end=max(last.start + median, segment.end))
    else:
        segment.end = last.end

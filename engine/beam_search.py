"""Beam search on MLX with openai-whisper's BeamSearchDecoder semantics, and beam pruning.

All hypotheses live in one DecoderSession: the self-attention cache has one row per hypothesis and
is reordered (mx.take) after each step; the audio's cross-attention keys/values are batch 1 and
shared, so they never need reordering. The prompt is prefilled once at batch 1 and the first step
fans it out to the full beam, which gives the same candidates as openai-whisper's beam_size
identical copies.

Ranking: each step extends every live hypothesis by its beam_size + 1 best tokens, keeps the
beam_size best non-EOT candidates by summed log-probability and collects the EOT ones as finished
(at most round(beam_size * patience)); decoding stops when that many have finished. At the end the
finished sequences (topped up with live ones if fewer than beam_size) are ranked by sum_logprob /
length, or by Google NMT's length penalty ((5 + length) / 6) ** length_penalty when it is set.

Beam pruning (options.beam_pruning, with the previous round's tokens as `reference`): steps run at
beam 1 while the best token re-reads the reference (engine.beam_pruning), and fall back to the full
beam where it does not. A beam-1 step that emits EOT ends the round, as greedy decoding does.
"""
from __future__ import annotations

from collections.abc import Sequence

import mlx.core as mx
import numpy as np
from mlx_whisper.tokenizer import Tokenizer

from .beam_pruning import Pruner, reference_words, skip_tokens
from .decoding import DecodeOptions, DecodeResult, initial_tokens, make_rules, no_speech_probability
from .fast_decoder import DecoderSession


def extend_beams(
    beams: list[list[int]], sums: list[float], logprobs: np.ndarray, beam_size: int, eot: int
) -> tuple[list[list[int]], list[float], list[int], dict[tuple[int, ...], float]]:
    """One beam-search step: (live sequences, their sums, parent row of each, newly finished)."""
    scores: dict[tuple[int, ...], float] = {}
    sources: dict[tuple[int, ...], int] = {}
    for j, parent in enumerate(beams):
        row = logprobs[j]
        top = np.argpartition(-row, beam_size)[: beam_size + 1]
        for token in top[np.argsort(-row[top], kind="stable")]:
            sequence = (*parent, int(token))
            scores[sequence] = sums[j] + float(row[token])
            sources[sequence] = j
    live, live_sums, parents, finished = [], [], [], {}
    for sequence in sorted(scores, key=scores.get, reverse=True):
        if sequence[-1] == eot:
            finished[sequence] = scores[sequence]
            continue
        live.append(list(sequence))
        live_sums.append(scores[sequence])
        parents.append(sources[sequence])
        if len(live) == beam_size:
            break
    return live, live_sums, parents, finished


def length_normalized(sum_logprob: float, length: int, length_penalty: float | None) -> float:
    """openai-whisper's MaximumLikelihoodRanker score for a sequence of `length` sampled tokens."""
    penalty = max(length, 1) if length_penalty is None else ((5 + length) / 6) ** length_penalty
    return sum_logprob / penalty


def decode_beam(
    model,
    tokenizer: Tokenizer,
    features: mx.array,
    prompt: list[int],
    options: DecodeOptions,
    reference: list[int] | None = None,
    prefix: Sequence[int] = (),
) -> DecodeResult:
    """Beam search after the prompt (previous text) and a forced prefix of the output (not returned),
    with beam pruning when options.beam_pruning and a reference (previous round's tokens) are given."""
    eot = tokenizer.eot
    start = initial_tokens(tokenizer, prompt, model.dims.n_text_ctx, options.with_timestamps) + list(prefix)
    sample_begin = len(start)
    rules = make_rules(model, tokenizer, sample_begin, options, features.shape[1])
    session = DecoderSession(model, features)
    logits = session.forward(mx.array([start]))
    no_speech = no_speech_probability(logits, tokenizer, start.index(tokenizer.sot))
    rows = np.array(logits[:, -1].astype(mx.float32))

    beam_size = options.beam_size
    max_finished = round(beam_size * options.patience)
    pruner = None
    if options.beam_pruning and reference is not None and beam_size > 1:
        skip = skip_tokens(tokenizer)
        pruner = Pruner(reference_words(reference, skip), skip, rematch=options.pruning_rematch)
    narrow = pruner is not None
    beams, sums = [start], [0.0]
    finished: dict[tuple[int, ...], float] = {}
    widths: list[int] = []
    limit = min(options.max_tokens, model.dims.n_text_ctx - sample_begin)
    for step in range(limit):
        logprobs = rules.logprobs(rows, beams)
        if narrow and pruner.narrow_step(token := int(logprobs[0].argmax())):
            widths.append(1)
            total = sums[0] + float(logprobs[0, token])
            if token == eot:
                finished[(*beams[0], eot)] = total
                beams, sums = [], []
                break
            beams, sums, parents = [beams[0] + [token]], [total], [0]
        else:
            beams, sums, parents, newly = extend_beams(beams, sums, logprobs, beam_size, eot)
            widths.append(len(beams))
            for sequence in sorted(newly, key=newly.get, reverse=True)[: max(0, max_finished - len(finished))]:
                finished[sequence] = newly[sequence]
            if len(finished) >= max_finished:
                break
            narrow = pruner is not None and pruner.full_step(beams[0][sample_begin:])
            if narrow:
                beams, sums, parents = beams[:1], sums[:1], parents[:1]
        if step + 1 == limit:
            break
        session.reorder(parents)
        logits = session.forward(mx.array([[sequence[-1]] for sequence in beams]))
        rows = np.array(logits[:, -1].astype(mx.float32))

    for j in np.argsort(sums)[::-1]:
        if len(finished) >= beam_size:
            break
        finished[(*beams[j], eot)] = sums[j]
    candidates = list(finished.items())
    scores = [length_normalized(s, len(seq) - sample_begin - 1, options.length_penalty) for seq, s in candidates]
    best, best_sum = candidates[int(np.argmax(scores))]
    return DecodeResult(list(best[sample_begin:-1]), best_sum, no_speech, widths)

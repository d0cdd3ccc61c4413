"""Beam search on MLX with openai-whisper's BeamSearchDecoder semantics, beam pruning, and one-pass
verification of re-read text.

All hypotheses live in one decoder session (numpy on the CPU, MLX on the GPU: engine.decoder.session):
the self-attention cache has one row per hypothesis and is reordered after each step; the audio's cross-attention
keys/values are batch 1 and shared, so they never need reordering. The prompt is prefilled once at batch 1 and the first
step fans it out to the full beam, which gives the same candidates as openai-whisper's beam_size identical copies.

Ranking: each step extends every live hypothesis by its beam_size + 1 best tokens, keeps the
beam_size best non-EOT candidates by summed score (the log-probability, plus the bonus of the words to know where
a list is given: TokenRules.scores) and collects the EOT ones as finished
(at most round(beam_size * patience)); decoding stops when that many have finished. At the end the
finished sequences (topped up with live ones if fewer than beam_size) are ranked by summed score /
length, or by Google NMT's length penalty ((5 + length) / 6) ** length_penalty when it is set.

Beam pruning (options.beam_pruning, with the previous round's tokens as `reference`): steps run at
beam 1 while the best token re-reads the reference (engine.decoder.beam_pruning), and fall back to the full
beam where it does not. A beam-1 step that emits EOT ends the round, as greedy decoding does.

One-pass verification (options.verify_reference): at a beam-1 step whose best token the reference accepts,
that token and what follows it in the previous round (up to DRAFT_TOKENS in all) go through the decoder in one
teacher-forced pass, and the longest prefix that greedy decoding would have produced is accepted at once
(speculative decoding with the previous round as the draft). Where the step's token is not the reference's next
(a timestamp or a comma it lacks, a word where it had punctuation), the draft is that token and the reference from
the next word; a timestamp that ends a segment is guessed to be followed by the same one, which starts the next.
The first token that differs is decoded normally, so the output is greedy's own; only rounding differs (one
batched pass instead of single steps). It applies to beam-1 steps: with beam_size 1 or with beam pruning.

Measured and left out (streaming rounds of 1 s over 6 corpus clips, beam 5): stopping a round at
the first hypothesis to emit EOT (CarelessWhisper) saved 5% of steps but 1% of decode time and cost
0.7 WER points (9 points of round-to-round disagreement with pruning: the first EOT is often a
hypothesis that drops the newest word); capping a round's tokens at the previous round's tokens per
second of audio + 5 would have cut 2 of 1067 steps.

The guard (options.guard_frames, AlignAtt's rule as in SimulStreaming): before each token is chosen, the
alignment heads' attention of the query that predicts it (best hypothesis, softmax, mean over heads) is read;
when its peak lies within guard_frames of the real audio's end, the round ends there, without that token. The
next round, with more audio, says the rest. Verified tokens are checked the same way.

The peek (options.peek_tokens, with the guard): where the guard ends a round before a token that opens a word, that
word is spelled greedily on, a few tokens at most, and returned apart (DecodeResult.peek) when the model opens
the next word after it: the stream shows it, dimmed, a round before the next round can say it (it is never
confirmed from here).

The loop stop (options.loop_tokens): when the best hypothesis's text ends in a span said again back to back,
loop_tokens tokens or more in all ("has never been surpassed. has never been surpassed."), the round ends after
the span's first copy, as a guarded round. Such a loop would otherwise run to the token budget and be redone
padded to 30 s. With options.loop_runaway (the final pass) the result is marked looped, and the caller decodes it
again padded at once. (Measured and left out: ending the round where the attention peak jumps back behind the
furthest frame reached, as SimulStreaming's rewind_threshold: the alignment heads' peak jumps back inside
multi-token words too, so rounds stopped mid-word and the stream lost whole sentences.)

Beam widths: each decoding step records the beam it keeps (1 for a pruned step, beam_size otherwise).
The result carries the model's own log-probability of the tokens and each sampled token's probability (without
the words' bonus), and, from the session's trace, the alignment heads' cross-attention of the winning hypothesis,
for word times without a second decoder pass.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence

import mlx.core as mx
import numpy as np
from mlx_whisper.tokenizer import Tokenizer

from engine.decoder.beam_pruning import Pruner, skip_tokens
from engine.decoder.mlx_session import DecoderSession
from engine.decoder.options import DecodeOptions, DecodeResult, initial_tokens, make_rules, no_speech_probability
from engine.decoder.session import make_session
from engine.decoder.token_rules import TokenRules

DRAFT_TOKENS = 16  # the most tokens one verification pass checks: a longer draft, cut short where a segment
# ends or a word differs, sends tokens through the decoder that it throws away (the final pass decodes 15 % faster
# than with uncapped drafts; docs/bench/finalize)


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


class _BeamDecoder:
    """One round's beam search state: live hypotheses (rows of the session), finished ones, widths."""

    def __init__(self, session: DecoderSession, rules: TokenRules, options: DecodeOptions, eot: int, start: list[int]):
        self.session, self.rules, self.options, self.eot = session, rules, options, eot
        self.sample_begin = len(start)
        self.beams, self.sums = [start], [0.0]
        self.lps: list[list[float]] = [[]]  # per live hypothesis, its sampled tokens' log-probabilities
        self.finished: dict[tuple[int, ...], float] = {}
        self.trace = session.trace  # the session's record of the alignment heads' cross-attention
        self.ends: dict[tuple[int, ...], tuple[list[float], np.ndarray | None]] = {}
        self.widths: list[int] = []
        self.done = False
        self.guarded = False
        self.looped = False

    def narrow_step(self, token: int, score: float, logprob: float) -> list[int]:
        """Keep only the single hypothesis, extended by `token` (its score and the model's log-probability of it);
        returns the parents for reordering."""
        self.widths.append(1)
        total, lps = self.sums[0] + score, self.lps[0] + [logprob]
        if token == self.eot:
            self._finish((*self.beams[0], token), total, lps, 0)
            self.beams, self.sums, self.lps, self.done = [], [], [], True
            return []
        self.beams, self.sums, self.lps = [self.beams[0] + [token]], [total], [lps]
        return [0]

    def _finish(self, sequence: tuple[int, ...], total: float, lps: list[float], row: int | None) -> None:
        """Record a finished sequence with its tokens' log-probabilities and, when its last token went
        through the session (row), its attention history."""
        self.finished[sequence] = total
        self.ends[sequence] = (lps, self.trace.path(row) if row is not None else None)

    def full_step(self, scores: np.ndarray, logprobs: np.ndarray) -> list[int]:
        """Extend every hypothesis by the beam's best tokens by score; each token keeps the model's log-probability
        of it (logprobs). Returns the parents for reordering."""
        beam_size = self.options.beam_size
        max_finished = round(beam_size * self.options.patience)
        beams, lps = self.beams, self.lps
        self.beams, self.sums, parents, newly = extend_beams(beams, self.sums, scores, beam_size, self.eot)
        self.lps = [lps[p] + [float(logprobs[p, beam[-1]])] for p, beam in zip(parents, self.beams)]
        self.widths.append(len(self.beams))
        for sequence in sorted(newly, key=newly.get, reverse=True)[: max(0, max_finished - len(self.finished))]:
            j = beams.index(list(sequence[:-1]))
            self._finish(sequence, newly[sequence], lps[j] + [float(logprobs[j, self.eot])], j)
        self.done = len(self.finished) >= max_finished
        return parents

    def collapse(self, parents: list[int]) -> list[int]:
        """Back to beam 1: keep the best live hypothesis."""
        self.beams, self.sums, self.lps = self.beams[:1], self.sums[:1], self.lps[:1]
        return parents[:1]

    def result(self, no_speech: float) -> DecodeResult:
        """The best finished sequence (topped up with live ones when fewer than beam_size finished)."""
        for j in np.argsort(self.sums)[::-1]:
            if len(self.finished) >= self.options.beam_size:
                break
            # the live rows' last tokens went through the session only when the guard stopped the round
            self._finish((*self.beams[j], self.eot), self.sums[j], self.lps[j], j if self.guarded else None)
        candidates = list(self.finished.items())
        scores = [
            length_normalized(s, len(seq) - self.sample_begin - 1, self.options.length_penalty) for seq, s in candidates
        ]
        best = candidates[int(np.argmax(scores))][0]
        tokens, (lps, path) = list(best[self.sample_begin : -1]), self.ends[best]
        attention = None  # the queries that predicted each token and EOT
        if path is not None:
            attention = self.trace.logits(path, list(range(self.sample_begin - 1, self.sample_begin + len(tokens))))
        probs = [float(np.exp(lp)) for lp in lps[: len(tokens)]]
        return DecodeResult(
            tokens, float(sum(lps)), no_speech, self.widths, probs, attention, self.guarded, looped=self.looped
        )

    def at_audio_end(self, position: int = -1) -> bool:
        """The guard: does the best hypothesis's query at `position` of the newest forward call attend most to
        the last guard_frames frames of the real audio? The answer is kept as `guarded` for the result."""
        guard = self.options.guard_frames
        if not guard or not self.trace.calls or not self.widths:
            return False  # the query that predicts the first token has no place in the audio yet
        qk = self.trace.calls[-1][0, position]  # (heads, frames) of row 0, the best live hypothesis
        weights = np.exp(qk - qk.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        self.guarded = int(np.argmax(weights.mean(axis=0))) >= qk.shape[-1] - guard
        return self.guarded

    def ends_loop(self, row: int, timestamp_begin: int) -> bool:
        """The loop stop: if the best hypothesis (whose last token but one went through session row `row`) ends
        in a back-to-back repeat of options.loop_tokens tokens or more, finish it after the first copy."""
        if not self.options.loop_tokens or not self.beams:
            return False
        sampled = self.beams[0][self.sample_begin :]
        cut = loop_start(sampled, timestamp_begin, self.options.loop_tokens)
        if cut is None:
            return False
        lps = self.lps[0][:cut]
        self._finish((*self.beams[0][: self.sample_begin + cut], self.eot), float(sum(lps)), lps, row)
        self.beams, self.sums, self.lps, self.done, self.guarded, self.looped = [], [], [], True, True, True
        return True


def loop_start(tokens: list[int], timestamp_begin: int, min_tokens: int) -> int | None:
    """Where a back-to-back repeat at the end of tokens begins (the index of the second copy's first token), when
    the copies of one span of text tokens (timestamps aside) come to at least min_tokens; else None."""
    at = [i for i, t in enumerate(tokens) if t < timestamp_begin]
    text = [tokens[i] for i in at]
    n = len(text)
    for span in range(1, n // 2 + 1):
        copies = 1
        while (copies + 1) * span <= n and text[n - (copies + 1) * span : n - copies * span] == text[n - span :]:
            copies += 1
        if copies >= 2 and copies * span >= min_tokens:
            return at[n - (copies - 1) * span]
    return None


def decode_beam(*args, **kwargs) -> DecodeResult:
    """Beam search after the prompt (previous text) and a forced prefix of the output (not returned); the
    arguments are iter_decode_beam's. With a reference (the previous round's tokens): beam pruning when
    options.beam_pruning, one-pass verification of beam-1 steps when options.verify_reference."""
    return run_steps(iter_decode_beam(*args, **kwargs))


def run_steps(steps: Generator[None, None, DecodeResult], between: Callable[[], None] | None = None) -> DecodeResult:
    """Run a decoding generator to its end and return its result; between is called after each of its steps."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
        if between is not None:
            between()


def iter_decode_beam(
    model,
    tokenizer: Tokenizer,
    features: mx.array,
    prompt: list[int],
    options: DecodeOptions,
    reference: list[int] | None = None,
    prefix: Sequence[int] = (),
    audio_steps: int | None = None,
) -> Generator[None, None, DecodeResult]:
    """decode_beam as a generator that pauses after the prompt prefill and after every decoding
    step, so that a round can be handed from one executor thread to another (engine.stream.pipeline).
    audio_steps caps timestamps at the real audio's length in 20 ms steps (default: the features')."""
    start = initial_tokens(tokenizer, prompt, model.dims.n_text_ctx, options.with_timestamps) + list(prefix)
    rules = make_rules(model, tokenizer, len(start), options, audio_steps or features.shape[1])
    audio_steps = audio_steps or features.shape[1]
    session = make_session(model, features, options.decoder, min(audio_steps, features.shape[1]))
    logits = session.forward(np.array([start]), positions=[start.index(tokenizer.sot), len(start) - 1])
    no_speech = no_speech_probability(logits, tokenizer, 0)
    rows = np.asarray(logits[:, -1], dtype=np.float32)
    yield

    pruner = None
    if reference is not None and (options.beam_pruning or options.verify_reference and options.beam_size == 1):
        skip = skip_tokens(tokenizer)
        pruner = Pruner(list(reference), skip, rematch=options.pruning_rematch)
    decoder = _BeamDecoder(session, rules, options, tokenizer.eot, start)
    narrow = pruner is not None
    limit = min(options.max_tokens, model.dims.n_text_ctx - len(start))
    while len(decoder.widths) < limit and not decoder.at_audio_end():
        logprobs = rules.logprobs(rows, decoder.beams)
        scores = rules.scores(logprobs, decoder.beams)
        if narrow:
            token = int(scores[0].argmax())
            if options.verify_reference and pruner.position and token != tokenizer.eot and pruner.accepts(token):
                draft = _draft(pruner, decoder.beams[0][len(start) :], token, tokenizer.timestamp_begin)
                draft = draft[: min(limit - len(decoder.widths) - 1, DRAFT_TOKENS)]
                if len(draft) > 1:
                    rows = _verify(decoder, pruner, draft, rows)
                    continue
            narrow = pruner.narrow_step(token)
        if narrow:
            parents = decoder.narrow_step(token, float(scores[0, token]), float(logprobs[0, token]))
        else:
            parents = decoder.full_step(scores, logprobs)
            if not decoder.done and pruner is not None and pruner.full_step(decoder.beams[0][len(start) :]):
                narrow, parents = True, decoder.collapse(parents)
        if decoder.done or len(decoder.widths) == limit or decoder.ends_loop(parents[0], tokenizer.timestamp_begin):
            break
        session.reorder(parents)
        logits = session.forward(np.array([[sequence[-1]] for sequence in decoder.beams]))
        rows = np.asarray(logits[:, -1], dtype=np.float32)
        yield
    result = decoder.result(no_speech)
    peeks = options.peek_tokens and decoder.guarded and not decoder.looped and decoder.beams
    if peeks and result.tokens == decoder.beams[0][len(start) :]:  # the best hypothesis is the one the guard stopped
        result.peek, result.peek_prob = _peek(decoder, rows[:1], tokenizer, options.peek_tokens)
    return result


def _peek(decoder: _BeamDecoder, row: np.ndarray, tokenizer: Tokenizer, limit: int) -> tuple[list[int], float]:
    """The word the guard stopped before, spelled greedily after the best hypothesis from its logits (row): its
    tokens (with punctuation after it) and their probability when the model opens a word there and, within limit
    tokens, opens the next one; else ([], 0.0). A word followed by EOT or a timestamp is often the start of a longer
    word cut by the audio's end ("primary" for "primarily"), and is not shown. For display only; the round is over."""
    session, spelled, logprob = decoder.session, [], 0.0
    session.reorder([0])
    while True:
        sequences = [decoder.beams[0] + spelled]
        logprobs = decoder.rules.logprobs(row, sequences)
        token = int(decoder.rules.scores(logprobs, sequences)[0].argmax())
        text = tokenizer.decode([token]) if token < tokenizer.eot else ""
        opens = text.startswith(" ") and any(c.isalnum() for c in text)
        if spelled and opens:
            return spelled, float(np.exp(logprob))
        if not text or opens != (not spelled) or len(spelled) == limit:
            return [], 0.0
        spelled.append(token)
        logprob += float(logprobs[0, token])
        row = np.asarray(session.forward(np.array([[token]]))[:, -1], dtype=np.float32)


def _draft(pruner: Pruner, sampled: list[int], token: int, timestamp_begin: int) -> list[int]:
    """What a verification pass checks from a beam-1 step whose best token is `token`: it, then the reference
    after it (Pruner.draft_from). A timestamp after text ends a segment, and the next one starts it, most often
    at the same time: the pair is guessed so, as the reference (text only, in the final pass) lacks it."""
    draft = pruner.draft_from(sampled, token)
    if token >= timestamp_begin and sampled and sampled[-1] < timestamp_begin and draft[1:2] != [token]:
        draft.insert(1, token)
    return draft


def _verify(decoder: _BeamDecoder, pruner: Pruner, draft: list[int], rows: np.ndarray) -> np.ndarray:
    """Teacher-force the draft in one pass; accept its longest prefix that greedy decoding reproduces.
    Returns the logits after the last accepted token (the cache is cut back to it)."""
    session = decoder.session
    kept = session.length
    logits = np.asarray(session.forward(np.array([draft]))[0], dtype=np.float32)
    accepted = 0
    for k, expected in enumerate(draft):
        if k > 0 and decoder.at_audio_end(k - 1):  # the query that predicts draft[k] looks at the audio's end
            break
        row = rows if k == 0 else logits[k - 1 : k]
        logprobs = decoder.rules.logprobs(row, decoder.beams)
        scores = decoder.rules.scores(logprobs, decoder.beams)
        token = int(scores[0].argmax())
        if token != expected or not pruner.accepts(token):
            break
        pruner.narrow_step(token)
        decoder.narrow_step(token, float(scores[0, token]), float(logprobs[0, token]))
        accepted += 1
    session.truncate(kept + accepted)
    return rows if accepted == 0 else logits[accepted - 1 : accepted]

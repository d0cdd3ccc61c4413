"""Beam search on MLX against openai-whisper's algorithm, greedy decoding and a cache recomputed from scratch;
beam pruning and one-pass verification over two overlapping rounds of a real clip."""

from dataclasses import replace

import mlx.core as mx
import numpy as np
import pytest
from testdata import DATA
from tolerance import assert_close

from engine.audio.files import load_audio
from engine.decoder.beam_search import DRAFT_TOKENS, decode_beam, extend_beams, length_normalized
from engine.decoder.mlx_session import DecoderSession
from engine.decoder.numpy_session import NumpyDecoderSession
from engine.decoder.options import DecodeOptions, DecodeResult, initial_tokens, make_rules, no_speech_probability
from engine.encoder.input import Padding
from engine.stream.round import Transcriber

SENTENCE = "Printing, then, for our purpose, may be considered as the art of making books by means of movable types."


def decode_greedy(model, tokenizer, features, prompt, options) -> DecodeResult:
    """Reference greedy decoding on mlx-whisper's own decoder and KV cache, one token at a time."""
    start = initial_tokens(tokenizer, prompt, model.dims.n_text_ctx, options.with_timestamps)
    sample_begin = len(start)
    rules = make_rules(model, tokenizer, sample_begin, options, features.shape[1])
    logits, kv_cache, _ = model.decoder(mx.array([start]), features, kv_cache=None)
    no_speech = no_speech_probability(logits, tokenizer, start.index(tokenizer.sot))
    seq, total = list(start), 0.0
    for _ in range(min(options.max_tokens, model.dims.n_text_ctx - sample_begin)):
        lp = rules.logprobs(np.array(logits[:, -1].astype(mx.float32)), [seq])[0]
        token = int(lp.argmax())
        total += float(lp[token])
        if token == tokenizer.eot:
            break
        seq.append(token)
        logits, kv_cache, _ = model.decoder(mx.array([[token]]), features, kv_cache=kv_cache)
    return DecodeResult(seq[sample_begin:], total, no_speech, [1] * (len(seq) - sample_begin + 1))


@pytest.fixture(scope="module")
def transcriber(tiny_model):
    return Transcriber(tiny_model)


@pytest.fixture(scope="module")
def clip():
    return load_audio(DATA / "LJ001-0009.wav")


@pytest.fixture(scope="module")
def features(transcriber, clip):
    return transcriber.encode(clip).features


@pytest.fixture(scope="module")
def short_features(transcriber, clip):
    """Features with 1 s of zero padding (426 frames instead of 1500): the from-scratch reference stays fast."""
    return Transcriber(transcriber.loaded, padding=Padding("zeros", 1.0)).encode(clip).features


def words(text: str) -> list[str]:
    return "".join(c for c in text.lower() if c.isalnum() or c.isspace()).split()


def last_logits(model, tokens: list[list[int]], features: mx.array) -> np.ndarray:
    """mlx_whisper's decoder blocks over whole sequences (no cache); vocabulary logits at the last position only."""
    dec = model.decoder
    x = dec.token_embedding(mx.array(tokens)) + dec.positional_embedding[: len(tokens[0])]
    for block in dec.blocks:
        x, _, _ = block(x, features, mask=dec._mask)
    return np.array(dec.token_embedding.as_linear(dec.ln(x[:, -1])))


def openai_beam_search(
    model, tokenizer, features, beam_size: int, patience: float, length_penalty
) -> tuple[list[int], float]:
    """openai-whisper's DecodingTask + BeamSearchDecoder + MaximumLikelihoodRanker, transliterated for one
    audio: beam_size copies of the prompt, every step recomputed from scratch by mlx_whisper's decoder blocks."""
    start = initial_tokens(tokenizer, [], model.dims.n_text_ctx, True)
    rules = make_rules(model, tokenizer, len(start), DecodeOptions(), features.shape[1])
    tokens, sum_logprobs = [list(start)] * beam_size, [0.0] * beam_size
    finished, max_candidates = {}, round(beam_size * patience)
    for _ in range(224):
        logprobs = rules.logprobs(last_logits(model, tokens, features), tokens)
        scores = {}
        for j in range(beam_size):
            for token in np.argsort(-logprobs[j], kind="stable")[: beam_size + 1]:
                scores[tuple(tokens[j] + [int(token)])] = sum_logprobs[j] + float(logprobs[j, token])
        next_tokens, newly = [], {}
        for sequence in sorted(scores, key=scores.get, reverse=True):
            if sequence[-1] == tokenizer.eot:
                newly[sequence] = scores[sequence]
            else:
                sum_logprobs[len(next_tokens)] = scores[sequence]
                next_tokens.append(list(sequence))
                if len(next_tokens) == beam_size:
                    break
        tokens = next_tokens
        for sequence in sorted(newly, key=newly.get, reverse=True):
            if len(finished) >= max_candidates:
                break
            finished[sequence] = newly[sequence]
        if len(finished) >= max_candidates:
            break
    for j in np.argsort(sum_logprobs)[::-1]:
        if len(finished) >= beam_size:
            break
        finished[tuple(tokens[j] + [tokenizer.eot])] = sum_logprobs[j]
    lengths = [len(s) - len(start) - 1 for s in finished]
    penalties = lengths if length_penalty is None else [((5 + n) / 6) ** length_penalty for n in lengths]
    best = int(np.argmax([s / p for s, p in zip(finished.values(), penalties)]))
    sequence = list(finished)[best]
    return list(sequence[len(start) : -1]), list(finished.values())[best]


def test_session_logits_match_mlx_whisper_decoder(transcriber, features):
    tok = transcriber.tokenizer
    tokens = list(tok.sot_sequence) + [tok.timestamp_begin] + tok.encode(" Printing, then, for our purpose")
    expected, _, _ = transcriber.model.decoder(mx.array([tokens]), features)
    session = DecoderSession(transcriber.model, features)
    got = [session.forward(mx.array([tokens[a:b]])) for a, b in ((0, 3), (3, 4), (4, len(tokens)))]
    assert_close(np.array(mx.concatenate(got, axis=1)), np.array(expected))
    picked = DecoderSession(transcriber.model, features).forward(mx.array([tokens]), positions=[0, len(tokens) - 1])
    assert_close(np.array(picked), np.array(expected)[:, [0, -1]])


def test_reordered_cache_equals_cache_recomputed_from_scratch(transcriber, features):
    model, tok = transcriber.model, transcriber.tokenizer
    start = list(tok.sot_sequence)
    rules = make_rules(model, tok, len(start), DecodeOptions(), features.shape[1])
    session = DecoderSession(model, features)
    logits = session.forward(mx.array([start]))
    beams, sums, reordered = [start], [0.0], 0
    for _ in range(6):
        logprobs = rules.logprobs(np.array(logits[:, -1]), beams)
        beams, sums, parents, _ = extend_beams(beams, sums, logprobs, 4, tok.eot)
        reordered += parents != list(range(len(parents)))
        session.reorder(parents)
        logits = session.forward(mx.array([[b[-1]] for b in beams]))
    assert reordered >= 2 and len({tuple(b) for b in beams}) == 4
    for row, sequence in enumerate(beams):
        fresh = DecoderSession(model, features)
        fresh_logits = fresh.forward(mx.array([sequence]))
        for (k, v), (fk, fv) in zip(session.cache, fresh.cache):
            assert_close(np.array(k[row]), np.array(fk[0]))
            assert_close(np.array(v[row]), np.array(fv[0]))
        assert_close(np.array(logits[row, -1]), np.array(fresh_logits[0, -1]))


@pytest.mark.parametrize("prompt", ["", "Books and letters."])
def test_beam_one_is_greedy(transcriber, features, prompt):
    model, tok = transcriber.model, transcriber.tokenizer
    prompt_tokens = transcriber.prompt_tokens(prompt)
    greedy = decode_greedy(model, tok, features, prompt_tokens, DecodeOptions())
    beam = decode_beam(model, tok, features, prompt_tokens, DecodeOptions(beam_size=1))
    assert beam.tokens == greedy.tokens
    assert beam.sum_logprob == pytest.approx(greedy.sum_logprob, rel=1e-4)
    assert beam.beam_widths == [1] * (len(beam.tokens) + 1)


@pytest.mark.parametrize("beam_size, patience, length_penalty", [(5, 1.0, None), (3, 2.0, 1.0)])
def test_beam_search_matches_openai_algorithm(transcriber, short_features, beam_size, patience, length_penalty):
    model, tok = transcriber.model, transcriber.tokenizer
    options = DecodeOptions(beam_size=beam_size, patience=patience, length_penalty=length_penalty)
    result = decode_beam(model, tok, short_features, [], options)
    tokens, sum_logprob = openai_beam_search(model, tok, short_features, beam_size, patience, length_penalty)
    assert result.tokens == tokens
    assert result.sum_logprob == pytest.approx(sum_logprob, rel=1e-4)
    assert result.beam_widths == [beam_size] * len(result.beam_widths)


def test_timestamps_segments_and_prefix(transcriber, clip, features):
    """Beam 5 through Transcriber (segments, timestamps); a forced prefix is decoded after, not returned."""
    tok = transcriber.tokenizer
    beam = Transcriber(transcriber.loaded, decode=DecodeOptions(beam_size=5))
    result = beam.transcribe(clip)
    assert result.tokens[0] == tok.timestamp_begin and result.tokens[-1] > tok.timestamp_begin + 300
    assert words(" ".join(s.text for s in result.segments)) == words(SENTENCE)
    assert result.beam_widths and set(result.beam_widths) == {5}
    prefix = tok.encode(" Printing, then, for our purpose,")
    forced = decode_beam(
        transcriber.model, tok, features, [], DecodeOptions(beam_size=5, with_timestamps=False), prefix=prefix
    )
    assert tok.decode(forced.tokens) == " may be considered as the art of making books by means of movable types."


def test_length_penalty_and_ranking_rules():
    assert length_normalized(-6.0, 3, None) == -2.0
    assert length_normalized(-6.0, 7, 1.0) == pytest.approx(-3.0)
    # vocabulary of 5 with EOT = 4: row 0's best continuation ends; ranked by summed log-probability
    # the live candidates interleave the two parents
    logprobs = np.log(np.array([[0.1, 0.2, 0.05, 0.05, 0.6], [0.5, 0.3, 0.1, 0.05, 0.05]]))
    live, sums, parents, finished = extend_beams([[7], [8]], [0.0, -1.0], logprobs, 3, eot=4)
    assert finished == {(7, 4): pytest.approx(np.log(0.6))}
    assert live == [[7, 1], [8, 0], [8, 1]] and parents == [0, 1, 1]
    assert sums == pytest.approx([np.log(0.2), -1.0 + np.log(0.5), -1.0 + np.log(0.3)])


def test_speech_until_holds_the_end_back_until_a_timestamp_reaches_it(transcriber):
    tok, n_vocab = transcriber.tokenizer, transcriber.model.dims.n_vocab
    start = initial_tokens(tok, [], transcriber.model.dims.n_text_ctx, True)
    said = tok.encode(" Printing")
    ts = tok.timestamp_begin

    def eot_allowed(until_step: int, closing: int) -> bool:
        rules = make_rules(transcriber.model, tok, len(start), DecodeOptions(speech_until_step=until_step), 1500)
        sequence = start + [ts] + said + [ts + closing]  # a segment closed at closing × 20 ms
        logits = np.zeros((1, n_vocab), np.float32)
        logits[0, tok.eot] = 10.0  # the model would end here
        return bool(np.isfinite(rules.logprobs(logits, [sequence])[0, tok.eot]))

    assert eot_allowed(0, 20) and eot_allowed(50, 50) and eot_allowed(50, 60)
    assert not eot_allowed(50, 20)  # the speech heard goes on to 1 s: the round must go on too


@pytest.fixture(scope="module")
def two_rounds(transcriber, clip):
    """Overlapping buffers [0, 6.5 s] and [0, 7.5 s]: round 1's beam-5 tokens and round 2's features."""
    first = transcriber.encode(clip[: int(6.5 * 16000)]).features
    tokens = decode_beam(transcriber.model, transcriber.tokenizer, first, [], DecodeOptions(beam_size=5)).tokens
    return tokens, transcriber.encode(clip[: int(7.5 * 16000)]).features


def test_pruning_rereads_the_previous_round_at_beam_one(transcriber, two_rounds):
    reference, features = two_rounds
    pruned = Transcriber(transcriber.loaded, decode=DecodeOptions(beam_size=5, beam_pruning=True))
    assert set(pruned.decode(features, []).beam_widths) == {5}  # no reference: full beam
    result = pruned.decode(features, [], reference=reference)
    full = decode_beam(transcriber.model, transcriber.tokenizer, features, [], DecodeOptions(beam_size=5))
    widths = result.beam_widths
    assert widths[0] == 1 and widths[-1] == 5
    reread = widths.index(5)  # steps before the first fallback re-read round 1 at beam 1
    assert reread >= len(reference) - 6
    assert np.mean(widths) < 2.5
    text = transcriber.tokenizer.decode([t for t in result.tokens if t < transcriber.tokenizer.eot])
    assert words(text) == words(transcriber.tokenizer.decode([t for t in full.tokens if t < transcriber.tokenizer.eot]))


@pytest.mark.parametrize("options", [DecodeOptions(), DecodeOptions(beam_size=5, beam_pruning=True)])
def test_one_pass_verification_gives_the_same_tokens_in_fewer_passes(transcriber, two_rounds, options, monkeypatch):
    reference, features = two_rounds
    passes = []
    forward = NumpyDecoderSession.forward  # the CPU's session (engine.decoder.session)
    monkeypatch.setattr(
        NumpyDecoderSession,
        "forward",
        lambda self, tokens, **kw: passes.append(tokens.shape) or forward(self, tokens, **kw),
    )
    stepwise = decode_beam(transcriber.model, transcriber.tokenizer, features, [], options, reference=reference)
    stepwise_passes = len(passes)
    passes.clear()
    verified = decode_beam(
        transcriber.model,
        transcriber.tokenizer,
        features,
        [],
        replace(options, verify_reference=True),
        reference=reference,
    )
    assert verified.tokens == stepwise.tokens
    assert verified.beam_widths == stepwise.beam_widths
    assert verified.sum_logprob == pytest.approx(stepwise.sum_logprob, rel=1e-3)
    assert stepwise_passes == len(stepwise.beam_widths)  # prefill + one pass per step but the last
    assert len(passes) <= stepwise_passes - len(reference) // 2
    assert max(shape[1] for shape in passes[1:]) > 5  # a draft went through in one pass


def test_a_text_reference_is_verified_across_segment_ends_in_passes_of_several_tokens(transcriber, monkeypatch):
    """The final pass's reference is text without timestamps: where a segment ends, the timestamp pair and the
    text after it are checked in one pass, and the tokens are greedy's own."""
    features = transcriber.encode(load_audio(DATA / "LJ001-0003.wav")).features
    options = DecodeOptions(verify_reference=True)
    greedy = decode_beam(transcriber.model, transcriber.tokenizer, features, [], options)
    tokenizer = transcriber.tokenizer
    assert sum(t >= tokenizer.timestamp_begin for t in greedy.tokens) >= 4  # two segments or more
    text = tokenizer.decode([t for t in greedy.tokens if t < tokenizer.eot])
    passes = []
    forward = NumpyDecoderSession.forward
    monkeypatch.setattr(
        NumpyDecoderSession,
        "forward",
        lambda self, tokens, **kw: passes.append(tokens.shape) or forward(self, tokens, **kw),
    )
    verified = decode_beam(transcriber.model, tokenizer, features, [], options, reference=transcriber.text_tokens(text))
    assert verified.tokens == greedy.tokens
    sizes = [shape[1] for shape in passes[1:]]  # after the prompt's
    assert sizes[:2] == [1, 1]  # the first timestamp, then the first word, where the reference is found
    assert min(sizes[2:]) > 1  # from there on no step feeds one token alone
    assert max(shape[1] for shape in passes[1:]) <= DRAFT_TOKENS


def test_a_decoding_that_ends_before_its_reference_does_stops_there(transcriber):
    """The end of the audio comes before the end of the reference (a round whose last words the next one drops):
    the step whose best token is the end of the text ends the decoding, with greedy's tokens."""
    tokenizer = transcriber.tokenizer
    clip = load_audio(DATA / "LJ001-0003.wav")
    options = DecodeOptions(verify_reference=True)
    whole = decode_beam(transcriber.model, tokenizer, transcriber.encode(clip).features, [], options)
    features = transcriber.encode(clip[: len(clip) // 2]).features
    greedy = decode_beam(transcriber.model, tokenizer, features, [], options)
    verified = decode_beam(transcriber.model, tokenizer, features, [], options, reference=whole.tokens)
    assert verified.tokens == greedy.tokens
    assert len(verified.tokens) < len(whole.tokens) - 3

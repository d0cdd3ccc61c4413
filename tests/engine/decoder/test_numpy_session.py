"""The numpy decoder session against the MLX one on real clips: same tokens (greedy, beam 5, beam
pruning with verification), logits and recorded attention within a relative tolerance any BLAS kernel meets,
an attention trace that follows beam reorders, word times from the decoding's own attention, and stepping that
hands over between threads."""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import mlx.core as mx
import numpy as np
import pytest
from testdata import DATA
from tolerance import assert_close

from engine.audio.files import load_audio
from engine.decoder.beam_search import extend_beams, iter_decode_beam, run_steps
from engine.decoder.mlx_session import DecoderSession
from engine.decoder.numpy_session import NumpyDecoderSession, NumpyDecoderWeights
from engine.decoder.options import DecodeOptions, make_rules
from engine.encoder.input import Padding
from engine.stream.round import Transcriber
from tools.bench.textgrid import read_textgrid_words
from tools.decoder_bench import word_end_error

CLIPS = ["LJ001-0009.wav", "LJ001-0008.wav", "LJ001-0013.wav", "acoustic_corpus_10s.wav"]


@pytest.fixture(scope="module")
def transcriber(tiny_model):
    return Transcriber(tiny_model, padding=Padding("zeros", 1.0))


@pytest.fixture(scope="module")
def encoded(transcriber):
    return {name: transcriber.encode(load_audio(DATA / name)) for name in CLIPS}


def test_logits_match_the_mlx_session(transcriber, encoded):
    tok, features = transcriber.tokenizer, encoded["LJ001-0009.wav"].features
    tokens = list(tok.sot_sequence) + [tok.timestamp_begin] + tok.encode(" Printing, then, for our purpose")
    reference = DecoderSession(transcriber.model, features)
    expected = np.array(reference.forward(mx.array([tokens])))
    session = NumpyDecoderSession(transcriber.model, features)
    got = np.concatenate([session.forward([tokens[a:b]]) for a, b in ((0, 3), (3, 4), (4, len(tokens)))], axis=1)
    assert got.dtype == np.float32
    assert_close(got, expected)
    positions = list(range(len(tokens)))  # both record the alignment heads' cross-attention alike
    assert_close(
        session.trace.logits(session.trace.path(0), positions),
        reference.trace.logits(reference.trace.path(0), positions),
    )
    picked = NumpyDecoderSession(transcriber.model, features).forward([tokens], positions=[0, len(tokens) - 1])
    assert_close(picked, expected[:, [0, -1]])


def test_weights_read_the_models_arrays_without_writing_them(tiny_model):
    decoder = tiny_model.model.decoder
    weights = NumpyDecoderWeights.from_model(tiny_model.model)
    assert np.shares_memory(weights.positions, np.asarray(decoder.positional_embedding))  # a view, not a copy
    with pytest.raises(ValueError):
        weights.positions[0, 0] = 0.0  # the model's own memory is read-only here
    assert_close(weights.positions, np.array(decoder.positional_embedding))


def test_reorder_keeps_cache_and_attention_with_their_hypotheses(transcriber, encoded):
    model, tok, features = transcriber.model, transcriber.tokenizer, encoded["LJ001-0009.wav"].features
    start = list(tok.sot_sequence)
    rules = make_rules(model, tok, len(start), DecodeOptions(), features.shape[1])
    session = NumpyDecoderSession(model, features)
    logits = session.forward([start])
    beams, sums, reordered = [start], [0.0], 0
    for _ in range(6):
        beams, sums, parents, _ = extend_beams(beams, sums, rules.logprobs(logits[:, -1], beams), 4, tok.eot)
        reordered += parents != list(range(len(parents)))
        session.reorder(parents)
        logits = session.forward([[b[-1]] for b in beams])
    assert reordered >= 2
    positions = list(range(len(beams[0])))
    for row, sequence in enumerate(beams):
        fresh = NumpyDecoderSession(model, features)
        fresh_logits = fresh.forward([sequence])
        assert_close(logits[row, -1], fresh_logits[0, -1])
        traced = session.trace.logits(session.trace.path(row), positions)
        assert_close(traced, fresh.trace.logits(fresh.trace.path(0), positions))


@pytest.mark.parametrize("beam_size", [1, 5])
@pytest.mark.parametrize("name", CLIPS)
def test_same_tokens_as_the_mlx_decoder(transcriber, encoded, name, beam_size):
    features = encoded[name].features
    results = [
        Transcriber(transcriber.loaded, decode=DecodeOptions(beam_size=beam_size, decoder=backend)).decode(
            features, [], audio_steps=encoded[name].audio_steps
        )
        for backend in ("mlx", "numpy")
    ]
    assert results[1].tokens == results[0].tokens and results[0].tokens
    assert results[1].beam_widths == results[0].beam_widths
    assert results[1].sum_logprob == pytest.approx(results[0].sum_logprob, rel=1e-3)
    if not transcriber.degenerate(results[1], encoded[name]):  # a round run to its token budget has no trace
        assert results[1].attention.shape[1] == len(results[1].tokens) + 1
        assert_close(results[1].attention, results[0].attention)  # word times from either decoding alike
    assert len(results[1].token_probs) == len(results[1].tokens) and all(0 < p <= 1 for p in results[1].token_probs)


@pytest.mark.parametrize(
    "options",
    [
        DecodeOptions(verify_reference=True),
        DecodeOptions(beam_size=5, beam_pruning=True, verify_reference=True),
        DecodeOptions(beam_size=5, beam_pruning=True),
    ],
)
def test_pruning_and_verification_give_the_mlx_tokens(transcriber, options):
    clip = load_audio(DATA / "LJ001-0009.wav")
    first = transcriber.encode(clip[: int(6.5 * 16000)]).features
    reference = transcriber.decode(first, []).tokens
    features = transcriber.encode(clip).features
    mlx_result, numpy_result = (
        Transcriber(transcriber.loaded, decode=replace(options, decoder=backend)).decode(features, [], reference)
        for backend in ("mlx", "numpy")
    )
    assert numpy_result.tokens == mlx_result.tokens
    assert numpy_result.beam_widths == mlx_result.beam_widths and 1 in numpy_result.beam_widths


def test_word_times_from_the_decoding_match_forced_alignment(tiny_model):
    audio = load_audio(DATA / "acoustic_corpus_10s.wav")
    grid = [(w.text, w.end) for w in read_textgrid_words(DATA / "acoustic_corpus.TextGrid") if w.end < 9.5]
    errors = {}
    for backend in ("mlx", "numpy"):  # each from the attention its own decoding recorded
        result = Transcriber(tiny_model, decode=DecodeOptions(decoder=backend)).transcribe(audio)
        words = [(w.text, w.end) for w in result.words if w.end < 9.5]
        errors[backend] = np.mean(word_end_error(words, grid))
        assert all(0 < w.probability <= 1 for w in result.words)
    assert errors["numpy"] <= 0.2 and errors["numpy"] == pytest.approx(errors["mlx"], abs=0.01), errors


def test_stepping_hands_over_between_threads(transcriber, encoded):
    enc = encoded["LJ001-0009.wav"]
    options = DecodeOptions(beam_size=5)

    def steps():
        return iter_decode_beam(
            transcriber.model, transcriber.tokenizer, enc.features, [], options, audio_steps=enc.audio_steps
        )

    whole = run_steps(steps())
    handed = steps()
    with ThreadPoolExecutor(1) as other:
        other.submit(lambda: [next(handed) for _ in range(4)]).result()
    resumed = run_steps(handed)
    assert resumed.tokens == whole.tokens and np.array_equal(resumed.attention, whole.attention)

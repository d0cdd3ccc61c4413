"""The fast CPU encoder: the reference encoder's outputs within float32 tolerance, the same transcripts, and faster."""

import copy

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten, tree_map
from testdata import DATA
from tolerance import assert_close

from engine.audio.files import load_audio
from engine.decoder.beam_search import decode_beam
from engine.decoder.options import DecodeOptions
from engine.encoder.fast_encoder import fast_encode
from engine.encoder.input import PAD30, Padding, encoder_mel
from engine.model.whisper_model import VarLenAudioEncoder
from tools.encoder_bench import main as encoder_bench


@pytest.fixture(scope="module")
def speech():
    return load_audio(DATA / "LJ001-0009.wav")  # 7.55 s of real speech


def mel_for(audio: np.ndarray, seconds: float | None, padding: Padding = Padding("none")) -> mx.array:
    clip = audio if seconds is None else audio[: int(seconds * 16000)]
    return encoder_mel(clip, padding)[None]


@pytest.fixture(scope="module")
def padded_features(tiny_model, speech):
    """Reference and fast features of the clip padded to 30 s, Whisper's usual input."""
    encoder = tiny_model.model.encoder
    mel = mel_for(speech, None, PAD30)
    return encoder(mel), fast_encode(encoder, mel)


@pytest.mark.parametrize("seconds", [2.0, None])
def test_outputs_match_the_reference_encoder(tiny_model, speech, seconds):
    encoder = tiny_model.model.encoder
    mel = mel_for(speech, seconds)
    assert_close(fast_encode(encoder, mel), encoder(mel))


def test_padded_to_30_s_matches_and_transcribes_the_same(tiny_model, padded_features):
    reference, fast = padded_features
    assert_close(fast, reference)
    model, tokenizer = tiny_model.model, tiny_model.tokenizer()
    reference_tokens = decode_beam(model, tokenizer, reference, [], DecodeOptions()).tokens
    fast_tokens = decode_beam(model, tokenizer, fast, [], DecodeOptions()).tokens
    assert fast_tokens == reference_tokens
    assert "movable types" in tokenizer.decode([t for t in fast_tokens if t < tokenizer.eot])


def test_as_close_to_float64_as_the_reference(tiny_model, speech):
    encoder = tiny_model.model.encoder
    mel = mel_for(speech, None)
    exact = copy.deepcopy(encoder)
    exact.update(tree_map(lambda a: a.astype(mx.float64), exact.parameters()))
    exact._positional_embedding = encoder._positional_embedding.astype(mx.float64)
    truth = np.array(VarLenAudioEncoder.__call__(exact, mel.astype(mx.float64)))
    reference_error = np.abs(np.array(encoder(mel)) - truth)
    fast_error = np.abs(np.array(fast_encode(encoder, mel)) - truth)
    assert fast_error.mean() <= 1.5 * reference_error.mean(), (fast_error.mean(), reference_error.mean())
    assert fast_error.max() <= 4 * reference_error.max(), (fast_error.max(), reference_error.max())


def test_batch_rows_are_encoded_independently(tiny_model, speech):
    encoder = tiny_model.model.encoder
    first, second = mel_for(speech, 3.0), mel_for(speech[16000:], 3.0)
    both = np.array(fast_encode(encoder, mx.concatenate([first, second])))
    assert_close(both[0], np.array(fast_encode(encoder, first))[0])
    assert_close(both[1], np.array(fast_encode(encoder, second))[0])


def test_in_place_steps_leave_weights_and_input_alone(tiny_model, speech):
    encoder = tiny_model.model.encoder
    mel = mel_for(speech, 4.0)
    mel_before = np.array(mel)
    weights_before = {k: np.array(v) for k, v in tree_flatten(encoder.parameters())}
    first = np.array(fast_encode(encoder, mel))
    assert np.array_equal(np.array(fast_encode(encoder, mel)), first)
    assert np.array_equal(np.array(mel), mel_before)
    assert all(np.array_equal(np.array(v), weights_before[k]) for k, v in tree_flatten(encoder.parameters()))


def test_other_dtypes_take_the_reference_path(tiny_model, speech):
    encoder = tiny_model.model.encoder
    mel16 = mel_for(speech, 2.0).astype(mx.float16)
    assert np.array_equal(np.array(fast_encode(encoder, mel16)), np.array(encoder(mel16)))


def test_encoder_bench_reports_each_part(tiny_model, capsys):
    assert encoder_bench(["--seconds", "1", "--repeats", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    parts = [line.split()[1] for line in lines[2:]]
    assert parts == ["stem", "block", "block", "block", "block", "encoder"]
    assert all(float(line.split()[-1]) < 1e-4 for line in lines[2:])  # max relative diff

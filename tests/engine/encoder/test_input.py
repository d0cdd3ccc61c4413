"""What the encoder sees, and what it costs."""

from dataclasses import replace

import numpy as np
import pytest

from engine.audio.files import SAMPLE_RATE
from engine.encoder.hush_word import hush_choice
from engine.encoder.input import encoder_gflops, encoder_mel


def test_encoder_gflops_of_tiny_en_for_30_s_and_for_2_s(tiny_model):
    dims = tiny_model.dims
    assert (dims.n_audio_state, dims.n_audio_layer, dims.n_mels) == (384, 4, 80)
    # 30 s = 3000 mel frames -> 1500 positions. conv1 2*3000*80*384*3, conv2 2*1500*384^2*3, per layer
    # QKV+out 2*1500*384^2*4, scores+weighted sum 4*1500^2*384, MLP 2*1500*384*1536*2; 4 layers.
    assert encoder_gflops(dims, 3000) == pytest.approx(36.937728)
    # 2 s = 200 frames -> 100 positions: attention no longer dominates.
    expected = (
        2 * 200 * 80 * 384 * 3
        + 2 * 100 * 384**2 * 3
        + 4 * (2 * 100 * 384**2 * 4 + 4 * 100**2 * 384 + 2 * 100 * 384 * 1536 * 2)
    ) / 1e9
    assert encoder_gflops(dims, 200) == pytest.approx(expected) == pytest.approx(1.6023552)


def test_a_short_buffer_gets_silence_before_the_hush_word_up_to_the_minimum(tiny_model):
    hush = hush_choice(tiny_model).padding
    at_least_8 = replace(hush, min_seconds=8.0)
    speech = np.random.default_rng(0).standard_normal(2 * SAMPLE_RATE).astype(np.float32) * 0.1
    mel = np.array(encoder_mel(speech, at_least_8))
    assert mel.shape == (800, 80)  # 2 s of audio, 5.5 s of silence, the 0.5 s word: 8 s of 10 ms frames
    silence = mel[210:740]
    assert np.ptp(silence) < 1e-3  # the floor of the log-mel: nothing but silence between them
    assert np.abs(mel[760:] - silence[0]).max() > 0.5  # the hush word is last
    alone = np.array(encoder_mel(speech, hush))
    assert alone.shape == (250, 80) and np.allclose(alone[:190], mel[:190], atol=1e-4)
    longer = np.concatenate([speech] * 5)  # 10 s: already long enough, nothing added
    assert np.array_equal(np.array(encoder_mel(longer, at_least_8)), np.array(encoder_mel(longer, hush)))

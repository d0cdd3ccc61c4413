"""What the encoder sees, and what it costs."""
import pytest

from engine.encoder.input import encoder_gflops


def test_encoder_gflops_of_tiny_en_for_30_s_and_for_2_s(tiny_model):
    dims = tiny_model.dims
    assert (dims.n_audio_state, dims.n_audio_layer, dims.n_mels) == (384, 4, 80)
    # 30 s = 3000 mel frames -> 1500 positions. conv1 2*3000*80*384*3, conv2 2*1500*384^2*3, per layer
    # QKV+out 2*1500*384^2*4, scores+weighted sum 4*1500^2*384, MLP 2*1500*384*1536*2; 4 layers.
    assert encoder_gflops(dims, 3000) == pytest.approx(36.937728)
    # 2 s = 200 frames -> 100 positions: attention no longer dominates.
    expected = (2 * 200 * 80 * 384 * 3 + 2 * 100 * 384**2 * 3
                + 4 * (2 * 100 * 384**2 * 4 + 4 * 100**2 * 384 + 2 * 100 * 384 * 1536 * 2)) / 1e9
    assert encoder_gflops(dims, 200) == pytest.approx(expected) == pytest.approx(1.6023552)

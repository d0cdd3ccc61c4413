"""The network a config describes: random weights (the GPU checks' stand-in for a model) in the dtype asked for."""

import json

import mlx.core as mx
from mlx.utils import tree_flatten

from engine.model.whisper_model import build_network


def test_a_network_without_weights_is_built_in_the_dtype_asked_for(tiny_model):
    config = json.loads((tiny_model.path / "config.json").read_text())
    network = build_network(config, mx.float16)
    dtypes = {name: p.dtype for name, p in tree_flatten(network.parameters()) if mx.issubdtype(p.dtype, mx.floating)}
    assert len(dtypes) > 50 and set(dtypes.values()) == {mx.float16}
    mel = mx.zeros((1, 200, config["n_mels"]), dtype=mx.float16)
    assert network.encoder(mel).dtype == mx.float16

"""Load a prepared model as mlx-whisper's Whisper, with an encoder that takes any length up to 30 s."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_unflatten
from mlx_whisper import whisper
from mlx_whisper.tokenizer import Tokenizer, get_tokenizer

from engine.errors import ModelError
from engine.model.store import DEFAULT_MODEL, prepare_model, verify_model_dir

log = logging.getLogger(__name__)


class VarLenAudioEncoder(whisper.AudioEncoder):
    """mlx-whisper's AudioEncoder without the 30 s assertion: the sinusoidal
    positional embedding is sliced to the input's length."""

    def __call__(self, x):
        x = nn.gelu(self.conv1(x))
        x = nn.gelu(self.conv2(x))
        n_ctx = x.shape[1]
        if n_ctx > self._positional_embedding.shape[0]:
            raise ValueError(f"audio longer than 30 s ({n_ctx} > {self._positional_embedding.shape[0]} frames)")
        x = x + self._positional_embedding[:n_ctx]
        for block in self.blocks:
            x, _, _ = block(x)
        return self.ln_post(x)


@dataclass
class LoadedModel:
    """A ready model: the network, its tokenizer and where it came from."""

    name: str
    path: Path
    model: whisper.Whisper
    dtype: mx.Dtype

    @property
    def dims(self) -> whisper.ModelDimensions:
        return self.model.dims

    @property
    def multilingual(self) -> bool:
        return self.model.is_multilingual

    def tokenizer(self, language: str | None = None) -> Tokenizer:
        return get_tokenizer(
            self.multilingual,
            num_languages=self.model.num_languages,
            language=(language or "en") if self.multilingual else None,
            task="transcribe",
        )

    @property
    def weights_sha256(self) -> str:
        return json.loads((self.path / "manifest.json").read_text())["sha256"]


def build_network(config: dict, dtype: mx.Dtype, weights: dict[str, mx.array] | None = None) -> whisper.Whisper:
    """The network a model's config.json describes (its alignment heads too), with weights (None: MLX's random
    initial ones), evaluated."""
    config = dict(config)
    heads = config.pop("alignment_heads", None)
    model = whisper.Whisper(whisper.ModelDimensions(**config), dtype)
    model.encoder.__class__ = VarLenAudioEncoder
    if weights is None:
        model.set_dtype(dtype)  # MLX initialises every layer in float32
    else:
        model.update(tree_unflatten(list(weights.items())))
    if heads:
        model.set_alignment_heads(np.array(heads, dtype=np.int64))
    # the positional embedding and causal mask are not parameters: evaluate them here so that
    # other threads (pipeline executors, the app's workers) never see them lazy
    mx.eval(model.parameters(), model.encoder._positional_embedding, model.decoder._mask)
    return model


def load_model_dir(path: Path, name: str) -> LoadedModel:
    """Build the network from a verified model directory."""
    verify_model_dir(path)
    config = json.loads((path / "config.json").read_text())
    dtype = mx.float16 if json.loads((path / "manifest.json").read_text())["dtype"] == "float16" else mx.float32
    try:
        model = build_network(config, dtype, mx.load(str(path / "weights.safetensors")))
    except (ValueError, TypeError, RuntimeError) as exc:
        raise ModelError(
            f"model {name!r} at {path} does not load ({exc}); remove it with `whisperflow models remove {name}`"
        ) from exc
    return LoadedModel(name, path, model, dtype)


def load_model(name: str = DEFAULT_MODEL, progress=None) -> LoadedModel:
    """Prepare (convert or download once) and load a model by name."""
    started = time.perf_counter()
    loaded = load_model_dir(prepare_model(name, progress), name)
    log.info("model %s loaded from %s in %.1f s", name, loaded.path, time.perf_counter() - started)
    return loaded

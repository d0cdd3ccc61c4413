"""Convert CTranslate2 Whisper weights (model.bin) into mlx-whisper's layout.

The reader follows CTranslate2's binary spec (version 6): a header, then named
variables with shape, dtype and raw bytes, then aliases. Fused projections are split
back into Whisper's query/key/value.
"""

from __future__ import annotations

import io
import json
import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from engine.errors import ModelError

_DTYPES = (np.float32, np.int8, np.int16, np.int32, np.float16, None)  # bfloat16 unsupported


class _ConcatReader(io.RawIOBase):
    """Read several files as one stream (model.bin shipped in parts)."""

    def __init__(self, paths: Iterable[Path]):
        self._files = [open(p, "rb") for p in paths]
        self._index = 0

    def readinto(self, buffer) -> int:
        while self._index < len(self._files):
            n = self._files[self._index].readinto(buffer)
            if n:
                return n
            self._index += 1
        return 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        for f in self._files:
            f.close()
        super().close()


def _read_exact(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ModelError("the CTranslate2 model file ends early: it is truncated or corrupt")
    return data


def _read_string(f: BinaryIO) -> str:
    (length,) = struct.unpack("<H", _read_exact(f, 2))
    return _read_exact(f, length)[:-1].decode("utf-8")


def read_ct2_variables(parts: list[Path]) -> dict[str, np.ndarray]:
    """All variables of a CTranslate2 model.bin (possibly split into parts), by name."""
    with io.BufferedReader(_ConcatReader(parts), buffer_size=1 << 20) as f:
        (version,) = struct.unpack("<I", _read_exact(f, 4))
        if version < 5 or version > 6:
            raise ModelError(f"unsupported CTranslate2 model version {version}")
        spec = _read_string(f)
        if spec != "WhisperSpec":
            raise ModelError(f"not a Whisper model (CTranslate2 spec {spec!r})")
        _revision, count = struct.unpack("<II", _read_exact(f, 8))
        variables: dict[str, np.ndarray] = {}
        for _ in range(count):
            name = _read_string(f)
            (rank,) = struct.unpack("<B", _read_exact(f, 1))
            shape = struct.unpack(f"<{rank}I", _read_exact(f, 4 * rank)) if rank else ()
            type_id, nbytes = struct.unpack("<BI", _read_exact(f, 5))
            if type_id >= len(_DTYPES) or _DTYPES[type_id] is None:
                raise ModelError(f"unsupported weight type {type_id} in {name}")
            data = np.frombuffer(_read_exact(f, nbytes), dtype=_DTYPES[type_id])
            variables[name] = data.reshape(shape)
        (aliases,) = struct.unpack("<I", _read_exact(f, 4))
        for _ in range(aliases):
            alias, target = _read_string(f), _read_string(f)
            variables[alias] = variables[target]
        if f.read(1):
            raise ModelError("the CTranslate2 model file has trailing data: it is corrupt")
    return variables


def _split_fused(weight: np.ndarray, parts: int) -> list[np.ndarray]:
    return np.split(weight, parts, axis=0)


def _attention(v: dict, src: str, dst: str, cross: bool, out: dict) -> None:
    if cross:
        out[f"{dst}.query.weight"] = v[f"{src}/linear_0/weight"]
        out[f"{dst}.query.bias"] = v[f"{src}/linear_0/bias"]
        kw, vw = _split_fused(v[f"{src}/linear_1/weight"], 2)
        _kb, vb = _split_fused(v[f"{src}/linear_1/bias"], 2)
        out_proj = "linear_2"
    else:
        qw, kw, vw = _split_fused(v[f"{src}/linear_0/weight"], 3)
        qb, _kb, vb = _split_fused(v[f"{src}/linear_0/bias"], 3)
        out[f"{dst}.query.weight"], out[f"{dst}.query.bias"] = qw, qb
        out_proj = "linear_1"
    out[f"{dst}.key.weight"] = kw
    out[f"{dst}.value.weight"], out[f"{dst}.value.bias"] = vw, vb
    out[f"{dst}.out.weight"] = v[f"{src}/{out_proj}/weight"]
    out[f"{dst}.out.bias"] = v[f"{src}/{out_proj}/bias"]


def _layer_norm(v: dict, src: str, dst: str, out: dict) -> None:
    out[f"{dst}.weight"] = v[f"{src}/gamma"]
    out[f"{dst}.bias"] = v[f"{src}/beta"]


def _block(v: dict, src: str, dst: str, cross: bool, out: dict) -> None:
    _attention(v, f"{src}/self_attention", f"{dst}.attn", False, out)
    _layer_norm(v, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln", out)
    if cross:
        _attention(v, f"{src}/attention", f"{dst}.cross_attn", True, out)
        _layer_norm(v, f"{src}/attention/layer_norm", f"{dst}.cross_attn_ln", out)
    out[f"{dst}.mlp1.weight"] = v[f"{src}/ffn/linear_0/weight"]
    out[f"{dst}.mlp1.bias"] = v[f"{src}/ffn/linear_0/bias"]
    out[f"{dst}.mlp2.weight"] = v[f"{src}/ffn/linear_1/weight"]
    out[f"{dst}.mlp2.bias"] = v[f"{src}/ffn/linear_1/bias"]
    _layer_norm(v, f"{src}/ffn/layer_norm", f"{dst}.mlp_ln", out)


def _count_layers(v: dict, prefix: str) -> int:
    return len({k.split("/")[1] for k in v if re.match(rf"{prefix}/layer_\d+/", k)})


def ct2_to_mlx(model_dir: Path, parts: list[Path]) -> tuple[dict[str, np.ndarray], dict]:
    """Weights in mlx-whisper's names and layout, and its config (with alignment heads)."""
    try:
        ct2_config = json.loads((model_dir / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise ModelError(f"the model's config.json is missing or unreadable: {exc}") from exc
    v = read_ct2_variables(parts)
    try:
        n_audio_layer = _count_layers(v, "encoder")
        n_text_layer = _count_layers(v, "decoder")
        out: dict[str, np.ndarray] = {}
        for name in ("conv1", "conv2"):
            out[f"encoder.{name}.weight"] = v[f"encoder/{name}/weight"].transpose(0, 2, 1)
            out[f"encoder.{name}.bias"] = v[f"encoder/{name}/bias"]
        for i in range(n_audio_layer):
            _block(v, f"encoder/layer_{i}", f"encoder.blocks.{i}", False, out)
        _layer_norm(v, "encoder/layer_norm", "encoder.ln_post", out)
        out["decoder.token_embedding.weight"] = v["decoder/embeddings/weight"]
        out["decoder.positional_embedding"] = v["decoder/position_encodings/encodings"]
        for i in range(n_text_layer):
            _block(v, f"decoder/layer_{i}", f"decoder.blocks.{i}", True, out)
        _layer_norm(v, "decoder/layer_norm", "decoder.ln", out)
        n_vocab, n_text_state = v["decoder/embeddings/weight"].shape
        config = {
            "n_mels": int(v["encoder/conv1/weight"].shape[1]),
            "n_audio_ctx": int(v["encoder/position_encodings/encodings"].shape[0]),
            "n_audio_state": int(v["encoder/conv1/weight"].shape[0]),
            "n_audio_head": int(v["encoder/num_heads"]),
            "n_audio_layer": n_audio_layer,
            "n_vocab": int(n_vocab),
            "n_text_ctx": int(v["decoder/position_encodings/encodings"].shape[0]),
            "n_text_state": int(n_text_state),
            "n_text_head": int(v["decoder/num_heads"]),
            "n_text_layer": n_text_layer,
            "alignment_heads": [list(map(int, h)) for h in ct2_config.get("alignment_heads", [])],
        }
    except KeyError as exc:
        raise ModelError(f"the CTranslate2 model is missing weight {exc}: it is incomplete") from exc
    return out, config

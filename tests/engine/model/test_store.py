"""Model store: conversion from CTranslate2, checksums, and partial or corrupt models."""

import shutil

import pytest

from engine.errors import ModelError
from engine.model.ct2_convert import ct2_to_mlx
from engine.model.store import PACKAGED, prepare_model, verify_model_dir
from engine.model.whisper_model import load_model_dir

CT2_DIR, CT2_PARTS = PACKAGED["tiny.en"].locate()


def test_truncated_ct2_model_file_is_refused(tmp_path):
    shutil.copy(CT2_DIR / "config.json", tmp_path / "config.json")
    data = CT2_PARTS[0].read_bytes()
    (tmp_path / "model.bin").write_bytes(data[: len(data) // 3])
    with pytest.raises(ModelError, match="truncated or corrupt"):
        ct2_to_mlx(tmp_path, [tmp_path / "model.bin"])


def test_converted_weights_have_whisper_layout_and_alignment_heads():
    weights, config = ct2_to_mlx(CT2_DIR, CT2_PARTS)
    assert config["n_audio_layer"] == 4 and config["n_text_layer"] == 4 and config["n_vocab"] == 51864
    assert weights["encoder.conv1.weight"].shape == (384, 3, 80)  # MLX conv layout (out, kernel, in)
    assert weights["decoder.blocks.0.attn.query.weight"].shape == (384, 384)
    assert "decoder.blocks.0.attn.key.bias" not in weights  # Whisper's key projection has no bias
    assert config["alignment_heads"][0] == [1, 0]


def test_corrupt_cache_is_detected_and_rebuilt(isolated_dirs):
    path = prepare_model("tiny.en")
    weights = path / "weights.safetensors"
    blob = bytearray(weights.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    weights.write_bytes(bytes(blob))
    with pytest.raises(ModelError, match="checksum"):
        verify_model_dir(path)
    with pytest.raises(ModelError):
        load_model_dir(path, "tiny.en")
    rebuilt = prepare_model("tiny.en")
    verify_model_dir(rebuilt)


def test_partial_cache_without_manifest_is_rebuilt(isolated_dirs):
    path = prepare_model("tiny.en")
    (path / "manifest.json").unlink()
    with pytest.raises(ModelError, match="incomplete"):
        verify_model_dir(path)
    assert (prepare_model("tiny.en") / "manifest.json").exists()


def test_unknown_model_name_says_what_exists():
    with pytest.raises(ModelError, match="tiny.en"):
        prepare_model("huge.xx")

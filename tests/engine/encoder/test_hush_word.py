"""The shipped hush word: it loads for tiny.en, only with the weights it was trained on, and it stops
Whisper at the end of the speech where unpadded audio makes it hallucinate."""

import json
import shutil
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest
from testdata import DATA

from engine.audio.files import load_audio
from engine.encoder.hush_word import choose_hush, hush_choice, hush_dir
from engine.encoder.input import PAD30, Padding
from engine.errors import ModelError
from engine.scoring.wer import corpus_wer
from engine.stream.round import Transcriber
from tools.padding_study import words_after_end

# LJ Speech LJ001-0013 (public domain): unpadded, tiny.en repeats "Then in the same operations with ugly ones."
HALLUCINATION_CLIP = DATA / "LJ001-0013.wav"
HALLUCINATION_REFERENCE = "than in the same operations with ugly ones."


def test_shipped_hush_word_loads_for_its_model(tiny_model):
    word = choose_hush(tiny_model)[0]
    assert word is not None
    assert word.metadata["model"] == "tiny.en"
    assert word.metadata["weights_sha256"] == tiny_model.weights_sha256
    assert word.samples.shape == (8000,) and word.samples.dtype == np.float32
    assert np.abs(word.samples).max() <= 1.0 and np.abs(word.samples).max() > 0.0
    assert word.metadata["steps"] > 0 and word.metadata["validation_wer"] >= 0.0 and word.metadata["averaged_epochs"]
    padding = hush_choice(tiny_model).padding
    assert padding.kind == "hush" and padding.seconds == 0.5 and np.array_equal(padding.samples, word.samples)


def test_hush_word_loads_for_the_float16_model_a_gpu_runs(isolated_dirs):
    """A GPU (Metal or CUDA) converts tiny.en to float16: other bytes, the same weights, the same hush word."""
    from engine.model.store import prepare_model
    from engine.model.whisper_model import load_model_dir

    half = load_model_dir(prepare_model("tiny.en", dtype="float16"), "tiny.en")
    assert half.dtype == mx.float16
    word = choose_hush(half)[0]
    assert word is not None and word.metadata["weights_sha256_float16"] == half.weights_sha256
    assert hush_choice(half).padding.kind == "hush"


def _copy_hush(tmp_path: Path, **changes) -> Path:
    for suffix in (".npz", ".json"):
        shutil.copy(hush_dir() / f"tiny.en{suffix}", tmp_path / f"tiny.en{suffix}")
    meta = json.loads((tmp_path / "tiny.en.json").read_text())
    meta.update(changes)
    (tmp_path / "tiny.en.json").write_text(json.dumps(meta))
    return tmp_path


def test_hush_word_for_other_weights_falls_back_to_padding(tiny_model, tmp_path):
    directory = _copy_hush(tmp_path, weights_sha256="0" * 64)
    assert choose_hush(tiny_model, directory)[0] is None
    choice = hush_choice(tiny_model, directory)
    assert choice.padding == PAD30
    assert "other weights" in choice.note and "30 s" in choice.note


def test_model_without_hush_word_pads_and_says_so(tiny_model, tmp_path):
    choice = hush_choice(tiny_model, tmp_path)
    assert choice.padding == PAD30 and choice.note.startswith("no hush word for tiny.en")


def test_damaged_hush_word_is_a_clear_error(tiny_model, tmp_path):
    directory = _copy_hush(tmp_path)
    (directory / "tiny.en.npz").write_bytes(b"not a zip file")
    with pytest.raises(ModelError, match="unreadable"):
        choose_hush(tiny_model, directory)[0]
    np.savez(directory / "tiny.en.npz", samples=np.zeros(100, np.float32))
    with pytest.raises(ModelError, match="damaged"):
        choose_hush(tiny_model, directory)[0]


def test_hush_word_removes_end_of_audio_hallucination(tiny_model):
    audio = load_audio(HALLUCINATION_CLIP)

    def text(padding: Padding) -> str:
        """What one round decodes, without the padded retry that transcribe() does for a runaway round."""
        tr = Transcriber(tiny_model, padding=padding, word_timestamps=False)
        encoded = tr.encode(audio)
        result = tr.decode(encoded.features, [], None, encoded.audio_steps)
        return tr.tokenizer.decode([t for t in result.tokens if t < tr.tokenizer.eot]).strip()

    unpadded, hushed = text(Padding("none")), text(hush_choice(tiny_model).padding)
    assert len(unpadded.split()) > 1.5 * len(HALLUCINATION_REFERENCE.split()), unpadded  # runs on past the end
    assert words_after_end(HALLUCINATION_REFERENCE, hushed) == 0, hushed
    assert corpus_wer([HALLUCINATION_REFERENCE], [hushed]) <= 0.15, hushed
    retried = Transcriber(tiny_model, padding=Padding("none"), word_timestamps=False).transcribe(audio)
    assert words_after_end(HALLUCINATION_REFERENCE, " ".join(s.text for s in retried.segments)) == 0  # redone padded

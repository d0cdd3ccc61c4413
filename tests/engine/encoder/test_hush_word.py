"""The shipped hush word: it loads for tiny.en, only with the weights it was trained on, and it stops
Whisper at the end of the speech where unpadded audio makes it hallucinate; plus the training pieces."""
import json
import shutil
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from engine.stream.round import Transcriber
from engine.audio.files import load_audio
from engine.encoder.input import PAD30, Padding
from engine.errors import ModelError
from engine.encoder.hush_word import hush_choice, hush_dir, hush_padding, load_hush_word
from tools.padding_study import word_error_rate, words_after_end
from hushwords import train
from tools.hushword_training.data import reference_target, speech_end
from testdata import DATA

# LJ Speech LJ001-0013 (public domain): unpadded, tiny.en repeats "Then in the same operations with ugly ones."
HALLUCINATION_CLIP = DATA / "LJ001-0013.wav"
HALLUCINATION_REFERENCE = "than in the same operations with ugly ones."


def test_shipped_hush_word_loads_for_its_model(tiny_model):
    word = load_hush_word(tiny_model)
    assert word is not None
    assert word.metadata["model"] == "tiny.en"
    assert word.metadata["weights_sha256"] == tiny_model.weights_sha256
    assert word.samples.shape == (8000,) and word.samples.dtype == np.float32
    assert np.abs(word.samples).max() <= 1.0 and np.abs(word.samples).max() > 0.0
    assert word.metadata["steps"] > 0 and word.metadata["validation_wer"] >= 0.0 and word.metadata["averaged_epochs"]
    padding = hush_padding(tiny_model)
    assert padding.kind == "hush" and padding.seconds == 0.5 and np.array_equal(padding.samples, word.samples)


def _copy_hush(tmp_path: Path, **changes) -> Path:
    for suffix in (".npz", ".json"):
        shutil.copy(hush_dir() / f"tiny.en{suffix}", tmp_path / f"tiny.en{suffix}")
    meta = json.loads((tmp_path / "tiny.en.json").read_text())
    meta.update(changes)
    (tmp_path / "tiny.en.json").write_text(json.dumps(meta))
    return tmp_path


def test_hush_word_for_other_weights_falls_back_to_padding(tiny_model, tmp_path):
    directory = _copy_hush(tmp_path, weights_sha256="0" * 64)
    assert load_hush_word(tiny_model, directory) is None
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
        load_hush_word(tiny_model, directory)
    np.savez(directory / "tiny.en.npz", samples=np.zeros(100, np.float32))
    with pytest.raises(ModelError, match="damaged"):
        load_hush_word(tiny_model, directory)


def test_hush_word_removes_end_of_audio_hallucination(tiny_model):
    audio = load_audio(HALLUCINATION_CLIP)

    def text(padding: Padding) -> str:
        """What one round decodes, without the padded retry that transcribe() does for a runaway round."""
        tr = Transcriber(tiny_model, padding=padding, word_timestamps=False)
        encoded = tr.encode(audio)
        result = tr.decode(encoded.features, [], None, encoded.audio_steps)
        return tr.tokenizer.decode([t for t in result.tokens if t < tr.tokenizer.eot]).strip()

    unpadded, hushed = text(Padding("none")), text(hush_padding(tiny_model))
    assert len(unpadded.split()) > 1.5 * len(HALLUCINATION_REFERENCE.split()), unpadded  # runs on past the end
    assert words_after_end(HALLUCINATION_REFERENCE, hushed) == 0, hushed
    assert word_error_rate([HALLUCINATION_REFERENCE], [hushed]) <= 0.15, hushed
    retried = Transcriber(tiny_model, padding=Padding("none"), word_timestamps=False).transcribe(audio)
    assert words_after_end(HALLUCINATION_REFERENCE, " ".join(s.text for s in retried.segments)) == 0  # redone padded


def test_training_step_lowers_the_loss(tiny_model):
    audio = load_audio(DATA / "LJ001-0008.wav")
    target = reference_target(tiny_model.tokenizer(), "has never been surpassed.", audio)
    loss = train.make_loss(tiny_model)
    state = train.State(np.random.default_rng(0).standard_normal(8000).astype(np.float32) * 0.01,
                        np.zeros(8000), np.zeros(8000))
    args = (mx.array(audio), mx.array(target))
    before, grad = mx.value_and_grad(loss)(mx.array(state.hush), *args)
    grad = np.array(grad, np.float64)
    assert np.isfinite(grad).all() and np.abs(grad).max() > 0
    for _ in range(3):
        value, grad = mx.value_and_grad(loss)(mx.array(state.hush), *args)
        train.adam_step(state, np.array(grad, np.float64), lr=2e-3)
    assert loss(mx.array(state.hush), *args).item() < before.item()


def test_checkpoint_resumes_only_the_same_run(tmp_path):
    config = train.Config("tiny.en", "ab" * 32)
    state = train.State(np.full(8000, 0.1, np.float32), np.ones(8000), np.ones(8000), 7, 1, 25,
                        [np.zeros(8000, np.float32)], [0.5], [0.6])
    path = tmp_path / "ckpt.npz"
    train.save_checkpoint(path, config, state)
    again = train.load_checkpoint(path, train.Config("tiny.en", "ab" * 32, epochs=9))
    assert (again.step, again.epoch, again.index) == (7, 1, 25)
    assert np.array_equal(again.hush, state.hush) and again.epoch_losses == [0.5]
    assert train.load_checkpoint(path, train.Config("tiny.en", "ab" * 32, lr=0.5)) is None


def test_target_is_one_timestamped_segment_ending_at_the_speech(tiny_model):
    tokenizer = tiny_model.tokenizer()
    audio = np.concatenate([np.zeros(8000), 0.3 * np.sin(np.arange(16000) / 5.0), np.zeros(16000)]).astype(np.float32)
    assert speech_end(audio) == pytest.approx(1.5, abs=0.02)
    target = reference_target(tokenizer, "Hello.", audio)
    ts = tokenizer.timestamp_begin
    assert target[: len(tokenizer.sot_sequence)] == list(tokenizer.sot_sequence)
    assert target[len(tokenizer.sot_sequence)] == ts and target[-2] == ts + 75 and target[-1] == tokenizer.eot


def test_words_after_end_counts_only_trailing_insertions():
    assert words_after_end("he was not an ill disposed young man", "He was not an ill-disposed young man. The poor wretch!") == 3
    assert words_after_end("a new day", "A new day.") == 0
    assert words_after_end("a new day", "so a new day") == 0

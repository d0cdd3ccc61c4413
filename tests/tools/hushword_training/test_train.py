"""Hush-word training pieces: the loss, Adam steps, checkpoints, targets; and the padding study's end-of-audio count."""

import mlx.core as mx
import numpy as np
import pytest
from testdata import DATA

from engine.audio.files import load_audio
from tools.hushword_training import train
from tools.hushword_training.data import reference_target, speech_end
from tools.padding_study import words_after_end


def test_training_step_lowers_the_loss(tiny_model):
    audio = load_audio(DATA / "LJ001-0008.wav")
    target = reference_target(tiny_model.tokenizer(), "has never been surpassed.", audio)
    loss = train.make_loss(tiny_model)
    state = train.State(
        np.random.default_rng(0).standard_normal(8000).astype(np.float32) * 0.01, np.zeros(8000), np.zeros(8000)
    )
    args = (mx.array(audio), mx.array(target), len(tiny_model.tokenizer().sot_sequence))
    before, grad = mx.value_and_grad(loss)(mx.array(state.hush), *args)
    grad = np.array(grad, np.float64)
    assert np.isfinite(grad).all() and np.abs(grad).max() > 0
    for _ in range(3):
        value, grad = mx.value_and_grad(loss)(mx.array(state.hush), *args)
        train.adam_step(state, np.array(grad, np.float64), lr=2e-3)
    assert loss(mx.array(state.hush), *args).item() < before.item()


def test_checkpoint_resumes_only_the_same_run(tmp_path):
    config = train.Config("tiny.en", "ab" * 32)
    state = train.State(
        np.full(8000, 0.1, np.float32),
        np.ones(8000),
        np.ones(8000),
        7,
        1,
        25,
        [np.zeros(8000, np.float32)],
        [0.5],
        [0.6],
    )
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
    assert (
        words_after_end(
            "he was not an ill disposed young man", "He was not an ill-disposed young man. The poor wretch!"
        )
        == 3
    )
    assert words_after_end("a new day", "A new day.") == 0
    assert words_after_end("a new day", "so a new day") == 0

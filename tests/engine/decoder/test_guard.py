"""The guard (AlignAtt's rule): a round whose audio ends mid-word stops before that word, padded or hushed,
with beam search and with one-pass verification of the previous round's text, in either decoder session (numpy
on the CPU, MLX on a GPU); the peek spells the word it stopped before, for display, when the next word opens
after it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.decoder.options import DecodeOptions
from engine.encoder.hush_word import hush_choice
from engine.encoder.input import PAD30
from engine.stream.round import Transcriber

GUARD_FRAMES = 8


@pytest.fixture(scope="module")
def clip():
    return load_audio(DATA / "LJ001-0009.wav")  # "Printing, then, for our purpose, may be considered as the art
    #                                             of making books by means of movable types."


@pytest.fixture(scope="module")
def words(tiny_model, clip):
    """The whole clip's words with their times."""
    return Transcriber(tiny_model).transcribe(clip).words


def _decode(tiny_model, audio, padding, options: DecodeOptions, reference=None):
    transcriber = Transcriber(tiny_model, padding=padding, decode=options)
    encoded = transcriber.encode(audio)
    result = transcriber.decode(encoded.features, [], reference, audio_steps=encoded.audio_steps)
    text = transcriber.tokenizer.decode([t for t in result.tokens if t < transcriber.tokenizer.eot])
    return result, [w.strip(".,").lower() for w in text.split()]


@pytest.mark.parametrize("padding", ["pad30", "hush"])
@pytest.mark.parametrize("beam_size", [1, 5])
@pytest.mark.parametrize("decoder", ["numpy", "mlx"])
def test_the_guard_ends_a_round_whose_audio_ends_mid_word(tiny_model, clip, words, padding, beam_size, decoder):
    making = next(w for w in words if "making" in w.text)
    cut = clip[: int((making.start + making.end) / 2 * SAMPLE_RATE)]  # "… the art of mak"
    pad = PAD30 if padding == "pad30" else hush_choice(tiny_model).padding
    assert pad.kind == padding
    unguarded, said = _decode(tiny_model, cut, pad, DecodeOptions(beam_size=beam_size, decoder=decoder))
    guarded, kept = _decode(
        tiny_model, cut, pad, DecodeOptions(beam_size=beam_size, guard_frames=GUARD_FRAMES, decoder=decoder)
    )
    assert not unguarded.guarded and guarded.guarded
    assert "making" in " ".join(said)  # without the guard the model guesses the word it heard half of
    assert kept and "making" not in kept and "mak" not in " ".join(kept)
    assert kept == said[: len(kept)]  # what the guarded round says is what the round said, up to the cut
    assert "art" in kept  # and it keeps the words before the cut


@pytest.mark.parametrize("beam_size", [1, 5])
@pytest.mark.parametrize("decoder", ["numpy", "mlx"])
def test_the_peek_spells_the_word_the_guard_stopped_before_and_changes_no_token(
    tiny_model, clip, words, beam_size, decoder
):
    by = next(w for w in words if w.text.strip() == "by")
    cut = clip[: int(by.end * SAMPLE_RATE)]  # "… the art of making books by"
    hush = hush_choice(tiny_model).padding
    options = DecodeOptions(beam_size=beam_size, guard_frames=GUARD_FRAMES, decoder=decoder)
    guarded, kept = _decode(tiny_model, cut, hush, options)
    peeked, _ = _decode(tiny_model, cut, hush, replace(options, peek_tokens=3))
    assert guarded.guarded and not guarded.peek and kept[-1] == "books"  # the guard stopped before "by"
    assert peeked.tokens == guarded.tokens and peeked.token_probs == guarded.token_probs  # display only
    assert tiny_model.tokenizer().decode(peeked.peek) == " by"
    assert 0.0 < peeked.peek_prob <= 1.0


def test_a_word_the_audio_cuts_off_is_not_peeked(tiny_model, clip, words):
    """Cut inside "making", the model spells a word and then ends the text: no word opens after it, so it may be
    the start of a longer word, and nothing is peeked."""
    making = next(w for w in words if "making" in w.text)
    cut = clip[: int((making.start + making.end) / 2 * SAMPLE_RATE)]
    options = DecodeOptions(beam_size=5, guard_frames=GUARD_FRAMES, peek_tokens=3)
    result, _ = _decode(tiny_model, cut, hush_choice(tiny_model).padding, options)
    assert result.guarded and result.peek == [] and result.peek_prob == 0.0


def test_verified_tokens_are_guarded_too(tiny_model, clip, words):
    """With the previous round's (whole clip's) tokens as the draft, one-pass verification must not carry
    the round past the end of its audio."""
    full = Transcriber(tiny_model)
    encoded = full.encode(clip)
    reference = full.decode(encoded.features, [], audio_steps=encoded.audio_steps).tokens
    making = next(w for w in words if "making" in w.text)
    cut = clip[: int((making.start + making.end) / 2 * SAMPLE_RATE)]
    options = DecodeOptions(beam_size=5, beam_pruning=True, verify_reference=True, guard_frames=GUARD_FRAMES)
    result, kept = _decode(tiny_model, cut, PAD30, options, reference)
    assert result.guarded and "making" not in kept and "books" not in kept and "art" in kept


def test_the_loop_stop_ends_a_round_after_the_first_copy(tiny_model):
    """Unpadded, tiny.en says LJ001-0008 ("has never been surpassed") over and over; with the loop stop the
    round ends after the first copy, guarded, and is no runaway."""
    from mlx_whisper.decoding import compression_ratio

    from engine.encoder.input import Padding

    audio = load_audio(DATA / "LJ001-0008.wav")
    looping, said = _decode(tiny_model, audio, Padding("none"), DecodeOptions(beam_size=5))
    assert compression_ratio(" ".join(said)) > 2.4 and not looping.guarded
    stopped, kept = _decode(tiny_model, audio, Padding("none"), DecodeOptions(beam_size=5, loop_tokens=8))
    assert stopped.guarded and kept == ["has", "never", "been", "surpassed"]
    assert len(stopped.token_probs) == len(stopped.tokens)


def test_loop_start_finds_a_back_to_back_repeat_of_enough_tokens():
    from engine.decoder.beam_search import loop_start

    ts = 1000
    assert loop_start([1, 2, 3, 4, 5, 1, 2, 3, 4, 5], ts, 8) == 5
    assert loop_start([1, ts + 50, 2, 3, 4, 5, ts + 90, ts + 90, 2, 3, 4, 5], ts, 8) == 8  # timestamps aside
    assert loop_start([9, 7, 7, 7, 7, 7, 7, 7, 7], ts, 8) == 2  # one token eight times
    assert loop_start([1, 2, 3, 1, 2, 3], ts, 8) is None  # too short to be sure
    assert loop_start([1, 2, 3, 4, 5, 6, 7, 8, 9], ts, 8) is None

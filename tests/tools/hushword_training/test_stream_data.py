"""Stream-shaped hush-word examples: joined utterances, buffers cut from them, truncated targets."""

import numpy as np
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.words import Word
from engine.stream.round import Segment
from tools.hushword_training import stream_data


def _utterances():
    return [
        (np.full(int(s * SAMPLE_RATE), 0.1, np.float32), text)
        for s, text in [(2.0, "One two."), (3.0, "Three four five."), (1.5, "Six."), (4.0, "Seven eight nine ten.")]
    ]


def test_buffers_are_one_to_twenty_seconds_with_the_earlier_text_as_prompt():
    rng = np.random.default_rng(0)
    joined = stream_data.join(_utterances() * 6, rng)
    cuts = stream_data.cut(joined, 50, rng)
    for c in cuts:
        assert stream_data.BUFFER_S[0] * SAMPLE_RATE - 1 <= c.end - c.start <= stream_data.BUFFER_S[1] * SAMPLE_RATE
        before = " ".join(t for a, b, t in joined.spans if b <= c.start)
        assert before.endswith(c.prompt) and len(c.prompt) <= stream_data.PROMPT_CHARS
    starts = {a for a, _, _ in joined.spans}
    assert any(c.start not in starts for c in cuts)  # not every buffer starts at an utterance


def test_target_stops_at_the_last_word_that_ends_before_the_cut(tiny_model):
    tokenizer = tiny_model.tokenizer()
    segments = [
        Segment(0.0, 2.0, " One two.", [], [Word(" One", 0.1, 0.5), Word(" two.", 0.6, 1.9)]),
        Segment(
            2.4,
            5.0,
            " Three four five.",
            [],
            [Word(" Three", 2.4, 3.0), Word(" four", 3.1, 3.9), Word(" five.", 4.0, 4.95)],
        ),
    ]
    ts = tokenizer.timestamp_begin
    target = stream_data.truncated_target(tokenizer, segments, duration=4.0)
    assert target == [
        ts,
        *tokenizer.encode(" One two."),
        ts + 100,
        ts + 120,
        *tokenizer.encode(" Three four"),
        ts + 195,
    ]
    assert stream_data.truncated_target(tokenizer, segments, duration=0.3) == [ts]


def test_real_buffers_are_labelled_by_the_padded_model(tiny_model, tmp_path):
    clip = load_audio(DATA / "LJ001-0008.wav")
    utterances = [
        (clip, "has never been surpassed."),
        (clip[:SAMPLE_RATE], "has never"),
        (clip, "has never been surpassed."),
    ]
    examples = stream_data.stream_examples(
        tiny_model, utterances, 3, 1, tmp_path / "labels.json", "test", progress=lambda m: None
    )
    tokenizer = tiny_model.tokenizer()
    assert (tmp_path / "labels.json").exists()
    for ex in examples:
        assert ex.target[ex.context - len(tokenizer.sot_sequence) : ex.context] == list(tokenizer.sot_sequence)
        assert ex.target[ex.context] >= tokenizer.timestamp_begin and ex.target[-1] == tokenizer.eot
        ends = [t for t in ex.target[ex.context :] if t >= tokenizer.timestamp_begin]
        assert (ends[-1] - tokenizer.timestamp_begin) * 0.02 <= ex.clip.duration
    assert any(
        "surpassed" in tokenizer.decode([t for t in ex.target[ex.context :] if t < tokenizer.eot])
        or "never" in tokenizer.decode([t for t in ex.target[ex.context :] if t < tokenizer.eot])
        for ex in examples
    )

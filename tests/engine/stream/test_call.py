"""A call: two file-paced sides through one model; each word under its side's label, echo guarded or cancelled, a
failed side."""

import numpy as np
import pytest
import soundfile as sf
from testdata import DATA

from engine.audio.echo_canceller import EchoCanceller
from engine.audio.files import SAMPLE_RATE
from engine.audio.sources import FileSource
from engine.errors import DeviceError
from engine.session.final_text import SideTexts
from engine.stream.call import CallSide, run_call
from engine.stream.config import StreamConfig, build_processor
from engine.stream.echo_guard import EchoGuard
from tools.call.fixture import Part, build_call, write_call

PARTS = [
    Part(  # the clip's first 5.1 s, its words up to "relief": the rest of the sentence added 4.6 s to every call
        "them",
        "LJ001-0003.wav",
        0.0,
        5.1,
        text="For although the Chinese took impressions from wood blocks engraved in relief",
    ),
    Part("you", "acoustic_corpus_10s.wav", 1.0, 3.72, text="this is the acoustic corpus i'm talking pretty fast here"),
    Part("them", "LJ001-0008.wav", text="has never been surpassed."),
]
THEIRS = {"chinese", "impressions", "blocks", "relief", "surpassed"}
YOURS = {"acoustic", "corpus", "talking", "pretty", "fast"}


@pytest.fixture(scope="module")
def call_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("call")
    write_call(build_call(PARTS, DATA, seed=1), out)
    return out


class FailingSource(FileSource):
    """A file whose device is unplugged after fail_s seconds: reading on raises DeviceError."""

    def __init__(self, path, fail_s: float):
        super().__init__(path)
        self.left = int(fail_s * SAMPLE_RATE)

    def read(self, max_samples=None, timeout=0.1):
        if self.left <= 0:
            raise DeviceError("the microphone was unplugged")
        got = super().read(min(max_samples or self.left, self.left), timeout)
        self.left -= 0 if got is None else len(got)
        return got


def _call(model, you, them, guard=None, canceller=None):
    sides = [
        CallSide(k, build_processor(model, StreamConfig(policy="flow"))[0], s)
        for k, s in (("you", you), ("them", them))
    ]
    updates, text = [], SideTexts()

    def on_update(update):
        updates.append(update)
        text.confirm(update.confirmed)
        for f in update.finals:
            text.apply(f)

    try:
        dones = run_call(sides, pace="unaware", on_update=on_update, guard=guard, canceller=canceller)
    finally:
        for side in sides:
            side.processor.close()
    return updates, text.words, dones


def _spelled(words, speaker):
    return {"".join(c for c in w.text.lower() if c.isalnum()) for w in words if w.speaker == speaker}


def test_each_side_words_come_under_its_own_label(tiny_model, call_dir):
    updates, words, dones = _call(
        tiny_model, FileSource(call_dir / "you-noecho.wav"), FileSource(call_dir / "them.wav")
    )
    assert {u.speaker for u in updates} == {"you", "them"}
    assert all(w.speaker == u.speaker for u in updates for w in u.confirmed)
    assert all(u.round.speaker == u.speaker for u in updates if u.round)
    assert len(THEIRS & _spelled(words, "them")) >= 4 and not THEIRS & _spelled(words, "you")
    assert len(YOURS & _spelled(words, "you")) >= 4 and not YOURS & _spelled(words, "them")
    assert set(dones) == {"you", "them"} and not any(d.error for d in dones.values())


def test_the_echo_guard_drops_their_words_heard_by_your_microphone(tiny_model, call_dir):
    guard = EchoGuard()
    _, words, _ = _call(tiny_model, FileSource(call_dir / "you-echo3.wav"), FileSource(call_dir / "them.wav"), guard)
    assert len(THEIRS & _spelled(words, "them")) >= 4
    assert not THEIRS & _spelled(words, "you")
    assert len(YOURS & _spelled(words, "you")) >= 4


def test_the_echo_canceller_alone_keeps_their_words_out_of_yours(tiny_model, call_dir):
    you, them = FileSource(call_dir / "you-echo3.wav"), FileSource(call_dir / "them.wav")
    _, words, _ = _call(tiny_model, you, them, canceller=EchoCanceller())  # no guard
    assert len(THEIRS & _spelled(words, "them")) >= 4
    assert not THEIRS & _spelled(words, "you")
    assert len(YOURS & _spelled(words, "you")) >= 4


def test_when_one_side_fails_the_other_goes_on_and_every_word_is_kept(tiny_model, call_dir):
    them = FailingSource(call_dir / "them.wav", fail_s=4.0)  # unplugged in "Chinese took impressions"
    _, words, dones = _call(tiny_model, FileSource(call_dir / "you-noecho.wav"), them)
    assert "unplugged" in dones["them"].error and dones["you"].error is None
    assert dones["you"].audio_s == pytest.approx(sf.info(call_dir / "you-noecho.wav").duration, abs=0.01)
    assert len(YOURS & _spelled(words, "you")) >= 4
    assert "chinese" in _spelled(words, "them")  # said before the failure
    assert np.isclose(dones["them"].audio_s, 4.0, atol=0.05)


class SlowSource(FileSource):
    """A file read at half the pace asked for: its stream falls behind the other side's."""

    def read(self, max_samples=None, timeout=0.1):
        return super().read(max(1, (max_samples or SAMPLE_RATE) // 2), timeout)


def test_your_words_wait_for_their_slower_stream_so_no_echo_is_ever_shown_as_yours(tiny_model, call_dir):
    guard = EchoGuard()
    them = SlowSource(call_dir / "them.wav")
    updates, words, _ = _call(tiny_model, FileSource(call_dir / "you-echo10.wav"), them, guard)
    shown = [w for u in updates if u.speaker == "you" for w in (*u.confirmed, *u.tentative)]
    assert not THEIRS & _spelled(shown, "you")
    assert len(THEIRS & _spelled(words, "them")) >= 4 and len(YOURS & _spelled(words, "you")) >= 4

"""The echo canceller: Them's echo out of your microphone, your voice kept; Them's audio read once for two readers."""

import numpy as np
import pytest
from testdata import DATA

from engine.audio.echo_canceller import (
    AEC3_DELAY,
    ECHO_TAIL_FRAMES,
    FAR_FLOOR,
    FRAME,
    HOLD_S,
    EchoCancelledSource,
    EchoCanceller,
    SharedReference,
)
from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import AudioSource, FileSource
from engine.errors import DeviceError
from tools.call.fixture import room_response


def _drain(source: AudioSource, block: int) -> np.ndarray:
    parts = []
    with source:
        while (got := source.read(block)) is not None:
            parts.append(got)
    return np.concatenate(parts)


def _cancelled(out, track: str) -> np.ndarray:
    """The call's track of your microphone through the canceller, with them.wav as the reference."""
    reference = SharedReference(FileSource(out / "them.wav"))
    reference.stream_source().start()
    return _drain(EchoCancelledSource(FileSource(out / f"{track}.wav"), reference, EchoCanceller()), 4800)


def _level_db(audio: np.ndarray, spans) -> float:
    samples = np.concatenate([audio[int(a * SAMPLE_RATE) : int(b * SAMPLE_RATE)] for a, b in spans])
    return 10 * np.log10(np.mean(samples**2))


def _alone(built, side: str) -> list[tuple[float, float]]:
    """The stretches where only side speaks (its parts less the other side's), after the first part: the
    canceller has heard Them by then."""
    others = [(p.offset, p.end) for p in built.placed if p.part.side != side]
    spans = []
    for p in built.placed[1:]:
        if p.part.side == side:
            a, b = p.offset, p.end
            for oa, ob in others:
                if oa <= a < ob:
                    a = ob
                if oa < b <= ob:
                    b = oa
            if b - a > 0.3:
                spans.append((a, b))
    return spans


def test_their_echo_is_removed_from_your_microphone_and_your_voice_kept(call):
    built, out = call
    cancelled = _cancelled(out, "you-echo3")
    mic, clean = built.tracks["you-echo3"], built.tracks["you-noecho"]
    assert len(cancelled) == len(mic)
    them_alone, you_alone = _alone(built, "them"), _alone(built, "you")
    assert them_alone and you_alone
    assert _level_db(cancelled, them_alone) < _level_db(mic, them_alone) - 15  # the echo, 15 dB or more down
    assert abs(_level_db(cancelled, you_alone) - _level_db(clean, you_alone)) < 3  # your voice, as without echo


def test_where_them_was_silent_for_half_a_second_your_microphone_passes_as_it_came(call):
    built, out = call
    cancelled = _cancelled(out, "you-echo10")
    mic = _drain(FileSource(out / "you-echo10.wav"), 4800)  # as written (16-bit)
    n = len(mic) // FRAME
    them = built.tracks["them"][: n * FRAME].reshape(n, FRAME)
    loud = np.sqrt(np.mean(them**2, axis=1)) >= FAR_FLOOR
    heard = np.convolve(loud, np.ones(ECHO_TAIL_FRAMES + 2), mode="full")[:n] > 0  # within the tail, or fading
    quiet = np.repeat(~heard, FRAME)
    assert quiet.sum() > 3 * SAMPLE_RATE  # your turns after Them's
    np.testing.assert_array_equal(cancelled[: n * FRAME][quiet], mic[: n * FRAME][quiet])
    assert not np.array_equal(cancelled[: n * FRAME][~quiet], mic[: n * FRAME][~quiet])


def test_without_an_echo_your_microphone_passes_as_it_came(call):
    """Headphones: the canceller finds no echo path, and your voice over Them's is left whole."""
    built, out = call
    cancelled = _cancelled(out, "you-noecho")
    np.testing.assert_array_equal(cancelled, _drain(FileSource(out / "you-noecho.wav"), 4800))


class _Recorded(AudioSource):
    """A list of blocks handed out one a read (an empty block: nothing yet), then a failure or the end."""

    name = "recorded"

    def __init__(self, blocks, failure: DeviceError | None = None):
        self.blocks, self.failure = list(blocks), failure

    def start(self):
        pass

    def stop(self):
        pass

    def read(self, max_samples=None, timeout=0.1):
        if self.blocks:
            return self.blocks.pop(0)
        if self.failure:
            raise self.failure
        return None


class _Quiet:
    """A canceller that hands your audio back: the reading and framing alone."""

    def cancel(self, near, far):
        assert len(near) == len(far) and len(near) % FRAME == 0
        return near.copy()


def _ramp(n: int, start: int = 0) -> np.ndarray:
    return np.arange(start, start + n, dtype=np.float32) / 1e6


def test_their_stream_gets_every_sample_once_while_your_side_reads_the_reference_ahead():
    them = SharedReference(_Recorded([_ramp(1000), _ramp(3000, 1000), _ramp(500, 4000)]))
    you = EchoCancelledSource(_Recorded([_ramp(4321)]), them, _Quiet())
    yours = _drain(you, 10_000)
    theirs = _drain(them.stream_source(), 700)
    np.testing.assert_array_equal(yours, _ramp(4321))  # every sample, the last part frame too
    np.testing.assert_array_equal(theirs, _ramp(4500))


def test_your_audio_waits_for_a_lagging_reference_only_so_long():
    them = SharedReference(_Recorded([np.zeros(0, np.float32)] * 100))  # the system audio gives nothing
    you = EchoCancelledSource(_Recorded([_ramp(1600)] * 10), them, _Quiet())
    you.start()
    got = [len(you.read(None)) for _ in range(10)]
    assert got[0] == 0  # 0.1 s waits for its reference
    assert sum(got) >= len(got) * 1600 - HOLD_S * SAMPLE_RATE  # no more than HOLD_S of it


def test_their_device_failing_ends_their_stream_only():
    failure = DeviceError("the system audio was lost")
    them = SharedReference(_Recorded([_ramp(800)], failure))
    you = EchoCancelledSource(_Recorded([_ramp(3200)] * 3), them, _Quiet())
    assert len(_drain(you, 1600)) == 9600  # yours goes on, their missing audio as silence
    stream = them.stream_source()
    assert len(stream.read()) == 800
    with pytest.raises(DeviceError, match="lost"):
        stream.read()


def test_your_voice_over_theirs_keeps_its_level_once_the_linear_filter_has_learnt_the_echo():
    """AEC3 takes your words' onsets down where you talk over Them (10-18 dB for 40-80 ms); once the linear filter
    removes LEARNT_DB of the echo, frames where its output is louder than the echo it took away are yours."""
    them = np.concatenate([load_audio(DATA / "LJ001-0003.wav"), load_audio(DATA / "LJ001-0004.wav")])
    rng = np.random.default_rng(0)
    echo = np.convolve(them, room_response(rng))[: len(them)] * 10 ** (-10 / 20)
    echo = np.concatenate([np.zeros(int(0.08 * SAMPLE_RATE)), echo])[: len(them)]
    you = load_audio(DATA / "acoustic_corpus_10s.wav")[: 3 * SAMPLE_RATE]
    mine = rng.standard_normal(len(them)) * 0.002  # the microphone's noise
    at = len(them) - len(you) - SAMPLE_RATE  # you talk over Them's last seconds, ten seconds into the call
    mine[at : at + len(you)] += you
    n = len(them) // FRAME * FRAME
    out = EchoCanceller().cancel((mine + echo)[:n].astype(np.float32), them[:n])
    late = out[AEC3_DELAY:]  # AEC3's output is late; the canceller's is, wherever it cancels
    frames = np.arange(at, at + len(you) - FRAME, FRAME)
    level = np.array([[_level_db(x[i : i + FRAME], [(0, FRAME / SAMPLE_RATE)]) for i in frames] for x in (mine, late)])
    voiced = level[0] > -45
    assert voiced.sum() > 100
    loss = level[0][voiced] - level[1][voiced]
    assert np.median(loss) < 0.5  # AEC3's output throughout: 2.8 dB
    assert np.percentile(loss, 90) < 6  # and 34 dB

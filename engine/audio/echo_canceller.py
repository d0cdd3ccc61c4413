"""Them's voice taken out of your microphone, with the computer's audio as the reference: a linear adaptive filter
subtracts Them's echo (engine.audio.linear_echo), then WebRTC's echo canceller (AEC3, as livekit's audio processing
module ships it) takes out what is left.

Them's source is read once for two readers (SharedReference): Them's stream, and the canceller's reference. Your
side's audio (EchoCancelledSource) is handed out in the canceller's 10 ms frames once the reference has reached the
same sample; a lagging reference is read at once, so your side waits for none of Them's rounds. The canceller
learns the echo's delay and room by itself (docs/bench/call: PulseAudio's older canceller cut your own voice too).

AEC3 alone also dampens your voice where you talk over Them: its suppressor works by how much echo it expects to
be left, and it expected much. The linear filter first takes 12-16 dB of echo away and nothing of your voice, so
AEC3 has little left to remove and suppresses less: on the call fixture's echo tracks your voice over Them's lost
0.8-1.9 dB (median) instead of 1.5-6.1 dB, and at -3 dB You's WER fell from 20.0 to 13.8 % (19.6 to 11.6 % in
realtime; docs/bench/call).

AEC3 still took your words' onsets over Them's voice down by 10-18 dB for 40-80 ms (a quarter of the 10 ms frames
where both speak lost 6 dB or more), and tiny.en lost "And" and "he" at the start of a turn. Once the linear filter
has learnt the echo path (LinearEchoFilter.learnt: it removes 10 dB), a frame in which what it leaves is louder than
the echo it took away is your voice, with the echo left in it at least 10 dB below it: that frame is the linear
filter's output, not AEC3's (as late as AEC3's, AEC3_DELAY, with a one-frame fade at each switch). Your voice over
Them's now loses 0.0 dB (median; 6 dB or more in 5-8 % of those frames at -10 dB), the echo left where only Them
speaks is the same, and at the unaware pace You's WER fell from 10.7 to 7.6 % at -10 dB and from 13.8 to 10.2 % at
-3 dB.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from engine.audio.echo_path import EchoPath
from engine.audio.files import SAMPLE_RATE
from engine.audio.linear_echo import LinearEchoFilter
from engine.audio.sources import AudioSource
from engine.errors import DeviceError, WhisperFlowError

FRAME = SAMPLE_RATE // 100  # the canceller works on 10 ms frames (the linear filter's blocks, AEC3's frames)
HOLD_S = 0.5  # your audio waits at most this long for the reference; past it, a stalled reference counts as silence
ECHO_TAIL_FRAMES = 50  # an echo is heard up to 0.5 s after Them's sound (the speaker's delay and the room's tail)
FAR_FLOOR = 1e-3  # Them's audio below this RMS (-60 dBFS) makes no echo worth removing
AEC3_DELAY = 128  # AEC3's output is its input 8 ms late (livekit's module, measured on noise: every call the same)
PULL = SAMPLE_RATE // 10  # the reference is read in blocks of at most this many samples
_EMPTY = np.zeros(0, np.float32)
_FADE_IN = np.linspace(0, 1, FRAME, dtype=np.float32)


class EchoCanceller:
    """The linear filter and then AEC3 on 16 kHz float audio, in step with the reference: cancel(near, far), whole
    frames.

    The canceller hears every frame, but its output is used only where there is an echo to remove: once an echo
    path is found (EchoPath: none with headphones), and within ECHO_TAIL_FRAMES of Them's sound. Elsewhere your
    microphone goes on as it came: the canceller reshapes a voice a little even without echo, and dampens it where
    you talk over Them, and tiny.en then flips a borderline word (docs/bench/call). A switch fades over one frame.
    Where it is used, a frame that is your voice is the linear filter's output (the module's docstring)."""

    def __init__(self):
        try:
            from livekit import rtc
        except ImportError as exc:  # an install without it: the call still runs, with the echo guard only
            raise WhisperFlowError(f"the echo canceller is not installed (livekit: {exc})") from exc
        self._rtc = rtc
        # no high-pass filter, noise suppression or gain control: the transcriber hears your voice as it was
        self._apm = rtc.AudioProcessingModule(echo_cancellation=True)
        self._linear = LinearEchoFilter(FRAME)
        self.echo_path = EchoPath()
        self._late = np.zeros((2, AEC3_DELAY), np.float32)  # the linear filter's output and echo estimate, not yet out
        self._voice = False  # the frame going out is your voice: the linear filter's output, in AEC3's place
        self._since_far = ECHO_TAIL_FRAMES + 1  # frames since Them's audio was last above FAR_FLOOR
        self._cancelling = False

    def _frame(self, samples: np.ndarray):
        pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16)
        return self._rtc.AudioFrame(pcm.tobytes(), SAMPLE_RATE, 1, FRAME)

    def cancel(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
        """near (your microphone) with far's echo removed; both the same whole number of frames long."""
        out = np.empty(len(near), np.float32)
        for i in range(0, len(near), FRAME):
            far_frame, near_frame = far[i : i + FRAME], near[i : i + FRAME]
            loud = float(np.sqrt(np.mean(far_frame**2))) >= FAR_FLOOR
            self._apm.process_reverse_stream(self._frame(far_frame))
            linear = self._linear.subtract(far_frame, near_frame, loud)
            frame = self._frame(linear)
            self._apm.process_stream(frame)
            suppressed = np.frombuffer(frame.data, np.int16) / np.float32(32768)
            late = np.concatenate([self._late, np.stack([linear, near_frame - linear])], axis=1)
            self._late = late[:, FRAME:]
            yours, echo = late[0, :FRAME], late[1, :FRAME]  # as late as AEC3's output
            # louder than the echo the learnt filter took away: the echo it left is 10 dB or more below your voice
            voice = self._linear.learnt and float(yours @ yours) >= float(echo @ echo)
            cancelled = _switch(self._voice, voice, yours, suppressed)
            self._voice = voice
            self._since_far = 0 if loud else self._since_far + 1
            self.echo_path.hear(near_frame, far_frame)
            cancelling = self.echo_path.present and self._since_far <= ECHO_TAIL_FRAMES
            out[i : i + FRAME] = _switch(self._cancelling, cancelling, cancelled, near_frame)
            self._cancelling = cancelling
        return out


def _switch(was: bool, now: bool, on: np.ndarray, off: np.ndarray) -> np.ndarray:
    """on where now, else off; faded over the frame where it changes."""
    if was == now:
        return on if now else off
    fade = _FADE_IN if now else 1 - _FADE_IN
    return fade * on + (1 - fade) * off


def optional_canceller(note: Callable[[str], None]) -> EchoCanceller | None:
    """An echo canceller, or None, said to note, where it cannot be loaded (the call goes on with the echo guard)."""
    try:
        return EchoCanceller()
    except WhisperFlowError as exc:
        note(f"{exc}; their voice from your speakers is only guarded against, not removed")
        return None


class SharedReference:
    """Them's source read once for two readers: Them's stream (stream_source) and the canceller (take)."""

    def __init__(self, source: AudioSource):
        self.source = source
        self.lock = threading.Lock()
        self._for_stream: list[np.ndarray] = []
        self._far = _EMPTY
        self.ended = False
        self._failure: DeviceError | None = None  # raised to Them's stream, never to yours

    def pull(self, timeout: float) -> bool:
        """Read a block of Them's audio for both readers; False when none came (or the source ended or failed)."""
        if self.ended:
            return False
        try:
            got = self.source.read(PULL, timeout)
        except DeviceError as exc:
            self._failure, self.ended = exc, True
            return False
        if got is None:
            self.ended = True
            return False
        if len(got):
            self._for_stream.append(got)
            self._far = np.concatenate([self._far, got])
        return bool(len(got))

    def available(self, n: int) -> int:
        """How much of n samples of reference there is, reading what Them's source already holds when it lags."""
        while len(self._far) < n and self.pull(0.0):
            pass
        return min(n, len(self._far))

    def take(self, n: int) -> np.ndarray:
        """The next n samples of reference, silence where there is none."""
        got, self._far = self._far[:n], self._far[n:]
        return np.concatenate([got, np.zeros(n - len(got), np.float32)]) if len(got) < n else got

    def stream_source(self) -> AudioSource:
        return _TappedSource(self)

    def for_stream(self, max_samples: int | None, timeout: float) -> np.ndarray | None:
        """Them's stream's read: the audio pulled for it, else a block read now."""
        if not self._for_stream:
            self.pull(timeout)
        if not self._for_stream:
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise failure
            return None if self.ended else _EMPTY
        pending = np.concatenate(self._for_stream)
        n = len(pending) if max_samples is None else min(max_samples, len(pending))
        self._for_stream = [pending[n:]] if n < len(pending) else []
        return pending[:n]


class _TappedSource(AudioSource):
    """Them's source as Them's stream reads it, through the shared reference."""

    def __init__(self, shared: SharedReference):
        self.shared = shared

    @property
    def name(self) -> str:
        return self.shared.source.name

    def start(self) -> None:
        self.shared.source.start()

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        with self.shared.lock:
            return self.shared.for_stream(max_samples, timeout)

    def stop(self) -> None:
        self.shared.source.stop()


class EchoCancelledSource(AudioSource):
    """Your source with Them's echo removed, frame by frame in step with the shared reference."""

    def __init__(self, you: AudioSource, reference: SharedReference, canceller: EchoCanceller):
        self.you, self.reference, self.canceller = you, reference, canceller
        self._near = _EMPTY  # your audio not yet cancelled
        self._out = _EMPTY  # cancelled audio not yet read
        self._ended = False

    @property
    def name(self) -> str:
        return self.you.name

    def start(self) -> None:
        self.you.start()

    def stop(self) -> None:
        self.you.stop()

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        if not self._ended and not len(self._out):
            got = self.you.read(max_samples, timeout)  # your device failing is your side's error
            if got is None:
                self._ended = True
            else:
                self._near = np.concatenate([self._near, got])
            self._cancel()
        if not len(self._out):
            return None if self._ended else _EMPTY
        n = len(self._out) if max_samples is None else min(max_samples, len(self._out))
        chunk, self._out = self._out[:n], self._out[n:]
        return chunk

    def _cancel(self) -> None:
        """Cancel the whole frames of your audio the reference covers (all of it at your stream's end, or when it
        has waited HOLD_S: the reference's missing part is silence)."""
        n = len(self._near) if self._ended else len(self._near) // FRAME * FRAME
        with self.reference.lock:
            have = self.reference.available(n)
            if have < n and not (self.reference.ended or self._ended or len(self._near) >= HOLD_S * SAMPLE_RATE):
                n = have // FRAME * FRAME  # the rest waits for its reference
            far = self.reference.take(n + -n % FRAME)
        if n:
            near = np.concatenate([self._near[:n], np.zeros(-n % FRAME, np.float32)])  # the last part frame, padded
            self._out = np.concatenate([self._out, self.canceller.cancel(near, far)[:n]])
            self._near = self._near[n:]

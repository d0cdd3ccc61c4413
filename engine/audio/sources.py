"""Audio sources for streaming: files (instant or paced at wall-clock speed) and live inputs.

Every source delivers float32 mono 16 kHz through the same `read()` contract.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import soundfile as sf
import soxr

from engine.audio.devices import InputDevice, OpenSpec, portaudio, pulse_source_env, resolve_input
from engine.audio.files import _BLOCK_FRAMES, SAMPLE_RATE, check_audio_path, decode_error
from engine.errors import AudioError, DeviceError

if TYPE_CHECKING:
    import sounddevice as sd

_EMPTY = np.zeros(0, np.float32)
FIRST_BLOCK_TIMEOUT_S = 10.0  # devices may take seconds to wake (Bluetooth, idle sound servers)
STOP_WAIT_S = 2.0

log = logging.getLogger(__name__)


class AudioSource(ABC):
    """A stream of float32 mono 16 kHz audio. Use as a context manager (start on enter, stop on exit)."""

    sample_rate = SAMPLE_RATE

    @property
    @abstractmethod
    def name(self) -> str:
        """What a person would call this source."""

    @abstractmethod
    def start(self) -> None:
        """Open the source; raises AudioError/DeviceError when it cannot."""

    @abstractmethod
    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        """The samples available now (at most max_samples), waiting up to `timeout` s for the first.

        Returns an empty array when nothing has arrived yet and None at the end of the stream.
        """

    @abstractmethod
    def stop(self) -> None:
        """Stop capturing and release the source (idempotent). Audio already captured can still be read."""

    def __enter__(self) -> AudioSource:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class FileSource(AudioSource):
    """A file decoded from disk block by block as it is read (never whole in memory), handed out at once."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._file: sf.SoundFile | None = None
        self._resampler: soxr.ResampleStream | None = None
        self._pending = _EMPTY
        self._pos = 0  # samples handed out
        self._frames = 0  # the file's length at its own rate (from its header)
        self._rate = SAMPLE_RATE
        self._started = False
        self._eof = True

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def duration_s(self) -> float:
        """Length of the audio (after start(); from the header)."""
        return self._frames / self._rate if self._started else 0.0

    def start(self) -> None:
        self.stop()
        check_audio_path(self.path)
        try:
            f = sf.SoundFile(self.path)
        except Exception as e:
            raise decode_error(self.path, e) from e
        if f.frames == 0 or f.samplerate <= 0:
            f.close()
            raise AudioError(f"{self.path.name} contains no audio.")
        self._file, self._frames, self._rate = f, f.frames, f.samplerate
        self._resampler = (
            None
            if f.samplerate == SAMPLE_RATE
            else soxr.ResampleStream(f.samplerate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        )
        self._pending, self._pos, self._eof, self._started = _EMPTY, 0, False, True

    def _decode_until(self, n: int) -> None:
        """Decode blocks until n samples are pending or the file has ended."""
        parts = [self._pending] if len(self._pending) else []
        have = len(self._pending)
        try:
            while have < n and not self._eof:
                block = self._file.read(_BLOCK_FRAMES, dtype="float32", always_2d=True)
                last = len(block) < _BLOCK_FRAMES
                mono = block.mean(axis=1, dtype=np.float32) if block.shape[1] > 1 else block[:, 0]
                out = mono if self._resampler is None else self._resampler.resample_chunk(mono)
                if last and self._resampler is not None:
                    out = np.concatenate([out, self._resampler.resample_chunk(_EMPTY, last=True)])
                if len(out):
                    if not np.all(np.isfinite(out)):
                        raise AudioError(f"Cannot decode {self.path.name}: it holds invalid samples (damaged).")
                    parts.append(np.asarray(out, np.float32))
                    have += len(out)
                if last:
                    self._close_file()
        except Exception as e:
            self._close_file()
            raise decode_error(self.path, e) from e
        self._pending = np.concatenate(parts) if len(parts) > 1 else (parts[0] if parts else _EMPTY)

    def _close_file(self) -> None:
        self._eof = True
        if self._file is not None:
            self._file.close()
            self._file = None

    def _available(self, timeout: float) -> int | None:
        """Index one past the last sample that may be handed out now (None: all of them)."""
        return None

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        if not self._started:
            raise RuntimeError(f"{type(self).__name__}.read() before start()")
        end = self._available(timeout)
        want = None if end is None else max(0, end - self._pos)
        if max_samples is not None:
            want = max_samples if want is None else min(want, max_samples)
        self._decode_until(1 << 62 if want is None else max(want, 1))
        if not len(self._pending) and self._eof:
            return None
        n = len(self._pending) if want is None else min(want, len(self._pending))
        chunk, self._pending = self._pending[:n], self._pending[n:]
        self._pos += n
        return chunk

    def stop(self) -> None:
        self._close_file()
        self._pending = _EMPTY


PACED_BLOCK_S = 0.02  # a paced file's block: a live input's callback size


class PacedFileSource(FileSource):
    """A file released at wall-clock pace (times `speed`) from start(), in blocks of block_s like a live
    input's callback. Waiting readers sleep until the next block is due (released sample by sample, the
    stream loop waiting for a round's audio polled it and kept a fifth of a core busy)."""

    def __init__(self, path: str | os.PathLike, speed: float = 1.0, block_s: float = PACED_BLOCK_S):
        if not speed > 0:
            raise ValueError(f"speed must be positive, got {speed}")
        if not block_s > 0:
            raise ValueError(f"block_s must be positive, got {block_s}")
        super().__init__(path)
        self.speed = speed
        self._block = max(1, round(block_s * SAMPLE_RATE))
        self._t0 = 0.0

    def start(self) -> None:
        super().start()
        self._t0 = time.monotonic()

    def _played(self) -> int:
        """Samples released by now: whole blocks."""
        return int((time.monotonic() - self._t0) * SAMPLE_RATE * self.speed) // self._block * self._block

    def _available(self, timeout: float) -> int:
        played = self._played()
        if played <= self._pos and timeout > 0:
            next_due = self._t0 + (self._pos // self._block + 1) * self._block / (SAMPLE_RATE * self.speed)
            time.sleep(max(0.0, min(timeout, next_due - time.monotonic())))
            played = self._played()
        return played


class QueuedSource(AudioSource):
    """A live source fed by a capture callback: the callback only queues raw blocks; read() converts them
    (downmix, resample to 16 kHz) on the reading thread and hands out what is pending.

    Subclasses open and close the capture, say how a raw block becomes 16 kHz (``_convert``) and what the
    resampler still holds at the end (``_flush``), and may look for failures (``_check_health``). After a
    failure read() first hands out everything captured so far, then raises DeviceError. ``limit_samples``
    ends the stream after that much audio.
    """

    def __init__(self, limit_samples: int | None = None):
        self._blocks: queue.Queue = queue.Queue()
        self._pending = _EMPTY
        self._limit = limit_samples
        self._delivered = 0
        self._started = False
        self._stopping = False
        self._flushed = False
        self._failure: str | None = None

    @abstractmethod
    def _convert(self, block) -> np.ndarray:
        """A queued raw block as float32 mono 16 kHz (through the streaming resampler)."""

    @abstractmethod
    def _flush(self) -> np.ndarray:
        """What the resampler still holds once the capture has stopped."""

    @abstractmethod
    def _failure_message(self) -> str:
        """What to tell a person when the capture failed (self._failure says how)."""

    def _check_health(self) -> None:
        """Set self._failure if the capture died without telling (checked while nothing arrives)."""

    def _abort(self) -> None:
        """Release the capture after a failure without waiting on it."""
        self.stop()

    def _pull(self, timeout: float) -> None:
        """Move queued blocks through _convert into the pending buffer (the resampler's tail once stopped)."""
        got: list[np.ndarray] = []
        try:
            block = self._blocks.get(timeout=timeout) if timeout > 0 else self._blocks.get_nowait()
            while True:
                got.append(self._convert(block))
                block = self._blocks.get_nowait()
        except queue.Empty:
            pass
        if self._stopping and self._failure is None and not self._flushed and self._blocks.empty():
            got.append(self._flush())
            self._flushed = True
        if got:
            self._pending = np.concatenate([self._pending, *got])

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        if not self._started:
            raise RuntimeError(f"{type(self).__name__}.read() before start()")
        self._pull(0 if len(self._pending) or self._stopping else timeout)
        if self._limit is not None:
            self._pending = self._pending[: max(0, self._limit - self._delivered)]
        if len(self._pending):
            n = len(self._pending) if max_samples is None else min(max_samples, len(self._pending))
            chunk, self._pending = self._pending[:n], self._pending[n:]
            self._delivered += n
            return chunk
        if self._limit is not None and self._delivered >= self._limit:
            self.stop()
            return None
        if self._failure is None and not self._stopping:
            self._check_health()
        if self._failure is not None:
            self._abort()
            message = self._failure_message()
            log.info("audio input lost: %s", message)
            raise DeviceError(message)
        return None if self._flushed else _EMPTY


class MicrophoneSource(QueuedSource):
    """A live input (microphone, or system audio via ``pulse:<monitor>``) resampled to 16 kHz.

    Opens the device at its own default rate and downmixes to mono in the PortAudio callback; a streaming
    soxr resampler runs on the reading thread. The device has failed when PortAudio reports an error, the
    stream stops by itself, or no data comes for `stall_s` seconds. `max_seconds` ends the stream after
    that much audio.
    """

    def __init__(
        self,
        device: InputDevice | int | str | None = None,
        block_s: float = 0.05,
        stall_s: float = 4.0,
        max_seconds: float | None = None,
    ):
        super().__init__(None if max_seconds is None else int(max_seconds * SAMPLE_RATE))
        self._device_arg = device
        self.block_s = block_s
        self.stall_s = stall_s
        self.max_seconds = max_seconds
        self._spec: OpenSpec | None = None
        self._stream: sd.InputStream | None = None
        self._resampler: soxr.ResampleStream | None = None
        self._last_block_at = 0.0
        self._blocks_seen = 0
        self._closer: threading.Thread | None = None

    @property
    def name(self) -> str:
        return self._spec.device.name if self._spec else str(self._device_arg or "default microphone")

    def start(self) -> None:
        if self._started:
            raise RuntimeError("a MicrophoneSource can be started once; make a new one")
        spec = resolve_input(self._device_arg)
        sd = portaudio()
        rate = spec.device.default_samplerate
        channels = max(1, min(2, spec.device.channels))
        try:
            with pulse_source_env(spec.pulse_source):
                stream = sd.InputStream(
                    device=spec.portaudio_index,
                    channels=channels,
                    samplerate=rate,
                    dtype="float32",
                    blocksize=max(1, int(rate * self.block_s)),
                    callback=self._on_block,
                    finished_callback=self._on_finished,
                )
        except sd.PortAudioError as e:
            raise DeviceError(
                f"Cannot open audio input '{spec.device.name}': {e}. "
                "It may be unplugged or used by another application."
            ) from e
        self._last_block_at = time.monotonic()
        try:
            stream.start()
        except sd.PortAudioError as e:
            stream.close()
            raise DeviceError(f"Cannot start audio input '{spec.device.name}': {e}.") from e
        self._spec = spec
        self._resampler = soxr.ResampleStream(rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        self._stream = stream
        self._started = True
        log.info("audio input %r opened: %g Hz, %d channels", spec.device.name, rate, channels)

    def _on_block(self, indata: np.ndarray, frames: int, time_info, status: sd.CallbackFlags) -> None:
        mono = indata.mean(axis=1, dtype=np.float32) if indata.shape[1] > 1 else indata[:, 0].copy()
        self._blocks.put(mono)
        self._last_block_at = time.monotonic()
        self._blocks_seen += 1

    def _on_finished(self) -> None:
        if not self._stopping:
            self._failure = "the stream stopped by itself"

    def _convert(self, block: np.ndarray) -> np.ndarray:
        return self._resampler.resample_chunk(block)

    def _flush(self) -> np.ndarray:
        return self._resampler.resample_chunk(_EMPTY, last=True)

    def _check_health(self) -> None:
        limit = self.stall_s if self._blocks_seen else max(self.stall_s, FIRST_BLOCK_TIMEOUT_S)
        if self._stream is not None and not self._stream.active:
            self._failure = "the stream stopped by itself"
        elif time.monotonic() - self._last_block_at > limit:
            self._failure = f"no audio arrived for {limit:g} s"

    def _failure_message(self) -> str:
        return (
            f"Audio input '{self.name}' stopped working ({self._failure}); it may have been unplugged or "
            "disabled. Audio captured before that is kept."
        )

    def _abort(self) -> None:
        self._close_stream(wait_s=0.0)

    def _close_stream(self, wait_s: float) -> None:
        """Abort and close the stream on a helper thread, waiting at most wait_s: a wedged device or
        sound server can block PortAudio's abort indefinitely, and read()/stop() must not hang."""
        stream, self._stream = self._stream, None
        self._stopping = True
        if stream is not None:
            self._closer = threading.Thread(target=_abort_and_close, args=(stream,), daemon=True, name="wf-mic-close")
            self._closer.start()
        if self._closer is not None:
            self._closer.join(wait_s)

    def stop(self) -> None:
        self._close_stream(wait_s=STOP_WAIT_S)


def _abort_and_close(stream: sd.InputStream) -> None:
    try:
        stream.abort()
        stream.close()
    except portaudio().PortAudioError:
        pass

"""Audio sources for streaming: files (instant or paced at wall-clock speed) and live inputs.

Every source delivers float32 mono 16 kHz through the same `read()` contract.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np
import sounddevice as sd
import soxr

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.devices import InputDevice, OpenSpec, pulse_source_env, resolve_input
from engine.errors import DeviceError

_EMPTY = np.zeros(0, np.float32)
FIRST_BLOCK_TIMEOUT_S = 10.0  # devices may take seconds to wake (Bluetooth, idle sound servers)
STOP_WAIT_S = 2.0


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
    """A whole decoded file, handed out as fast as it is read."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._audio: np.ndarray | None = None
        self._pos = 0

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def duration_s(self) -> float:
        """Length of the decoded audio (after start())."""
        return 0.0 if self._audio is None else len(self._audio) / SAMPLE_RATE

    def start(self) -> None:
        self._audio = load_audio(self.path)
        self._pos = 0

    def _available(self, timeout: float) -> int:
        """Index one past the last sample that may be handed out now."""
        return len(self._audio)

    def read(self, max_samples: int | None = None, timeout: float = 0.1) -> np.ndarray | None:
        if self._audio is None:
            raise RuntimeError(f"{type(self).__name__}.read() before start()")
        if self._pos >= len(self._audio):
            return None
        end = self._available(timeout)
        if max_samples is not None:
            end = min(end, self._pos + max_samples)
        chunk = self._audio[self._pos:end]
        self._pos = max(self._pos, end)
        return chunk

    def stop(self) -> None:
        if self._audio is not None:
            self._pos = len(self._audio)


class PacedFileSource(FileSource):
    """A decoded file released at wall-clock pace (times `speed`) from start(), like a live input."""

    def __init__(self, path: str | os.PathLike, speed: float = 1.0):
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        super().__init__(path)
        self.speed = speed
        self._t0 = 0.0

    def start(self) -> None:
        super().start()
        self._t0 = time.monotonic()

    def _played(self) -> int:
        return min(len(self._audio), int((time.monotonic() - self._t0) * SAMPLE_RATE * self.speed))

    def _available(self, timeout: float) -> int:
        played = self._played()
        if played <= self._pos and timeout > 0:
            next_due = self._t0 + (self._pos + 1) / (SAMPLE_RATE * self.speed)
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
            self._pending = self._pending[:max(0, self._limit - self._delivered)]
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
            raise DeviceError(self._failure_message())
        return None if self._flushed else _EMPTY


class MicrophoneSource(QueuedSource):
    """A live input (microphone, or system audio via ``pulse:<monitor>``) resampled to 16 kHz.

    Opens the device at its own default rate and downmixes to mono in the PortAudio callback; a streaming
    soxr resampler runs on the reading thread. The device has failed when PortAudio reports an error, the
    stream stops by itself, or no data comes for `stall_s` seconds. `max_seconds` ends the stream after
    that much audio.
    """

    def __init__(self, device: InputDevice | int | str | None = None, block_s: float = 0.05,
                 stall_s: float = 4.0, max_seconds: float | None = None):
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
        rate = spec.device.default_samplerate
        channels = max(1, min(2, spec.device.channels))
        try:
            with pulse_source_env(spec.pulse_source):
                stream = sd.InputStream(device=spec.portaudio_index, channels=channels, samplerate=rate,
                                        dtype="float32", blocksize=max(1, int(rate * self.block_s)),
                                        callback=self._on_block, finished_callback=self._on_finished)
        except sd.PortAudioError as e:
            raise DeviceError(f"Cannot open audio input '{spec.device.name}': {e}. "
                              "It may be unplugged or used by another application.") from e
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
        return (f"Audio input '{self.name}' stopped working ({self._failure}); it may have been unplugged or "
                "disabled. Audio captured before that is kept.")

    def _abort(self) -> None:
        self._close_stream(wait_s=0.0)

    def _close_stream(self, wait_s: float) -> None:
        """Abort and close the stream on a helper thread, waiting at most wait_s: a wedged device or
        sound server can block PortAudio's abort indefinitely, and read()/stop() must not hang."""
        stream, self._stream = self._stream, None
        self._stopping = True
        if stream is not None:
            self._closer = threading.Thread(target=_abort_and_close, args=(stream,), daemon=True,
                                            name="wf-mic-close")
            self._closer.start()
        if self._closer is not None:
            self._closer.join(wait_s)

    def stop(self) -> None:
        self._close_stream(wait_s=STOP_WAIT_S)


def _abort_and_close(stream: sd.InputStream) -> None:
    try:
        stream.abort()
        stream.close()
    except sd.PortAudioError:
        pass

"""System audio on macOS 13+: what the Mac plays, captured with ScreenCaptureKit.

`ScreenCaptureSource`, ScreenCaptureKit through pyobjc. SCStream hands its audio to a callback as
CMSampleBuffers of float32 PCM (48 kHz stereo, non-interleaved as configured here). The callback only copies
the bytes and queues them; read() turns them into float32 mono 16 kHz with `sck_buffer_to_16k` (pure, tested
on recorded buffers on any OS) and a streaming soxr resampler. pyobjc is imported only when a capture starts,
so this module imports everywhere.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import soxr

from engine.audio.files import SAMPLE_RATE
from engine.audio.sources import QueuedSource
from engine.audio.system_audio import macos_availability, macos_version, pyobjc_available
from engine.errors import DeviceError

SCK_SAMPLE_RATE = 48000
SCK_CHANNELS = 2
FLAG_IS_FLOAT = 1  # kAudioFormatFlagIsFloat
FLAG_NON_INTERLEAVED = 1 << 5  # kAudioFormatFlagIsNonInterleaved
MAX_GAP_S = 30.0  # longest silence re-inserted where the capture skipped time
GAP_TOLERANCE_S = 0.005
CALL_TIMEOUT_S = 10.0
PERMISSION_HINT = (
    "Allow WhisperFlow (or the terminal running it) in System Settings › Privacy & Security › "
    "Screen & System Audio Recording, then start again."
)
_EMPTY = np.zeros(0, np.float32)


@dataclass(frozen=True)
class PcmLayout:
    """How float32 samples sit in a capture buffer."""

    sample_rate: float
    channels: int
    interleaved: bool

    @classmethod
    def from_asbd(cls, sample_rate: float, format_flags: int, channels: int, bits_per_channel: int) -> PcmLayout:
        """From an AudioStreamBasicDescription's fields; DeviceError for anything but 32-bit float PCM."""
        if not format_flags & FLAG_IS_FLOAT or bits_per_channel != 32 or channels < 1 or sample_rate <= 0:
            raise DeviceError(
                f"System audio arrived in an unexpected format ({bits_per_channel}-bit, flags "
                f"{format_flags:#x}, {channels} channels, {sample_rate:g} Hz); expected 32-bit float."
            )
        return cls(float(sample_rate), int(channels), not format_flags & FLAG_NON_INTERLEAVED)


def downmix(data: bytes | np.ndarray, layout: PcmLayout, frames: int | None = None) -> np.ndarray:
    """Float32 mono from one buffer's samples: interleaved frames, or one plane per channel.

    Planes may carry alignment padding at their ends: each plane is len/channels samples and only its
    first `frames` (default: all) are audio.
    """
    if isinstance(data, np.ndarray):
        samples = np.asarray(data, np.float32).ravel()
    else:
        samples = np.frombuffer(data, np.float32)
    per_channel = len(samples) // layout.channels
    frames = per_channel if frames is None else frames
    if frames > per_channel:
        raise ValueError(f"buffer holds {len(samples)} samples, fewer than {frames} frames × {layout.channels}")
    if layout.interleaved:
        grid = samples[: frames * layout.channels].reshape(frames, layout.channels)
        return grid.mean(axis=1, dtype=np.float32)
    planes = samples[: per_channel * layout.channels].reshape(layout.channels, per_channel)[:, :frames]
    return planes.mean(axis=0, dtype=np.float32)


def sck_buffer_to_16k(
    data: bytes | np.ndarray,
    layout: PcmLayout,
    resampler: soxr.ResampleStream,
    *,
    frames: int | None = None,
    last: bool = False,
) -> np.ndarray:
    """One SCStream audio buffer → float32 mono 16 kHz, continuing `resampler`'s stream.

    Feed every buffer of a capture through the same resampler (made by `make_resampler(layout.sample_rate)`)
    so the output is seamless across buffer boundaries; pass last=True (possibly with no data) to flush it.
    """
    return resampler.resample_chunk(downmix(data, layout, frames), last=last)


def make_resampler(sample_rate: float) -> soxr.ResampleStream:
    return soxr.ResampleStream(sample_rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")


def gap_frames(expected_pts: float | None, pts: float | None, sample_rate: float) -> int:
    """Frames of silence to insert before a buffer stamped `pts` when the previous one ended at expected_pts
    (capture skipped time); 0 for contiguous or overlapping buffers, at most MAX_GAP_S of them."""
    if expected_pts is None or pts is None or pts - expected_pts <= GAP_TOLERANCE_S:
        return 0
    return round(min(pts - expected_pts, MAX_GAP_S) * sample_rate)


def _call_with_handler(method: Any, *args: Any) -> tuple:
    """Call an Objective-C method whose last argument is a completion handler; wait for and return its args."""
    done = threading.Event()
    result: list[tuple] = []

    def handler(*values: Any) -> None:
        result.append(values)
        done.set()

    method(*args, handler)
    if not done.wait(CALL_TIMEOUT_S):
        raise DeviceError(
            f"macOS did not answer the screen capture request within {CALL_TIMEOUT_S:g} s. " + PERMISSION_HINT
        )
    return result[0]


def _sample_buffer_pcm(sample_buffer: Any) -> tuple[bytes, PcmLayout, int, float]:
    """The raw float32 bytes, layout, frame count and presentation time (s) of an audio CMSampleBuffer."""
    import CoreMedia

    description = CoreMedia.CMAudioFormatDescriptionGetStreamBasicDescription(
        CoreMedia.CMSampleBufferGetFormatDescription(sample_buffer)
    )
    asbd = description if hasattr(description, "mSampleRate") else description[0]
    layout = PcmLayout.from_asbd(asbd.mSampleRate, asbd.mFormatFlags, asbd.mChannelsPerFrame, asbd.mBitsPerChannel)
    block = CoreMedia.CMSampleBufferGetDataBuffer(sample_buffer)
    status, data = CoreMedia.CMBlockBufferCopyDataBytes(block, 0, CoreMedia.CMBlockBufferGetDataLength(block), None)
    if status != 0:
        raise DeviceError(f"Could not read a system audio buffer (CoreMedia error {status}).")
    pts = CoreMedia.CMTimeGetSeconds(CoreMedia.CMSampleBufferGetPresentationTimeStamp(sample_buffer))
    return bytes(data), layout, int(CoreMedia.CMSampleBufferGetNumSamples(sample_buffer)), float(pts)


_objc_classes: tuple[Any, Any] | None = None


def _stream_classes() -> tuple[Any, Any]:
    """The SCStreamOutput and SCStreamDelegate classes, defined once (Objective-C class names are global)."""
    global _objc_classes
    if _objc_classes is None:
        import objc
        import ScreenCaptureKit as SCK
        from Foundation import NSObject

        class WFAudioOutput(NSObject, protocols=[objc.protocolNamed("SCStreamOutput")]):
            def stream_didOutputSampleBuffer_ofType_(self, stream, sample_buffer, kind):
                # an exception escaping into ScreenCaptureKit would abort the process: report it instead
                if kind != SCK.SCStreamOutputTypeAudio:
                    return
                try:
                    self.source._on_buffer(*_sample_buffer_pcm(sample_buffer))
                except Exception as e:  # noqa: BLE001
                    self.source._failure = str(e)

        class WFStreamDelegate(NSObject, protocols=[objc.protocolNamed("SCStreamDelegate")]):
            def stream_didStopWithError_(self, stream, error):
                if not self.source._stopping:
                    self.source._failure = str(error.localizedDescription()) if error is not None else "it stopped"

        _objc_classes = (WFAudioOutput, WFStreamDelegate)
    return _objc_classes


class ScreenCaptureSource(QueuedSource):
    """Everything the Mac plays (other apps' audio; WhisperFlow's own is excluded), as float32 mono 16 kHz.

    start() raises DeviceError when ScreenCaptureKit is unavailable or permission is missing. If the capture
    stops by itself, read() first hands out what was captured and then raises DeviceError.
    """

    def __init__(self) -> None:
        super().__init__()
        self._stream: Any = None
        self._objc_refs: tuple[Any, ...] = ()
        self._resampler: soxr.ResampleStream | None = None
        self._rate = 0.0
        self._next_pts: float | None = None

    @property
    def name(self) -> str:
        return "System audio"

    def start(self) -> None:
        version = macos_version()
        if version is None:
            raise DeviceError("ScreenCaptureKit system audio is only available on macOS.")
        ok, reason = macos_availability(version, pyobjc_available())
        if not ok:
            raise DeviceError(reason)
        import CoreMedia
        import ScreenCaptureKit as SCK
        from libdispatch import dispatch_queue_create

        content, error = _call_with_handler(SCK.SCShareableContent.getShareableContentWithCompletionHandler_)
        if error is not None or content is None or not content.displays():
            detail = error.localizedDescription() if error is not None else "no display to capture"
            raise DeviceError(f"Cannot capture system audio: {detail}. {PERMISSION_HINT}")
        content_filter = SCK.SCContentFilter.alloc().initWithDisplay_excludingWindows_(content.displays()[0], [])
        config = SCK.SCStreamConfiguration.alloc().init()
        config.setCapturesAudio_(True)
        config.setSampleRate_(SCK_SAMPLE_RATE)
        config.setChannelCount_(SCK_CHANNELS)
        config.setExcludesCurrentProcessAudio_(True)
        config.setWidth_(2)  # a display stream always has video; keep it tiny and rare, and never read it
        config.setHeight_(2)
        config.setMinimumFrameInterval_(CoreMedia.CMTimeMake(1, 1))
        output_class, delegate_class = _stream_classes()
        output, delegate = output_class.alloc().init(), delegate_class.alloc().init()
        output.source = delegate.source = self
        stream = SCK.SCStream.alloc().initWithFilter_configuration_delegate_(content_filter, config, delegate)
        audio_queue = dispatch_queue_create(b"org.whisperflow.system-audio", None)
        added, error = stream.addStreamOutput_type_sampleHandlerQueue_error_(
            output, SCK.SCStreamOutputTypeAudio, audio_queue, None
        )
        if not added:
            raise DeviceError(f"Cannot capture system audio: {error.localizedDescription()}.")
        (error,) = _call_with_handler(stream.startCaptureWithCompletionHandler_)
        if error is not None:
            raise DeviceError(
                f"Cannot start capturing system audio: {error.localizedDescription()}. " + PERMISSION_HINT
            )
        self._stream, self._objc_refs = stream, (output, delegate, audio_queue)
        self._started = True

    def _on_buffer(self, data: bytes, layout: PcmLayout, frames: int, pts: float) -> None:
        """Called on ScreenCaptureKit's queue: only queue the copy."""
        self._blocks.put((data, layout, frames, pts))

    def _convert(self, block: tuple[bytes, PcmLayout, int, float]) -> np.ndarray:
        data, layout, frames, pts = block
        parts = []
        if self._resampler is None or layout.sample_rate != self._rate:
            if self._resampler is not None:
                parts.append(self._resampler.resample_chunk(_EMPTY, last=True))
            self._resampler, self._rate, self._next_pts = make_resampler(layout.sample_rate), layout.sample_rate, None
        silence = gap_frames(self._next_pts, pts, layout.sample_rate)
        if silence:
            parts.append(self._resampler.resample_chunk(np.zeros(silence, np.float32)))
        parts.append(sck_buffer_to_16k(data, layout, self._resampler, frames=frames))
        self._next_pts = pts + frames / layout.sample_rate
        return np.concatenate(parts)

    def _flush(self) -> np.ndarray:
        return _EMPTY if self._resampler is None else self._resampler.resample_chunk(_EMPTY, last=True)

    def _failure_message(self) -> str:
        return f"System audio capture stopped ({self._failure}). Audio captured before that is kept."

    def stop(self) -> None:
        stream, self._stream = self._stream, None
        self._stopping = True
        if stream is not None:
            try:
                _call_with_handler(stream.stopCaptureWithCompletionHandler_)
            except DeviceError:
                pass  # already stopped or macOS did not answer: nothing more to release

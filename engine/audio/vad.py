"""Voice activity: where in a stream someone is speaking, from Silero VAD's ONNX model.

The model ships in the silero-vad wheel and runs with onnxruntime on one thread, 32 ms (512 samples) at a time
with its recurrent state carried over; the package's own (torch) wrapper is never imported. A stream feeds
every sample it hears; the loop then asks whether a stretch held speech and where the last speech ended.
"""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.errors import ModelError

FRAME = 512  # samples per model call at 16 kHz (32 ms)
CONTEXT = 64  # samples of the previous frame the model sees before each frame
SPEECH_THRESHOLD = 0.5  # Silero's default


def model_path() -> Path:
    """The ONNX model inside the installed silero-vad package (found without importing it: it imports torch)."""
    spec = importlib.util.find_spec("silero_vad")
    locations = list(spec.submodule_search_locations or []) if spec else []
    path = Path(locations[0]) / "data" / "silero_vad.onnx" if locations else None
    if path is None or not path.is_file():
        raise ModelError("The voice activity model (silero-vad) is not installed: reinstall WhisperFlow.")
    return path


@lru_cache(maxsize=1)
def _session():
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(model_path()), options, providers=["CPUExecutionProvider"])


class VoiceActivity:
    """Speech probability of every 32 ms frame heard so far, on the stream clock (0 = the first sample fed)."""

    def __init__(self, threshold: float = SPEECH_THRESHOLD):
        self.threshold = threshold
        self._session = _session()
        self._state = np.zeros((2, 1, 128), np.float32)
        self._context = np.zeros(CONTEXT, np.float32)
        self._rest = np.zeros(0, np.float32)
        self._probs: list[float] = []

    @property
    def heard_s(self) -> float:
        """How much audio has been judged (whole frames)."""
        return len(self._probs) * FRAME / SAMPLE_RATE

    def feed(self, audio: np.ndarray) -> None:
        """Judge the new samples (any length; a partial frame waits for the next call)."""
        samples = np.concatenate([self._rest, np.asarray(audio, np.float32)])
        whole = len(samples) // FRAME * FRAME
        for start in range(0, whole, FRAME):
            frame = samples[start:start + FRAME]
            out, self._state = self._session.run(None, {
                "input": np.concatenate([self._context, frame])[None],
                "state": self._state,
                "sr": np.array(SAMPLE_RATE, np.int64),
            })
            self._context = frame[-CONTEXT:]
            self._probs.append(float(out[0, 0]))
        self._rest = samples[whole:]

    def speech_in(self, start_s: float, end_s: float) -> bool:
        """Whether any frame overlapping [start_s, end_s) is speech."""
        first = max(0, int(start_s * SAMPLE_RATE // FRAME))
        last = int(np.ceil(end_s * SAMPLE_RATE / FRAME))
        return any(p >= self.threshold for p in self._probs[first:last])

    def last_speech_end(self) -> float | None:
        """Where the last speech frame heard so far ends, or None when nobody has spoken yet."""
        for i in range(len(self._probs) - 1, -1, -1):
            if self._probs[i] >= self.threshold:
                return (i + 1) * FRAME / SAMPLE_RATE
        return None

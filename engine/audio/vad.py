"""Voice activity: Silero VAD's ONNX model (run by onnxruntime, no torch) over the stream, 32 ms at a time.

The stream uses it to skip rounds over silence and to finalize the words of a sentence as soon as its speaker
pauses (engine.stream.processor).

The model's recurrent state starts afresh after every RESET_S of silence. Carried through long silences it drifts:
a "yeah" or "okay" said alone seconds after the last speech scored 0.05 and 0.37 against the 0.5 that makes speech,
and no round heard them; with the state reset they score 0.80 and 0.99 (docs/bench/call; Silero's streaming
examples reset per utterance too).
"""

from __future__ import annotations

import importlib.util
from collections import deque
from pathlib import Path

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.errors import ModelError

FRAME = 512  # samples per decision at 16 kHz (32 ms)
CONTEXT = 64  # samples of the previous frame the model sees with each one
SPEECH = 0.5  # a frame is speech from this probability …
SILENCE = 0.35  # … and stays speech until the probability falls below this (hysteresis, as Silero's own)
HISTORY_S = 60.0  # runs of speech kept: the stream asks about one round's buffer at most (under 30 s back)
RESET_S = 2.0  # the model's state starts afresh after this much silence (and again after each as much more)
RESET_FRAMES = int(np.ceil(RESET_S * SAMPLE_RATE / FRAME))  # 63 frames


def model_path() -> Path:
    """The ONNX model inside the silero-vad package (found without importing it: its Python side needs torch)."""
    spec = importlib.util.find_spec("silero_vad")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the voice-activity model is missing: install the silero-vad package")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "silero_vad.onnx"
    if not path.is_file():
        raise ModelError(f"the voice-activity model is missing: {path}")
    return path


class SpeechDetector:
    """Follows where the speech is in a stream fed in pieces of any length (stream seconds from the first)."""

    def __init__(self, path: Path | None = None):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = options.intra_op_num_threads = 1
        options.log_severity_level = 4
        try:
            self.session = onnxruntime.InferenceSession(
                str(path or model_path()), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own types for a corrupt file
            raise ModelError(f"cannot load the voice-activity model: {exc}") from exc
        self.state = np.zeros((2, 1, 128), np.float32)
        self.context = np.zeros(CONTEXT, np.float32)
        self.pending = np.zeros(0, np.float32)
        self.frames = 0  # frames decided so far
        self.speaking = False
        self.voice_end: float | None = None  # end of the last speech frame (stream seconds)
        self.quiet = 0  # frames since the last speech frame or reset
        self.runs: deque[list[float]] = deque()  # [start, end] of the runs of speech frames in the last HISTORY_S

    @property
    def decided_until(self) -> float:
        """The stream time up to which frames have been decided."""
        return self.frames * FRAME / SAMPLE_RATE

    def accept(self, audio: np.ndarray) -> None:
        """Decide every whole frame of audio (what is left over waits for the next piece)."""
        audio = np.concatenate([self.pending, audio.astype(np.float32)])
        whole = len(audio) // FRAME * FRAME
        for start in range(0, whole, FRAME):
            self._frame(audio[start : start + FRAME])
        self.pending = audio[whole:]

    def _frame(self, frame: np.ndarray) -> None:
        if self.quiet >= RESET_FRAMES:
            self.state, self.quiet = np.zeros_like(self.state), 0
        x = np.concatenate([self.context, frame])[None]
        out, self.state = self.session.run(
            None, {"input": x, "state": self.state, "sr": np.array(SAMPLE_RATE, np.int64)}
        )
        self.context = frame[-CONTEXT:]
        self.frames += 1
        p = float(out[0, 0])
        self.speaking = p >= SPEECH or (self.speaking and p >= SILENCE)
        self.quiet = 0 if self.speaking else self.quiet + 1
        if self.speaking:
            start = self.decided_until - FRAME / SAMPLE_RATE
            if self.runs and self.runs[-1][1] >= start:
                self.runs[-1][1] = self.decided_until
            else:
                self.runs.append([start, self.decided_until])
                while self.runs[0][1] < start - HISTORY_S:
                    self.runs.popleft()
            self.voice_end = self.decided_until

    def speech_since(self, time: float) -> bool:
        """Whether any speech ended after time (stream seconds)."""
        return self.voice_end is not None and self.voice_end > time

    def runs_between(self, start: float, end: float) -> list[tuple[float, float]]:
        """The runs of speech between start and end, cut to them, in order (stream seconds)."""
        runs = []
        for a, b in reversed(self.runs):
            if b <= start:
                break
            if min(b, end) > max(a, start):
                runs.append((max(a, start), min(b, end)))
        return runs[::-1]

    def speech_between(self, start: float, end: float) -> float:
        """Seconds of speech between start and end (stream seconds)."""
        return sum(b - a for a, b in self.runs_between(start, end))

    def last_speech_from(self, end: float, seconds: float) -> float | None:
        """Where the last `seconds` of speech before end begin (stream seconds); None when less was heard."""
        left = seconds
        for a, b in reversed(self.runs):
            b = min(b, end)
            if b <= a:
                continue
            if b - a >= left:
                return b - left
            left -= b - a
        return None

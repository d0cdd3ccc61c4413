"""Offline whole-file transcription with word timestamps: Whisper's 30 s windows with seeking."""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine.stream.round import Transcriber, Word
from engine.decoder.options import TIME_PRECISION
from engine.audio.files import SAMPLE_RATE
WINDOW = 30 * SAMPLE_RATE


def transcribe_audio(
    transcriber: Transcriber, audio: np.ndarray, progress: Callable[[float], None] | None = None
) -> list[Word]:
    """Words of the whole audio on its own clock, each window prompted with the text before it."""
    words: list[Word] = []
    seek = 0
    ts_begin = transcriber.tokenizer.timestamp_begin
    while seek < len(audio) - SAMPLE_RATE // 10:
        window = audio[seek : seek + WINDOW]
        offset = seek / SAMPLE_RATE
        prompt = " ".join(w.text.strip() for w in words[-60:])
        result = transcriber.transcribe(window, prompt[-200:])
        tokens = result.tokens
        single_end = len(tokens) >= 1 and tokens[-1] >= ts_begin and (len(tokens) < 2 or tokens[-2] < ts_begin)
        pairs = [i for i in range(1, len(tokens)) if tokens[i] >= ts_begin and tokens[i - 1] >= ts_begin]
        if len(window) < WINDOW or single_end or not pairs:
            advance = len(window)
            keep = result.segments
        else:
            advance = int((tokens[pairs[-1]] - ts_begin) * TIME_PRECISION * SAMPLE_RATE)
            end_s = advance / SAMPLE_RATE
            keep = [s for s in result.segments if s.end <= end_s + 1e-6]
            advance = advance or len(window)
        for segment in keep:
            words.extend(Word(w.text.strip(), w.start + offset, w.end + offset, w.probability) for w in segment.words if w.text.strip())
        seek += advance
        if progress:
            progress(min(1.0, seek / len(audio)))
    return words

"""What word timing needs from mlx-whisper's timing.py, in numpy alone.

mlx_whisper.timing imports numba (for its DTW) and scipy.signal (for one median filter) at module level; the
engine has its own DTW (engine/decoder/word_timing.py), so these three pieces live here and the app bundle
carries neither numba, llvmlite nor scipy.signal. Adapted from mlx-whisper (MIT, Apple) / openai-whisper (MIT).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.session.words import Word


@dataclass
class WordTiming:
    """Word timing's working record of one tokenizer word: its tokens, which merging punctuation and joining pieces
    move between records (emptying some), and its times in the buffer. What leaves word timing is a Word."""

    word: str
    tokens: list[int]
    start: float
    end: float
    probability: float

    def to_word(self) -> Word:
        """The Word it times, to 10 ms (as openai-whisper rounds)."""
        return Word(self.word, round(float(self.start), 2), round(float(self.end), 2), float(self.probability))


def median_filter(x: np.ndarray, filter_width: int) -> np.ndarray:
    """A median filter of odd width along the last axis, the edges reflected (as openai-whisper's).

    The window's values are sorted by an odd-even transposition network of elementwise min/max over
    shifted copies, and the middle one taken: many times faster than np.median over a sliding view."""
    pad_width = filter_width // 2
    if x.shape[-1] <= pad_width:
        return x
    if filter_width <= 0 or filter_width % 2 == 0:
        raise ValueError("filter_width should be an odd number")
    padded = np.pad(x.astype(np.float32), [(0, 0)] * (x.ndim - 1) + [(pad_width, pad_width)], mode="reflect")
    n = x.shape[-1]
    window = [padded[..., k : k + n] for k in range(filter_width)]
    for sweep in range(filter_width):
        for k in range(sweep % 2, filter_width - 1, 2):
            window[k], window[k + 1] = np.minimum(window[k], window[k + 1]), np.maximum(window[k], window[k + 1])
    return np.ascontiguousarray(window[pad_width])


def merge_punctuations(alignment: list[WordTiming], prepended: str, appended: str) -> None:
    """Attach opening punctuation to the following word and closing punctuation to the previous one."""
    i, j = len(alignment) - 2, len(alignment) - 1
    while i >= 0:
        previous, following = alignment[i], alignment[j]
        if previous.word.startswith(" ") and previous.word.strip() in prepended:
            following.word = previous.word + following.word
            following.tokens = previous.tokens + following.tokens
            previous.word, previous.tokens = "", []
        else:
            j = i
        i -= 1
    i, j = 0, 1
    while j < len(alignment):
        previous, following = alignment[i], alignment[j]
        if not previous.word.endswith(" ") and following.word in appended:
            previous.word = previous.word + following.word
            previous.tokens = previous.tokens + following.tokens
            following.word, following.tokens = "", []
        else:
            i = j
        j += 1


def add_word_timestamps(**_kwargs):
    """Stands in for mlx_whisper.timing's in the app bundle, where mlx_whisper.transcribe is never called."""
    raise RuntimeError(
        "mlx_whisper's word timestamps are not in this build; the engine times words itself "
        "(engine/decoder/word_timing.py)"
    )


# Languages whose words the tokenizer splits without spaces (mlx_whisper.tokenizer.split_to_word_tokens).
_UNSPACED = {"zh", "ja", "th", "lo", "my", "yue"}


def join_word_pieces(alignment: list[WordTiming], language: str | None) -> None:
    """Join a piece that does not start with a space to the word before it, as the tokenizer spells the text.

    The tokenizer starts a new word at punctuation, so "self-substantial" comes out as " self" and
    "-substantial"; shown with a space between words that read "self -substantial". In languages written
    without spaces every piece lacks one, and nothing is joined.
    """
    if language in _UNSPACED:
        return
    previous = None
    for timing in alignment:
        if not timing.word:
            continue
        if previous is not None and not timing.word.startswith(" ") and previous.word.strip():
            count = len(previous.tokens) + len(timing.tokens)
            previous.probability = (
                previous.probability * len(previous.tokens) + timing.probability * len(timing.tokens)
            ) / max(1, count)
            previous.word += timing.word
            previous.tokens = previous.tokens + timing.tokens
            previous.end = timing.end
            timing.word, timing.tokens = "", []
            continue
        previous = timing

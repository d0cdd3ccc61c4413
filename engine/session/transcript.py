"""A session's transcript (its words plus where they came from) and how its words group into cues/lines."""
from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engine.session.words import Word

_SENTENCE_END = re.compile(r"[.?!…。？！][\"'”’)\]]*$")


def now_iso() -> str:
    """The local time now as ISO 8601 with its UTC offset, to the second."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def new_session_id(started_at: str) -> str:
    """A sortable, unique session id from an ISO start time: ``20250314-093005-1a2b3c``."""
    stamp = datetime.fromisoformat(started_at).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class SessionMeta:
    """Where a session's words come from: its id, local start time (ISO 8601), source and model names."""

    session_id: str
    started_at: str
    source: str
    model: str

    @classmethod
    def new(cls, source: str, model: str) -> SessionMeta:
        """Metadata for a session starting now."""
        started_at = now_iso()
        return cls(new_session_id(started_at), started_at, source, model)


@dataclass
class Transcript:
    """The confirmed words of one session, with times in seconds from the session's start."""

    session_id: str
    started_at: str
    source: str
    model: str
    words: list[Word] = field(default_factory=list)

    @classmethod
    def from_meta(cls, meta: SessionMeta, words: Sequence[Word] = ()) -> Transcript:
        return cls(meta.session_id, meta.started_at, meta.source, meta.model, list(words))

    @property
    def meta(self) -> SessionMeta:
        return SessionMeta(self.session_id, self.started_at, self.source, self.model)

    @property
    def duration_s(self) -> float:
        """End of the last word (0 when there are none)."""
        return max((w.end for w in self.words), default=0.0)

    @property
    def text(self) -> str:
        return join_words(self.words)

    def select_words(self, start: int, stop: int) -> Transcript:
        """A copy holding words[start:stop] (word indices, as a Python slice), times unchanged."""
        if start < 0 or stop < start:
            raise ValueError(f"invalid word range {start}:{stop}")
        return Transcript(self.session_id, self.started_at, self.source, self.model, self.words[start:stop])

    def select_time(self, start_s: float, end_s: float) -> Transcript:
        """A copy holding the words that overlap [start_s, end_s) seconds, times unchanged."""
        if end_s < start_s:
            raise ValueError(f"invalid time range {start_s}–{end_s} s")
        words = [w for w in self.words if w.end > start_s and w.start < end_s]
        return Transcript(self.session_id, self.started_at, self.source, self.model, words)


def join_words(words: Sequence[Word]) -> str:
    """The words as running text, one space between them."""
    return " ".join(w.text.strip() for w in words if w.text.strip())


def ends_sentence(text: str) -> bool:
    """Whether a word ends with sentence-ending punctuation (closing quotes/brackets allowed after it)."""
    return bool(_SENTENCE_END.search(text.strip()))


@dataclass(frozen=True)
class CueLimits:
    """When a cue/line ends: after a sentence, before a pause longer than max_pause_s, or before it would
    exceed max_chars characters or max_s seconds (a single word longer than that still gets its own cue)."""

    max_chars: int = 42
    max_s: float = 7.0
    max_pause_s: float = 1.0


SUBTITLE_LIMITS = CueLimits(42, 7.0, 1.0)
"""Subtitles (SRT/WebVTT): one line of at most 42 characters and 7 seconds."""

LINE_LIMITS = CueLimits(400, 60.0, 1.0)
"""Reading lines (TXT/Markdown/transcript view): a sentence, or what was said up to a pause."""


@dataclass(frozen=True)
class Cue:
    """Consecutive words shown together; words[first:stop] of the list they came from."""

    words: tuple[Word, ...]
    first: int
    stop: int

    @property
    def start(self) -> float:
        return self.words[0].start

    @property
    def end(self) -> float:
        return max(self.words[-1].end, self.start)

    @property
    def text(self) -> str:
        return join_words(self.words)


def group_cues(words: Sequence[Word], limits: CueLimits = SUBTITLE_LIMITS) -> list[Cue]:
    """Split words (in time order) into cues by sentence ends, pauses and the length limits."""
    cues: list[Cue] = []
    current: list[Word] = []
    first = last = 0
    chars = 0
    for i, word in enumerate(words):
        text = word.text.strip()
        if not text:
            continue
        if current:
            too_long = chars + 1 + len(text) > limits.max_chars
            too_slow = word.end - current[0].start > limits.max_s
            paused = word.start - current[-1].end > limits.max_pause_s
            if too_long or too_slow or paused or ends_sentence(current[-1].text):
                cues.append(Cue(tuple(current), first, last + 1))
                current = []
        if current:
            chars += 1 + len(text)
        else:
            first, chars = i, len(text)
        current.append(word)
        last = i
    if current:
        cues.append(Cue(tuple(current), first, last + 1))
    return cues

"""A session's transcript (its words plus where they came from) and how its words group into subtitle cues."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from engine.session.words import Word

_SENTENCE_END = re.compile(r"[.?!…。？！][\"'”’)\]]*$")
_ABBREVIATIONS = frozenset({"etc", "vs", "cf", "al", "approx", "ca"})  # a period that ends no sentence


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
    """The words as running text, one space between them, periods settled (settle_periods)."""
    return " ".join(settle_periods([w.text.strip() for w in words if w.text.strip()]))


def contradicted_period(text: str, following: str) -> bool:
    """Whether the period closing text is no sentence end, as the word after it goes on in lower case.

    A round whose audio ends where the speaker draws breath often ends its text there with a period ("represented
    in the exhibition."), and `flow` may confirm that word before any round has heard on; the rounds after it go on
    in lower case ("in being comparatively modern"). Abbreviations keep theirs ("etc.", "i.e.")."""
    stem = text.strip()
    if not stem.endswith(".") or "." in stem[:-1] or stem[:-1].lower().lstrip("\"'“‘([") in _ABBREVIATIONS:
        return False
    letter = next((c for c in following if c.isalpha()), "")
    return letter.islower()


def sentence_start(text: str) -> str:
    """text with its first letter in upper case, where every letter of it is lower case: a stream's first word
    begins its transcript ("printing" → "Printing", "'tis" → "'Tis"; "iPhone", "42" stay as they are)."""
    first = next((i for i, c in enumerate(text) if c.isalpha()), None)
    if first is None or not text.islower():
        return text
    return text[:first] + text[first].upper() + text[first + 1 :]


def settle_periods(texts: Sequence[str]) -> list[str]:
    """texts (words in order) with a comma for each period that the next non-empty word contradicts
    (contradicted_period): the round heard a break there, and the sentence goes on. Captions, text and exports
    show words this way; journals and the JSONL keep them as the model said them."""
    out = list(texts)
    following = ""
    for i in range(len(out) - 1, -1, -1):
        if contradicted_period(out[i], following):
            out[i] = out[i].rstrip()[:-1] + ","
        if out[i].strip():
            following = out[i]
    return out


def settled(words: Sequence[Word]) -> list[Word]:
    """words with their periods settled (settle_periods), times and probabilities unchanged."""
    texts = settle_periods([w.text for w in words])
    return [w if t == w.text else replace(w, text=t) for w, t in zip(words, texts)]


def ends_sentence(text: str) -> bool:
    """Whether a word ends with sentence-ending punctuation (closing quotes/brackets allowed after it)."""
    return bool(_SENTENCE_END.search(text.strip()))


# --- subtitles (SRT/WebVTT) --------------------------------------------------------------------------------------
LINE_CHARS = 42  # a subtitle line
CUE_LINES = 2  # lines per cue
MIN_CUE_S = 1.0  # shortest time on screen (a cue is never a 20 ms flash; it never overlaps the next one)
MAX_CUE_S = 7.0
_PHRASE_END = re.compile(r"[,;:—–.?!…。？！、，][\"'”’)\]]*$")


@dataclass(frozen=True)
class SubtitleCue:
    """One subtitle: words[first:stop], shown from start to end, as at most CUE_LINES lines of LINE_CHARS."""

    words: tuple[Word, ...]
    first: int
    stop: int
    start: float
    end: float
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _ends_phrase(text: str) -> bool:
    return bool(_PHRASE_END.search(text.strip()))


def wrap_lines(words: Sequence[str], width: int = LINE_CHARS) -> list[str]:
    """Words as lines of at most width characters: one line when it fits, else two split at the phrase end
    nearest the middle (else the most even split), more only for text longer than two lines."""
    text = " ".join(words)
    if len(text) <= width or len(words) < 2:
        return [text]
    best = None
    for i in range(1, len(words)):
        head, tail = " ".join(words[:i]), " ".join(words[i:])
        if len(head) > width or len(tail) > width:
            continue
        score = abs(len(head) - len(tail)) - (30 if _ends_phrase(words[i - 1]) else 0)
        if best is None or score < best[0]:
            best = (score, [head, tail])
    if best is not None:
        return best[1]
    lines, current = [], []
    for word in words:  # longer than two lines: fill greedily (group_subtitles never makes such cues)
        if current and len(" ".join(current + [word])) > width:
            lines.append(" ".join(current))
            current = []
        current.append(word)
    return lines + [" ".join(current)]


def _fits(words: Sequence[Word], max_s: float = MAX_CUE_S) -> bool:
    texts = [w.text.strip() for w in words]
    return (
        len(wrap_lines(texts)) <= CUE_LINES
        and all(len(line) <= LINE_CHARS for line in wrap_lines(texts))
        and max(w.end for w in words) - words[0].start <= max_s
    )


def subtitle_cues(words: Sequence[Word], max_pause_s: float = 1.0) -> list[SubtitleCue]:
    """Subtitles for words (in time order): at most two lines of 42 characters and 7 s each, ending at
    sentence ends and pauses, and, when a sentence is too long for one cue, at the phrase end (comma, colon…)
    that leaves the fullest cue; no cue of one word where a neighbour can take it; at least MIN_CUE_S on screen
    unless the next cue starts sooner."""
    indexed = [(i, w) for i, w in enumerate(settled(words)) if w.text.strip()]
    # 1. Runs that must not share a cue: sentences, and speech between pauses.
    runs: list[list[tuple[int, Word]]] = []
    for i, w in indexed:
        if runs and not ends_sentence(runs[-1][-1][1].text) and w.start - runs[-1][-1][1].end <= max_pause_s:
            runs[-1].append((i, w))
        else:
            runs.append([(i, w)])
    # 2. Each run into cues, preferring to break at phrase ends.
    groups: list[list[tuple[int, Word]]] = []
    for run in runs:
        rest = run
        while rest:
            if _fits([w for _, w in rest]):
                groups.append(rest)
                break
            longest = 1
            while longest < len(rest) and _fits([w for _, w in rest[: longest + 1]]):
                longest += 1
            cut = next(
                (k for k in range(longest, max(1, longest // 2) - 1, -1) if _ends_phrase(rest[k - 1][1].text)), longest
            )
            if len(rest) - cut == 1 and cut > 1:  # never leave one word alone at the end of a sentence
                cut -= 1
            groups.append(rest[:cut])
            rest = rest[cut:]
    # 3. A lone word joins a neighbour that can take it (the nearer one in time first).
    merged = True
    while merged:
        merged = False
        for k, group in enumerate(groups):
            if len(group) != 1 or len(groups) == 1:
                continue
            options = []
            if k > 0:
                options.append((group[0][1].start - groups[k - 1][-1][1].end, k - 1))
            if k + 1 < len(groups):
                options.append((groups[k + 1][0][1].start - group[0][1].end, k + 1))
            for _gap, other in sorted(options):
                joined = groups[other] + group if other < k else group + groups[other]
                if _fits([w for _, w in joined], MAX_CUE_S + 1.0):
                    groups[min(k, other)] = joined
                    del groups[max(k, other)]
                    merged = True
                    break
            if merged:
                break
    # 4. Times: at least MIN_CUE_S, never into the next cue.
    cues = []
    for k, group in enumerate(groups):
        ws = tuple(w for _, w in group)
        start = ws[0].start
        end = max(max(w.end for w in ws), start)
        following = groups[k + 1][0][1].start if k + 1 < len(groups) else None
        end = max(end, start + MIN_CUE_S)
        if following is not None and following > start:
            end = min(end, following)
        end = max(end, start + 0.001)
        cues.append(
            SubtitleCue(ws, group[0][0], group[-1][0] + 1, start, end, tuple(wrap_lines([w.text.strip() for w in ws])))
        )
    return cues

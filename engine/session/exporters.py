"""Export a transcript, or a selection of it, as TXT, SRT, WebVTT, JSON or Markdown.

SRT is composed with the `srt` package and WebVTT with `webvtt-py`, so both read back with standard parsers.
Files are written atomically (engine.runtime.safe_write): a full disk raises DiskFullError and leaves no partial file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import srt
import webvtt

from engine.errors import WhisperFlowError
from engine.runtime.safe_write import write_file_atomic
from engine.session.paragraphs import paragraphs
from engine.session.transcript import Transcript, settled, subtitle_cues
from engine.session.turns import labelled, speaker_turns

FORMATS = ("txt", "srt", "vtt", "json", "md")
FORMAT_NAMES = {
    "txt": "Plain text",
    "srt": "SubRip subtitles",
    "vtt": "WebVTT subtitles",
    "json": "JSON",
    "md": "Markdown",
}
_SUFFIXES = {".txt": "txt", ".srt": "srt", ".vtt": "vtt", ".json": "json", ".md": "md", ".markdown": "md"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def format_for_path(path: str | os.PathLike) -> str:
    """The export format a file name asks for, by its suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise WhisperFlowError(
            f"Cannot tell which format to export from the name '{Path(path).name}': "
            "end it in .txt, .srt, .vtt, .json or .md."
        )
    return _SUFFIXES[suffix]


def export_target(path: str | os.PathLike, chosen_fmt: str) -> tuple[Path, str]:
    """Where to write and in which format, for a name a person gave and the format they chose in the dialog.

    A name that ends in an export suffix (.txt, .srt, .vtt, .json, .md, .markdown) keeps it and its format;
    any other name keeps its dots ("Call 1.5 notes") and gets chosen_fmt's suffix added.
    """
    path = Path(path)
    fmt = _SUFFIXES.get(path.suffix.lower())
    if fmt is not None:
        return path, fmt
    return path.with_name(f"{path.name}.{chosen_fmt}"), chosen_fmt


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def _cue_ms(cue) -> tuple[int, int]:
    """Start and end in milliseconds; at least 1 ms long (subtitle readers drop empty cues)."""
    start = _ms(cue.start)
    return start, max(_ms(cue.end), start + 1)


def _clock(ms: int, sep: str = ".") -> str:
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{sep}{millis:03d}"


def short_clock(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss`` for a time in seconds."""
    minutes, secs = divmod(int(max(0.0, seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _said(turn) -> str:
    return " ".join(w.text for w in settled(turn.words))


def _turn_text(transcript: Transcript) -> str:
    """A call's turns, one a line: "You: …" / "Them: …", ordered by time across the two sides."""
    return "".join(f"{t.label}: {_said(t)}\n" for t in speaker_turns(transcript.words))


def _labelled_cues(transcript: Transcript) -> list[tuple[str | None, object]]:
    """Subtitle cues and who speaks in each (None: a one-source session); a call's cues never mix its sides."""
    if not labelled(transcript.words):
        return [(None, cue) for cue in subtitle_cues(transcript.words)]
    cues = [(t.label, cue) for t in speaker_turns(transcript.words) for cue in subtitle_cues(t.words)]
    return sorted(cues, key=lambda c: c[1].start)


def to_txt(transcript: Transcript) -> str:
    """One line per paragraph (engine.session.paragraphs), its start time first ("0:12  text"), a blank line
    between paragraphs; a call's, one line per turn ("You: …")."""
    if labelled(transcript.words):
        return _turn_text(transcript)
    return "\n".join(f"{short_clock(p.start)}  {p.text}\n" for p in paragraphs(transcript.words))


def to_srt(transcript: Transcript) -> str:
    """A call's cues start with who speaks ("You: …")."""
    subtitles = []
    for i, (label, cue) in enumerate(_labelled_cues(transcript), start=1):
        start, end = _cue_ms(cue)
        text = cue.text if label is None else f"{label}: {cue.text}"
        subtitles.append(srt.Subtitle(i, timedelta(milliseconds=start), timedelta(milliseconds=end), text))
    return srt.compose(subtitles)


def _vtt_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_vtt(transcript: Transcript) -> str:
    """A call's cues carry voice tags (``<v You>``)."""
    captions = []
    for label, cue in _labelled_cues(transcript):
        start, end = _cue_ms(cue)
        text = _vtt_escape(cue.text) if label is None else f"<v {label}>{_vtt_escape(cue.text)}"
        captions.append(webvtt.Caption(_clock(start), _clock(end), text))
    return webvtt.WebVTT(captions=captions).content


def to_json(transcript: Transcript) -> str:
    """Session metadata, the full text, and every word with start/end seconds and confidence (0–1)."""
    head = {
        "session_id": transcript.session_id,
        "started_at": transcript.started_at,
        "source": transcript.source,
        "model": transcript.model,
        "duration_s": round(transcript.duration_s, 3),
        "text": transcript.text,
    }
    words = [
        json.dumps(
            {
                "text": w.text,
                "start": round(float(w.start), 3),
                "end": round(float(w.end), 3),
                "confidence": round(float(w.probability), 4),
                **({"speaker": w.speaker} if w.speaker is not None else {}),
            },
            ensure_ascii=False,
        )
        for w in settled(transcript.words)
    ]
    body = ",".join(f"\n    {w}" for w in words) + ("\n  " if words else "")  # one word per line
    return json.dumps(head, ensure_ascii=False, indent=2)[:-2] + f',\n  "words": [{body}]\n}}\n'


def _md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _heading_time(started_at: str) -> str:
    try:
        return datetime.fromisoformat(started_at).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return started_at


def to_markdown(transcript: Transcript) -> str:
    """A heading with the session's details, then the paragraphs (engine.session.paragraphs), each after its start
    time."""
    lines = [
        f"# Transcript, {_heading_time(transcript.started_at)}",
        "",
        f"- **Source:** {_md_escape(transcript.source)}",
        f"- **Model:** {_md_escape(transcript.model)}",
        f"- **Started:** {transcript.started_at}",
        f"- **Duration:** {short_clock(transcript.duration_s)}",
        "",
    ]
    if labelled(transcript.words):
        for t in speaker_turns(transcript.words):
            lines += [f"**[{short_clock(t.start)}] {t.label}:** {_md_escape(_said(t))}", ""]
        return "\n".join(lines)
    for paragraph in paragraphs(transcript.words):
        lines += [f"**[{short_clock(paragraph.start)}]** {_md_escape(paragraph.text)}", ""]
    return "\n".join(lines)


RENDERERS: dict[str, Callable[[Transcript], str]] = {
    "txt": to_txt,
    "srt": to_srt,
    "vtt": to_vtt,
    "json": to_json,
    "md": to_markdown,
}


def render(transcript: Transcript, fmt: str) -> str:
    """The transcript as text in one of FORMATS."""
    if fmt not in RENDERERS:
        raise WhisperFlowError(f"Unknown export format '{fmt}': choose one of {', '.join(FORMATS)}.")
    return RENDERERS[fmt](transcript)


def select(
    transcript: Transcript, word_range: tuple[int, int] | None = None, time_range: tuple[float, float] | None = None
) -> Transcript:
    """The whole transcript, or the words in word_range (start, stop indices) or time_range (seconds)."""
    if word_range is not None and time_range is not None:
        raise ValueError("give a word range or a time range, not both")
    if word_range is None and time_range is None:
        return transcript
    part = transcript.select_words(*word_range) if word_range is not None else transcript.select_time(*time_range)
    if not part.words:
        raise WhisperFlowError("The selection holds no words: there is nothing to export.")
    return part


def export(
    transcript: Transcript,
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    word_range: tuple[int, int] | None = None,
    time_range: tuple[float, float] | None = None,
) -> Path:
    """Write the transcript (or a selection) to path; the format comes from fmt or else the file's suffix.

    Returns the path written. Raises DiskFullError on a full disk and WhisperFlowError for other problems
    (unknown format, empty selection, missing folder, no permission); the transcript is never modified.
    """
    fmt = fmt or format_for_path(path)
    text = render(select(transcript, word_range, time_range), fmt)
    return write_file_atomic(path, text.encode("utf-8"))

"""Session journals: every confirmed word is on disk (fsync'd) before append() returns, so no crash loses it.

Layout, one folder per session under ``data_dir() / "sessions"``::

    <session_id>/session.json    metadata, written when the session starts
    <session_id>/words.jsonl     one JSON object per confirmed word, appended and fsync'd per append() call, and
                                 one per utterance's final text ({"type": "final", ...}: engine.session.final_text)
    <session_id>/complete.json   written by close() (or mark_recovered()); a session without it crashed

A running journal holds an exclusive flock on its words file, so another process can tell a session that
is still being recorded from one whose process died (the kernel drops the lock with the process).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.errors import DiskFullError, WhisperFlowError
from engine.runtime import paths
from engine.runtime.safe_write import fsync_dir, is_disk_full, write_file_atomic
from engine.session.events import FinalEvent, final_from_record, word_from_record
from engine.session.final_text import SideTexts
from engine.session.transcript import SessionMeta, Transcript, join_words, now_iso
from engine.session.words import Word

SESSION_FILE = "session.json"
WORDS_FILE = "words.jsonl"
COMPLETE_FILE = "complete.json"
FORMAT_VERSION = 1
PREVIEW_CHARS = 100
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")
NEW_ID_ATTEMPTS = 8


class SessionExistsError(WhisperFlowError):
    """A journal folder with that session id is already there."""


def sessions_dir() -> Path:
    """Where journals live by default: the user data dir's ``sessions`` folder."""
    path = paths.data_dir() / "sessions"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _root(data_dir: str | os.PathLike | None) -> Path:
    return Path(data_dir) if data_dir is not None else sessions_dir()


def _session_path(data_dir: str | os.PathLike | None, session_id: str) -> Path:
    if not _SESSION_ID.match(session_id):
        raise WhisperFlowError(f"'{session_id}' is not a session id.")
    return _root(data_dir) / session_id


def _word_record(word: Word) -> dict:
    record = {
        "text": word.text,
        "start": round(float(word.start), 3),
        "end": round(float(word.end), 3),
        "probability": round(float(word.probability), 4),
    }
    return record if word.speaker is None else {**record, "speaker": word.speaker}


def _word_line(word: Word) -> str:
    return json.dumps(_word_record(word), ensure_ascii=False) + "\n"


def _final_line(final: FinalEvent) -> str:
    record = {
        "type": "final",
        "first": final.first,
        "count": final.count,
        "words": [_word_record(w) for w in final.words],
    }
    if final.speaker is not None:
        record["speaker"] = final.speaker
    return json.dumps(record, ensure_ascii=False) + "\n"


def _line(record: Word | FinalEvent) -> str:
    return _final_line(record) if isinstance(record, FinalEvent) else _word_line(record)


def _parse_line(line: bytes) -> Word | FinalEvent | None:
    """The word or final text on one journal line, or None for a torn or damaged line."""
    try:
        r = json.loads(line)
        if r.get("type") == "final":
            return final_from_record(r)
        return word_from_record(r)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def read_words(path: Path) -> list[Word]:
    """Every intact word in a words file, each utterance's final text in place of its confirmed words where it
    was saved (a call's per side, its turns in order); a line torn by a crash (or otherwise damaged) is skipped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    text = SideTexts()
    for line in data.splitlines():
        record = _parse_line(line) if line.strip() else None
        if isinstance(record, FinalEvent):
            text.apply(record)
        elif record is not None:
            text.confirm([record])
    return text.words


def _disk_full(root: Path, pending: int) -> DiskFullError:
    kept = f" {pending} confirmed words are kept in memory and saved as soon as there is space." if pending else ""
    return DiskFullError(
        f"The disk holding {root} is full, so the transcript cannot be saved.{kept} Free some disk space."
    )


def _start_error(root: Path, error: Exception) -> WhisperFlowError:
    if isinstance(error, DiskFullError) or (isinstance(error, OSError) and is_disk_full(error)):
        return _disk_full(root, 0)
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return WhisperFlowError(f"Cannot start the session journal in {root}: {reason}.")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@dataclass(frozen=True)
class SessionInfo:
    """A saved session as the session list shows it."""

    session_id: str
    started_at: str
    source: str
    model: str
    word_count: int
    duration_s: float
    complete: bool  # closed normally, or recovered after a crash
    recovered: bool  # completed by mark_recovered() after a crash
    recording: bool  # a live process is still appending to it
    ended_at: str | None
    preview: str  # the first words
    path: Path


class SessionJournal:
    """Appends a session's confirmed words to disk as they arrive. Thread-safe; use SessionJournal.create()."""

    def __init__(self, meta: SessionMeta, path: Path, fd: int):
        self.meta = meta
        self.path = path
        self._fd = fd
        self._size = os.fstat(fd).st_size
        self._lock = threading.Lock()
        self._pending: list[Word | FinalEvent] = []
        self._text = SideTexts()  # the words on disk with their final texts applied
        self._word_count = 0
        self._duration_s = 0.0
        self._closed = False

    @classmethod
    def start(cls, data_dir: str | os.PathLike | None, source: str, model: str) -> SessionJournal:
        """Journal a session starting now under a fresh id (drawn again if one is already taken)."""
        for _ in range(NEW_ID_ATTEMPTS - 1):
            try:
                return cls.create(data_dir, SessionMeta.new(source, model))
            except SessionExistsError:
                continue
        return cls.create(data_dir, SessionMeta.new(source, model))

    @classmethod
    def create(cls, data_dir: str | os.PathLike | None, meta: SessionMeta) -> SessionJournal:
        """Start the journal of a new session in data_dir (None: sessions_dir()).

        Raises SessionExistsError when meta's id is taken, DiskFullError when there is no space, and
        WhisperFlowError for other failures.
        """
        root = _root(data_dir)
        path = _session_path(root, meta.session_id)
        header = {
            "format": FORMAT_VERSION,
            "session_id": meta.session_id,
            "started_at": meta.started_at,
            "source": meta.source,
            "model": meta.model,
        }
        try:
            root.mkdir(parents=True, exist_ok=True)
            path.mkdir(mode=0o700)
        except FileExistsError as e:
            raise SessionExistsError(f"A session named {meta.session_id} already exists in {root}.") from e
        except OSError as e:
            raise _start_error(root, e) from e
        try:
            write_file_atomic(path / SESSION_FILE, json.dumps(header, ensure_ascii=False).encode("utf-8"))
            fd = os.open(path / WORDS_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except (OSError, WhisperFlowError) as e:
            shutil.rmtree(path, ignore_errors=True)
            raise _start_error(root, e) from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # a filesystem without flock: the session is still journaled, only not shown as recording
        fsync_dir(path)
        fsync_dir(root)
        return cls(meta, path, fd)

    @property
    def session_id(self) -> str:
        return self.meta.session_id

    @property
    def word_count(self) -> int:
        """Words safely on disk (each utterance's final text where it has one)."""
        return self._word_count

    @property
    def pending_count(self) -> int:
        """Words held in memory because the last write failed (saved by the next append or close)."""
        return sum(not isinstance(r, FinalEvent) for r in self._pending)

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, words: Iterable[Word], finals: Iterable[FinalEvent] = ()) -> None:
        """Write words, then utterances' final texts (engine.stream.finalize), and any still pending, to disk and
        fsync; when this returns they survive a crash. A final text is a line after the confirmed words it
        replaces, so a crash between the two keeps them.

        On a full disk raises DiskFullError and keeps every unwritten line in memory for the next call.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("append() on a closed session journal")
            self._pending.extend(words)
            self._pending.extend(finals)
            if self._pending:
                self._flush()

    def _flush(self) -> None:
        data = "".join(map(_line, self._pending)).encode("utf-8")
        try:
            _write_all(self._fd, data)
            os.fsync(self._fd)
        except OSError as e:
            try:  # drop a partial write, so the retry appends whole lines after the last good one
                os.ftruncate(self._fd, self._size)
            except OSError:
                pass
            if is_disk_full(e):
                raise _disk_full(self.path.parent, self.pending_count) from e
            raise WhisperFlowError(
                f"Cannot write the session journal {self.path}: {e.strerror or e}. "
                f"{self.pending_count} confirmed words are kept in memory."
            ) from e
        self._size += len(data)
        self._note_saved(self._pending)
        self._pending.clear()

    def _note_saved(self, records: Sequence[Word | FinalEvent]) -> None:
        for record in records:
            if isinstance(record, FinalEvent):
                if self._text.apply(record):
                    self._word_count += len(record.words) - record.count
            else:
                self._text.confirm([record])
                self._word_count += 1
                self._duration_s = max(self._duration_s, float(record.end))

    def close(self) -> None:
        """Save pending words and mark the session complete (idempotent).

        If the pending words cannot be saved (DiskFullError) the journal stays open: free space, call again.
        """
        with self._lock:
            if self._closed:
                return
            if self._pending:
                self._flush()
            stats = {
                "ended_at": now_iso(),
                "word_count": self._word_count,
                "duration_s": round(self._duration_s, 3),
                "preview": join_words(self._text.words)[:PREVIEW_CHARS],
                "recovered": False,
            }
            try:
                write_file_atomic(self.path / COMPLETE_FILE, json.dumps(stats, ensure_ascii=False).encode("utf-8"))
            except DiskFullError as e:
                raise _disk_full(self.path.parent, 0) from e
            os.close(self._fd)  # releases the flock
            self._closed = True

    def __enter__(self) -> SessionJournal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read_json(path: Path) -> dict | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _is_recording(path: Path) -> bool:
    """Whether a live process holds the session's journal lock."""
    try:
        fd = os.open(path / WORDS_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _info(path: Path) -> SessionInfo | None:
    meta = _read_json(path / SESSION_FILE)
    if meta is None or "session_id" not in meta:
        return None
    done = _read_json(path / COMPLETE_FILE)
    if done is None:
        words = read_words(path / WORDS_FILE)
        done = {
            "word_count": len(words),
            "duration_s": max((w.end for w in words), default=0.0),
            "preview": join_words(words)[:PREVIEW_CHARS],
            "ended_at": None,
        }
        complete = False
    else:
        complete = True
    return SessionInfo(
        session_id=str(meta["session_id"]),
        started_at=str(meta.get("started_at", "")),
        source=str(meta.get("source", "")),
        model=str(meta.get("model", "")),
        word_count=int(done.get("word_count", 0)),
        duration_s=float(done.get("duration_s", 0.0)),
        complete=complete,
        recovered=bool(done.get("recovered", False)),
        recording=not complete and _is_recording(path),
        ended_at=done.get("ended_at"),
        preview=str(done.get("preview", "")),
        path=path,
    )


def _start_key(info: SessionInfo) -> tuple[float, str]:
    try:
        return datetime.fromisoformat(info.started_at).timestamp(), info.session_id
    except ValueError:
        return 0.0, info.session_id


def list_sessions(data_dir: str | os.PathLike | None = None) -> list[SessionInfo]:
    """Every saved session, newest first (folders that are not sessions are ignored)."""
    root = _root(data_dir)
    if not root.is_dir():
        return []
    infos = [info for p in root.iterdir() if p.is_dir() and (info := _info(p)) is not None]
    return sorted(infos, key=_start_key, reverse=True)


def unfinished_sessions(data_dir: str | os.PathLike | None = None) -> list[SessionInfo]:
    """Sessions whose process ended without closing them (a crash), newest first: offer to recover these.

    Sessions still being recorded by a live process are not included.
    """
    return [s for s in list_sessions(data_dir) if not s.complete and not s.recording]


def load_session(data_dir: str | os.PathLike | None, session_id: str) -> Transcript:
    """A saved session's transcript: every intact word, even when a crash tore the last line."""
    path = _session_path(data_dir, session_id)
    meta = _read_json(path / SESSION_FILE)
    if meta is None:
        raise WhisperFlowError(f"There is no saved session {session_id} in {path.parent}.")
    return Transcript(
        str(meta.get("session_id", session_id)),
        str(meta.get("started_at", "")),
        str(meta.get("source", "")),
        str(meta.get("model", "")),
        read_words(path / WORDS_FILE),
    )


def mark_recovered(data_dir: str | os.PathLike | None, session_id: str) -> SessionInfo:
    """Mark a crashed session complete (so it is not offered for recovery again); its words stay as saved."""
    path = _session_path(data_dir, session_id)
    transcript = load_session(data_dir, session_id)
    if _is_recording(path):
        raise WhisperFlowError(f"Session {session_id} is still being recorded by a running WhisperFlow.")
    if not (path / COMPLETE_FILE).exists():
        stats = {
            "ended_at": now_iso(),
            "word_count": len(transcript.words),
            "duration_s": round(transcript.duration_s, 3),
            "preview": transcript.text[:PREVIEW_CHARS],
            "recovered": True,
        }
        write_file_atomic(path / COMPLETE_FILE, json.dumps(stats, ensure_ascii=False).encode("utf-8"))
    info = _info(path)
    if info is None:
        raise WhisperFlowError(f"Session {session_id} in {path.parent} is damaged.")
    return info


def delete_session(data_dir: str | os.PathLike | None, session_id: str) -> None:
    """Delete a saved session and its words for good."""
    path = _session_path(data_dir, session_id)
    if not (path / SESSION_FILE).exists():
        raise WhisperFlowError(f"There is no saved session {session_id} in {path.parent}.")
    if _is_recording(path):
        raise WhisperFlowError(f"Session {session_id} is still being recorded; stop it before deleting it.")
    try:
        shutil.rmtree(path)
    except OSError as e:
        raise WhisperFlowError(f"Cannot delete session {session_id}: {e.strerror or e}.") from e

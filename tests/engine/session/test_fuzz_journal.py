"""Fuzz (fixed seed): damaged session journals list and load, or raise WhisperFlowError, never another exception."""

import json
import os
import random

from engine.errors import WhisperFlowError
from engine.session.journal import SessionJournal, list_sessions, load_session, unfinished_sessions
from engine.session.words import Word

JUNK = [
    b"",
    b"{",
    b"null",
    b"[]",
    b"42",
    b'"x"',
    b'{"session_id": 5}',
    b'{"word_count": "many"}',
    b'{"word_count": null, "duration_s": "x"}',
    b'{"text": 1, "start": "a"}',
    b"\xff\xfe\x00garbage",
    b'{"text": "a", "start": NaN, "end": Infinity}',
    b'{"session_id": "s", "started_at": 12}',
]


def test_damaged_journals_never_raise_anything_else(tmp_path):
    rng = random.Random(15)
    root = tmp_path / "data"
    words = [Word(f"w{i}", i * 0.5, i * 0.5 + 0.4, 0.9) for i in range(20)]
    ids = []
    for i in range(40):
        journal = SessionJournal.start(root, f"Session {i}", "tiny.en")
        meta = journal.meta
        journal.append(words)
        if i % 2:
            journal.close()
        else:
            os.close(journal._fd)  # a crash: no complete.json, the lock released
        folder = journal.path
        target = folder / rng.choice(["session.json", "words.jsonl", "complete.json"])
        data = bytearray(target.read_bytes() if target.exists() else b"{}")
        action = rng.choice(["junk", "flip", "truncate", "delete"])
        if action == "junk":
            data = bytearray(rng.choice(JUNK))
        elif action == "flip" and data:
            for _ in range(rng.randint(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif action == "truncate":
            data = data[: rng.randrange(len(data) + 1)]
        if action == "delete":
            target.unlink(missing_ok=True)
        else:
            target.write_bytes(bytes(data))
        ids.append(meta.session_id)
    listed = list_sessions(root)
    unfinished_sessions(root)
    for info in listed:  # a complete session counts what its complete.json recorded; a crashed one its intact words
        recorded = json.loads((info.path / "complete.json").read_bytes()) if info.complete else None
        intact = len(load_session(root, info.session_id).words)
        assert info.word_count == (recorded.get("word_count", 0) if info.complete else intact) <= len(words)
    for session_id in ids:
        try:
            transcript = load_session(root, session_id)
        except WhisperFlowError:
            continue
        json.dumps([w.text for w in transcript.words])

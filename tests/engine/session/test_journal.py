"""Session journals on real files: crash recovery (SIGKILL mid-session), torn lines, listing, deletion."""

import json
import signal
import subprocess
import sys

import pytest
from testdata import REPO

from engine.errors import WhisperFlowError
from engine.session import transcript
from engine.session.events import FinalEvent
from engine.session.journal import (
    COMPLETE_FILE,
    WORDS_FILE,
    SessionJournal,
    delete_session,
    list_sessions,
    load_session,
    mark_recovered,
    sessions_dir,
    unfinished_sessions,
)
from engine.session.transcript import SessionMeta
from engine.session.words import Word

WRITER = """
import sys
from engine.session.journal import SessionJournal
from engine.session.transcript import SessionMeta
from engine.session.words import Word

journal = SessionJournal.create(sys.argv[1], SessionMeta.new("Kill test", "tiny.en"))
print(journal.session_id, flush=True)
n = 0
while True:  # rounds of 1-4 confirmed words, back to back, until killed
    batch = [Word(f"w{n + k}", (n + k) * 0.25, (n + k) * 0.25 + 0.2, 0.75) for k in range(1 + n % 4)]
    journal.append(batch)
    n += len(batch)
    print(n, flush=True)  # only after append() returned
"""


def expected_word(i: int) -> Word:
    return Word(f"w{i}", round(i * 0.25, 3), round(i * 0.25 + 0.2, 3), 0.75)


def sample_words(n: int) -> list[Word]:
    return [Word(f"word{i}", i * 0.5, i * 0.5 + 0.4, 0.9) for i in range(n)]


@pytest.mark.parametrize("kill_after", [40, 400])
def test_sigkill_mid_session_loses_no_acknowledged_word(tmp_path, kill_after):
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    session_id = child.stdout.readline().strip()
    acked = 0
    while acked < kill_after:
        line = child.stdout.readline()
        assert line, f"writer exited early with {child.wait()}"
        acked = int(line)
    child.send_signal(signal.SIGKILL)  # mid-session, most likely mid-append
    rest = child.stdout.read().split()  # acknowledgements already in the pipe count too
    acked = max([acked, *map(int, rest)])
    assert child.wait() == -signal.SIGKILL

    [crashed] = unfinished_sessions(tmp_path)
    assert crashed.session_id == session_id and not crashed.complete and not crashed.recording
    assert crashed.word_count >= acked
    words = load_session(tmp_path, session_id).words
    assert len(words) >= acked
    assert words == [expected_word(i) for i in range(len(words))]  # every word intact, in order, no garbage

    info = mark_recovered(tmp_path, session_id)
    assert info.complete and info.recovered and info.word_count == len(words)
    assert unfinished_sessions(tmp_path) == []
    assert load_session(tmp_path, session_id).words == words


def test_torn_last_line_is_skipped(tmp_path):
    meta = SessionMeta.new("Mic", "tiny.en")
    with SessionJournal.create(tmp_path, meta) as journal:
        journal.append(sample_words(5))
    path = tmp_path / meta.session_id
    (path / COMPLETE_FILE).unlink()  # as if the process had died before close()
    with open(path / WORDS_FILE, "ab") as f:
        f.write(b'{"text": "half", "start": 2.5, "en')  # a crash in the middle of a line
    assert load_session(tmp_path, meta.session_id).words == sample_words(5)
    [info] = unfinished_sessions(tmp_path)
    assert info.word_count == 5 and info.duration_s == pytest.approx(2.4)


def test_append_close_list_and_load(tmp_path):
    meta = SessionMeta.new("USB microphone", "tiny.en")
    journal = SessionJournal.create(tmp_path, meta)
    journal.append(sample_words(3))
    journal.append([])  # a round that confirmed nothing
    journal.append([Word("word1", 2.0, 2.4, 0.9)])
    assert journal.word_count == 4 and journal.pending_count == 0

    [live] = list_sessions(tmp_path)
    assert live.recording and not live.complete and live.word_count == 4
    assert unfinished_sessions(tmp_path) == []  # a live session is not a crashed one
    with pytest.raises(WhisperFlowError, match="still being recorded"):
        delete_session(tmp_path, meta.session_id)

    journal.close()
    journal.close()  # idempotent
    with pytest.raises(RuntimeError):
        journal.append(sample_words(1))
    [done] = list_sessions(tmp_path)
    assert done.complete and not done.recording and not done.recovered and done.ended_at
    assert (done.source, done.model, done.started_at) == ("USB microphone", "tiny.en", meta.started_at)
    assert done.word_count == 4 and done.duration_s == pytest.approx(2.4)
    assert done.preview == "word0 word1 word2 word1"
    transcript = load_session(tmp_path, meta.session_id)
    assert transcript.meta == meta
    assert transcript.words == sample_words(3) + [Word("word1", 2.0, 2.4, 0.9)]


def test_sessions_listed_newest_first_and_deleted(tmp_path):
    starts = {
        "a": "2025-03-14T10:00:00+02:00",  # 08:00 UTC: the oldest despite its later local time
        "b": "2025-03-14T09:00:00+00:00",
        "c": "2025-03-15T07:30:00-05:00",
    }
    for name, started_at in starts.items():
        SessionJournal.create(tmp_path, SessionMeta(f"s-{name}", started_at, "mic", "tiny.en")).close()
    (tmp_path / "stray-folder").mkdir()
    (tmp_path / "stray-file.txt").write_text("not a session")
    assert [s.session_id for s in list_sessions(tmp_path)] == ["s-c", "s-b", "s-a"]

    delete_session(tmp_path, "s-b")
    assert [s.session_id for s in list_sessions(tmp_path)] == ["s-c", "s-a"]
    with pytest.raises(WhisperFlowError, match="no saved session"):
        load_session(tmp_path, "s-b")
    with pytest.raises(WhisperFlowError, match="not a session id"):
        load_session(tmp_path, "../s-a")
    with pytest.raises(WhisperFlowError, match="already exists"):
        SessionJournal.create(tmp_path, SessionMeta("s-a", starts["a"], "mic", "tiny.en"))
    assert list_sessions(tmp_path / "never-created") == []


def test_a_new_session_never_takes_an_existing_id(tmp_path, monkeypatch):
    draws = iter(["aaaaaa", "aaaaaa", "aaaaaa", "bbbbbb"])  # the same random suffix thrice, within one second
    monkeypatch.setattr(transcript.secrets, "token_hex", lambda n: next(draws))
    monkeypatch.setattr(transcript, "now_iso", lambda: "2025-03-14T09:30:05+00:00")
    first = SessionJournal.start(tmp_path, "mic", "tiny.en")
    second = SessionJournal.start(tmp_path, "mic", "tiny.en")
    first.close()
    second.close()
    assert (first.session_id, second.session_id) == ("20250314-093005-aaaaaa", "20250314-093005-bbbbbb")
    assert [s.source for s in list_sessions(tmp_path)] == ["mic", "mic"]


def test_default_location_is_the_user_data_dir(isolated_dirs):
    meta = SessionMeta.new("mic", "tiny.en")
    with SessionJournal.create(None, meta) as journal:
        journal.append(sample_words(2))
    assert sessions_dir() == isolated_dirs / "data" / "sessions"
    assert (sessions_dir() / meta.session_id / WORDS_FILE).exists()
    assert [s.session_id for s in list_sessions()] == [meta.session_id]
    lines = (sessions_dir() / meta.session_id / WORDS_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["word0", "word1"]
    assert oct((sessions_dir() / meta.session_id).stat().st_mode & 0o777) == oct(0o700)
    assert list_sessions()[0].complete


def test_a_finished_session_counts_and_previews_its_final_text(tmp_path):
    heard = [Word("Kick", 0.5, 0.8), Word("the", 0.8, 0.9), Word("boss", 0.9, 1.2), Word("shit.", 1.2, 1.8)]
    said = [Word("Kick", 0.5, 0.8), Word("the", 0.8, 0.9), Word("ball.", 0.9, 1.8)]
    with SessionJournal.start(tmp_path, "call.wav", "tiny.en") as journal:
        journal.append(heard)
        journal.append([], [FinalEvent(0, 4, said, 2.0)])
        assert journal.word_count == 3
    (info,) = list_sessions(tmp_path)
    assert info.word_count == 3 and info.preview == "Kick the ball."

"""Final texts applied to a stream's words (engine/session/final_text.py) and kept in the journal: a crash between an
utterance's confirmation and its final text keeps the confirmed words."""

import signal
import subprocess
import sys

from testdata import REPO

from engine.session.events import FinalEvent
from engine.session.final_text import FinalPlacer, FinalText
from engine.session.journal import WORDS_FILE, SessionJournal, load_session
from engine.session.transcript import SessionMeta
from engine.session.words import Word


def words(*texts: str, start: float = 0.0) -> list[Word]:
    return [Word(t, start + k, start + k + 0.5) for k, t in enumerate(texts)]


def saved(folder, session_id: str) -> str:
    return " ".join(w.text for w in load_session(folder, session_id).words)


def test_final_records_replace_their_utterances_and_later_words_stay():
    text = FinalText()
    text.confirm(words("kick", "the", "boss", "shit", "and", "then"))
    assert text.apply(FinalEvent(0, 4, words("Kick", "the", "ball", "straight."), 4.0))
    assert not text.apply(FinalEvent(0, 4, words("again"), 5.0))  # already applied: it no longer fits
    assert [w.text for w in text.words] == ["Kick", "the", "ball", "straight.", "and", "then"]
    assert text.lines() == ["Kick the ball straight.", "and then"]


def test_placer_finds_an_utterance_after_earlier_finals_changed_the_count_and_skips_one_scrolled_away():
    shown = ["a", "b", "c", "d", "e", "f"]
    placer = FinalPlacer()
    assert placer.apply(shown, FinalEvent(0, 2, words("A", "B", "B2"), 1.0), convert=lambda w: w.text)
    assert placer.apply(shown, FinalEvent(2, 3, words("C"), 2.0), convert=lambda w: w.text)
    assert shown == ["A", "B", "B2", "C", "f"]
    scrolled = shown[3:]  # the caption window forgot its first three words
    assert not FinalPlacer().apply(scrolled, FinalEvent(0, 2, words("x"), 3.0), dropped=3)
    assert FinalPlacer().apply(scrolled, FinalEvent(3, 1, words("Cee"), 3.0), dropped=3, convert=lambda w: w.text)
    assert scrolled == ["Cee", "f"]


def test_journal_applies_final_texts_and_keeps_confirmed_words_where_a_final_line_is_torn(tmp_path):
    with SessionJournal.create(tmp_path, SessionMeta.new("Mic", "tiny.en")) as journal:
        journal.append(words("kick", "the", "boss"), [])
        journal.append([], [FinalEvent(0, 3, words("Kick", "the", "ball."), 3.0)])
        journal.append(words("then", "wee", "went", start=4.0))
    path = tmp_path / journal.session_id / WORDS_FILE
    assert saved(tmp_path, journal.session_id) == "Kick the ball. then wee went"
    with path.open("ab") as f:  # a crash tore the next utterance's final line
        f.write(b'{"type": "final", "first": 3, "count": 3, "words": [{"text": "Then"')
    assert saved(tmp_path, journal.session_id) == "Kick the ball. then wee went"


WRITER = """
import sys, time
from engine.session.events import FinalEvent
from engine.session.journal import SessionJournal
from engine.session.transcript import SessionMeta
from engine.session.words import Word

journal = SessionJournal.create(sys.argv[1], SessionMeta.new("Kill test", "tiny.en"))
journal.append([Word("kick", 0, 1), Word("the", 1, 2), Word("boss", 2, 3)])
journal.append([], [FinalEvent(0, 3, [Word("Kick", 0, 1), Word("the", 1, 2), Word("ball.", 2, 3)], 3.0)])
journal.append([Word("then", 4, 5), Word("wee", 5, 6), Word("went", 6, 7)])
print(journal.session_id, flush=True)  # confirmed, on disk; its final pass would be running now
time.sleep(60)
"""


def test_sigkill_between_confirmation_and_finalization_keeps_the_confirmed_words(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    session_id = child.stdout.readline().strip()
    child.send_signal(signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL
    assert saved(tmp_path, session_id) == "Kick the ball. then wee went"

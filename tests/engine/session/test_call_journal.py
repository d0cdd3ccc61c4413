"""A call's journal keeps who said each word: replayed, each side's final texts replace that side's words."""

import json

from engine.session.events import FinalEvent
from engine.session.journal import SessionJournal, load_session
from engine.session.words import Word


def test_a_replayed_call_journal_keeps_labels_and_each_sides_final_text(tmp_path):
    journal = SessionJournal.start(tmp_path, "Call (you and them)", "tiny.en")
    them = [Word("printing", 0.5, 1.0, speaker="them"), Word("differs", 1.1, 1.6, speaker="them")]
    you = [Word("so", 4.0, 4.2, speaker="you"), Word("this", 4.2, 4.4, speaker="you")]
    journal.append(them[:1] + you[:1])
    journal.append(them[1:] + you[1:])
    # each side counts its own words: Them's final record covers Them's two, You's covers You's two
    journal.append(
        [],
        [
            FinalEvent(
                0,
                2,
                [Word("Printing", 0.5, 1.0, speaker="them"), Word("differs.", 1.1, 1.6, speaker="them")],
                2.0,
                speaker="them",
            )
        ],
    )
    journal.append(
        [],
        [
            FinalEvent(
                0, 2, [Word("So", 4.0, 4.2, speaker="you"), Word("this.", 4.2, 4.4, speaker="you")], 5.0, speaker="you"
            )
        ],
    )
    session = journal.session_id
    lines = [json.loads(line) for line in (journal.path / "words.jsonl").read_text().splitlines()]
    journal.close()
    assert {line["speaker"] for line in lines} == {"you", "them"}
    words = load_session(tmp_path, session).words
    assert [(w.text, w.speaker) for w in words] == [
        ("Printing", "them"),
        ("differs.", "them"),
        ("So", "you"),
        ("this.", "you"),
    ]


def test_a_one_source_journal_has_no_speaker_field(tmp_path):
    journal = SessionJournal.start(tmp_path, "mic", "tiny.en")
    journal.append([Word("hello", 0.0, 0.5)])
    line = (journal.path / "words.jsonl").read_text()
    journal.close()
    assert "speaker" not in line
    assert load_session(tmp_path, journal.session_id).words[0].speaker is None

"""The transcript reads as paragraphs with their times in the margin; search filters it to the matching paragraphs
and highlights the matches in them; words the model was unsure of are underlined dotted; a period the next word
contradicts reads as a comma, in the paragraphs and the text."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QStyleOptionViewItem

from app.widgets.call_sides import side_colour
from app.widgets.transcript_view import SPEAKER_ROLE, UNSURE_ROLE, TranscriptView
from engine.session.events import FinalEvent
from engine.session.words import Word


def _highlight_pixels(view: TranscriptView) -> int:
    image = view.list.viewport().grab().toImage()
    target = QColor("#ffd54f")
    return sum(
        1 for x in range(0, image.width(), 2) for y in range(0, image.height(), 2) if image.pixelColor(x, y) == target
    )


@pytest.fixture()
def view(qtbot) -> TranscriptView:
    """A transcript view on screen."""
    view = TranscriptView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_search_highlights_the_matches(qtbot, view):
    text = "The books were printed. Printing books is an old craft."
    view.set_words([Word(w, i * 0.4, i * 0.4 + 0.3, 0.9) for i, w in enumerate(text.split())])
    assert _highlight_pixels(view) == 0
    view.search.setText("BOOKS")
    assert view.visible_paragraph_texts() and all("books" in t.lower() for t in view.visible_paragraph_texts())
    assert view.highlighted(0).count("#ffd54f") == 2 and ">books<" in view.highlighted(0)
    qtbot.waitUntil(lambda: _highlight_pixels(view) > 20, timeout=3000)  # drawn on screen
    view.search.setText("")
    qtbot.waitUntil(lambda: _highlight_pixels(view) == 0, timeout=3000)


def test_a_period_the_next_word_contradicts_reads_as_a_comma_in_the_paragraphs_and_the_text(view):
    said = ["Printing", "then", "for", "our", "purpose.", "may", "be", "considered.", "Now"]
    view.add_words([Word(w, i * 0.4, i * 0.4 + 0.3, 0.9) for i, w in enumerate(said[:5])])
    view.add_words([Word(w, i * 0.4, i * 0.4 + 0.3, 0.9) for i, w in enumerate(said[5:], start=5)])
    assert view.text() == "Printing then for our purpose, may be considered. Now"
    assert view.visible_paragraph_texts() == ["Printing then for our purpose, may be considered. Now"]
    assert [w.text for w in view.words()] == said  # the words stay as the model said them


def test_words_below_the_threshold_are_underlined_dotted(view):
    probabilities = {"xylographic": 0.2, "self-substantial": 0.35}
    text = "The xylographic books were self-substantial."
    view.set_words(
        [Word(w, i * 0.4, i * 0.4 + 0.3, probabilities.get(w.strip("."), 0.9)) for i, w in enumerate(text.split())]
    )
    line = view.list.item(0).text()
    assert view.list.item(0).data(UNSURE_ROLE) == []  # the threshold starts at 0: nothing marked
    view.set_unsure_below(0.5)
    ranges = view.list.item(0).data(UNSURE_ROLE)
    assert [line[a:b] for a, b in ranges] == ["xylographic", "self-substantial."]
    doc = view.list.itemDelegate()._document(_option(view), view.list.model().index(0, 0))
    assert doc.toPlainText() == line  # offsets in the drawn document are those of the line
    cursor = QTextCursor(doc)
    styles = []
    for position in (ranges[0][0] + 1, line.index("books") + 1):
        cursor.setPosition(position)
        styles.append(cursor.charFormat().underlineStyle())
    assert styles == [QTextCharFormat.DotLine, QTextCharFormat.NoUnderline]


def _option(view: TranscriptView) -> QStyleOptionViewItem:
    option = QStyleOptionViewItem()
    option.font = view.list.font()
    option.rect.setWidth(view.list.viewport().width())
    return option


def test_a_final_text_replaces_its_utterance_in_the_paragraphs_and_later_words_follow(view):
    view.add_words([Word(t, i * 0.4, i * 0.4 + 0.3) for i, t in enumerate("Kick the boss shit.".split())])
    said = [Word(t, i * 0.4, i * 0.4 + 0.3) for i, t in enumerate(["Kick", "the", "ball", "straight."])]
    view.apply_final(FinalEvent(0, 4, said, 2.0))
    view.add_words([Word("Then", 5.0, 5.3), Word("we", 5.3, 5.5)])
    view.apply_final(FinalEvent(4, 2, [Word("Then", 5.0, 5.3), Word("we", 5.3, 5.5), Word("went.", 5.5, 5.9)], 6.0))
    assert view.text() == "Kick the ball straight. Then we went."
    assert [w.text for w in view.words()] == ["Kick", "the", "ball", "straight.", "Then", "we", "went."]
    assert view.list.count() == len(view.paragraphs)


def test_caption_fragments_read_as_paragraphs_with_their_times_in_the_margin(view):
    """As a stream confirms them, a round at a time: "I regard…" and "this activity." were lines of their own."""
    view.add_words([Word("I", 0.0, 0.2), Word("regard…", 0.3, 0.8)])
    view.add_words([Word("this", 2.0, 2.3), Word("activity.", 2.4, 3.0)])
    view.add_words([Word("It", 4.5, 4.7), Word("was", 4.8, 5.0), Word("late.", 5.1, 5.5)])
    view.add_words([Word("Yes.", 66.0, 66.4)])
    assert view.visible_paragraph_texts() == ["I regard this activity. It was late.", "Yes."]
    assert [view.margin_time(row) for row in range(view.list.count())] == ["0:00", "1:06"]
    assert view.paragraphs[1].first == 7 and view.selected_words() == []


def _side(speaker: str, said: str, start: float) -> list[Word]:
    return [Word(t, start + i * 0.4, start + i * 0.4 + 0.3, 0.9, speaker) for i, t in enumerate(said.split())]


def _colour_pixels(view: TranscriptView, colour: QColor) -> int:
    image = view.list.viewport().grab().toImage()
    return sum(1 for x in range(0, 80) for y in range(image.height()) if image.pixelColor(x, y) == colour)


def test_a_calls_turns_are_labelled_and_ordered_by_time_however_the_sides_arrive(qtbot, view):
    you_first = _side("you", "Did you get the report?", 0.0)
    them = _side("them", "Yes, it came this morning.", 2.5)
    you_again = _side("you", "Good, thanks.", 5.5)
    # Each side's stream confirms on its own schedule: Them's first words come after your later ones.
    view.add_words(you_first[:3])
    view.add_words(you_first[3:] + you_again[:1])
    view.add_words(them[:2])
    view.add_words(you_again[1:])
    view.add_words(them[2:])
    assert view.visible_paragraph_texts() == ["Did you get the report?", "Yes, it came this morning.", "Good, thanks."]
    assert [view.margin_side(row) for row in range(view.list.count())] == ["You", "Them", "You"]
    assert [view.margin_time(row) for row in range(view.list.count())] == ["0:00", "0:02", "0:05"]
    assert [w.speaker for w in view.words()] == ["you"] * 5 + ["them"] * 5 + ["you"] * 2
    base = view.list.palette().color(view.list.palette().ColorRole.Base)
    for speaker in ("you", "them"):  # each side's name and bar drawn in its colour
        qtbot.waitUntil(lambda s=speaker: _colour_pixels(view, side_colour(s, base)) > 20, timeout=3000)


def test_a_final_record_replaces_only_its_sides_words(view):
    you = _side("you", "I think so too.", 0.0)
    them = _side("them", "Kick the boss shit.", 0.2)
    view.add_words(you[:2] + them[:1])
    view.add_words(them[1:] + you[2:])
    # Them's record counts Them's confirmed words only: its first word is Them's first, not the call's.
    said = [Word(t, w.start, w.end, 0.9, "them") for t, w in zip(["Kick", "the", "ball", "straight."], them)]
    view.apply_final(FinalEvent(0, 4, said, 2.0, speaker="them"))
    view.add_words(_side("them", "Right.", 2.0))
    assert view.visible_paragraph_texts() == ["I think so too.", "Kick the ball straight. Right."]
    assert [view.margin_side(row) for row in range(view.list.count())] == ["You", "Them"]
    view.apply_final(FinalEvent(0, 4, _side("you", "I think so, too.", 0.0), 2.5, speaker="you"))
    assert view.visible_paragraph_texts() == ["I think so, too.", "Kick the ball straight. Right."]
    assert view.text().startswith("I think so, too.")


def test_a_one_source_transcript_names_no_side_and_keeps_its_height(view):
    view.set_words([Word(t, i * 0.4, i * 0.4 + 0.3) for i, t in enumerate("One line only.".split())])
    one_source = view.list.visualItemRect(view.list.item(0)).height()
    assert view.margin_side(0) == "" and view.list.item(0).data(SPEAKER_ROLE) is None
    view.set_words(_side("them", "One line only.", 0.0))
    assert view.margin_side(0) == "Them"
    assert view.list.visualItemRect(view.list.item(0)).height() > one_source  # room for the time and the side

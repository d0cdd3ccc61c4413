"""Search filters the transcript to matching lines and highlights the matches in them."""
from __future__ import annotations

from PySide6.QtGui import QColor

from engine.session.words import Word

from app.widgets.transcript_view import TranscriptView


def _highlight_pixels(view: TranscriptView) -> int:
    image = view.list.viewport().grab().toImage()
    target = QColor("#ffd54f")
    return sum(1 for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)
               if image.pixelColor(x, y) == target)


def test_search_highlights_the_matches(qtbot):
    view = TranscriptView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    qtbot.waitExposed(view)
    text = "The books were printed. Printing books is an old craft."
    view.set_words([Word(w, i * 0.4, i * 0.4 + 0.3, 0.9) for i, w in enumerate(text.split())])
    assert _highlight_pixels(view) == 0
    view.search.setText("BOOKS")
    assert view.visible_line_texts() and all("books" in t.lower() for t in view.visible_line_texts())
    assert view.highlighted(0).count("#ffd54f") == 1 and ">books<" in view.highlighted(0)
    qtbot.waitUntil(lambda: _highlight_pixels(view) > 20, timeout=3000)  # drawn on screen
    view.search.setText("")
    qtbot.waitUntil(lambda: _highlight_pixels(view) == 0, timeout=3000)

"""The "Words to know" editor gives the settings its words joined by commas, and keeps a malformed word out."""

from app.widgets import text_styles
from app.widgets.words_editor import HINT, WordsEditor


def test_the_editor_shows_the_saved_words_one_a_line_and_reports_edits(qtbot):
    editor = WordsEditor("Gutenberg, Peter Schoeffer")
    qtbot.addWidget(editor)
    assert editor.edit.toPlainText() == "Gutenberg\nPeter Schoeffer"
    seen = []
    editor.changed.connect(seen.append)
    editor.edit.setPlainText("Gutenberg\n\n  Maintz \n")
    assert seen[-1] == "Gutenberg, Maintz" and editor.hint.text() == HINT
    editor.edit.setPlainText("")
    assert seen[-1] is None


def test_a_malformed_word_is_named_and_not_kept(qtbot):
    editor = WordsEditor(None)
    qtbot.addWidget(editor)
    seen = []
    editor.changed.connect(seen.append)
    editor.edit.setPlainText("Gutenberg\n" + "x" * 80)
    assert seen == [] and "80 characters long" in editor.hint.text()
    assert editor.hint.styleSheet() != text_styles.HINT  # said in the text's colour, not the hint's grey
    editor.edit.setPlainText("Gutenberg")
    assert editor.hint.text() == HINT and editor.hint.styleSheet() == text_styles.HINT

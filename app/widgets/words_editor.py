"""The "Words to know" editor: names and rare words a person expects, one a line, kept with the settings."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy, QVBoxLayout, QWidget

from app.widgets import text_styles
from app.widgets.wrapped_label import WrappedLabel
from engine.stream.vocabulary import parse_words, word_problem

HINT = (
    "Names and rare words you expect (colleagues, customers, products, places, jargon), one a line. Captions "
    "spell them as written here; a word that is not said is not put in."
)


class WordsEditor(QWidget):
    """A list of words, one a line; `changed` carries them joined by commas (None for none), as StreamConfig.words
    holds them, whenever the text changes and every word is well formed."""

    changed = Signal(object)  # str | None

    def __init__(self, words: str | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.edit = QPlainTextEdit("\n".join(parse_words(words or "")))
        self.edit.setPlaceholderText("Gutenberg\nPeter Schoeffer\nMaintz")
        self.edit.setFixedHeight(120)
        self.hint = WrappedLabel(HINT)
        self.hint.setStyleSheet(text_styles.HINT)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)  # a form's spare height goes
        # below its rows, not between the list and its hint
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.hint)
        self.edit.textChanged.connect(self._text_changed)

    def words(self) -> str | None:
        """The listed words joined by commas, or None when the list is empty."""
        return ", ".join(parse_words(self.edit.toPlainText())) or None

    def _text_changed(self) -> None:
        problems = [f"{w[:20]!r}: {p}" for w in parse_words(self.edit.toPlainText()) if (p := word_problem(w))]
        self.hint.setText("Not kept: " + "; ".join(problems) if problems else HINT)
        self.hint.setStyleSheet(text_styles.PROBLEM if problems else text_styles.HINT)
        if not problems:
            self.changed.emit(self.words())

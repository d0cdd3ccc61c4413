"""Words to know in the bench: the list each recording runs with, and how the listed words fared.

A configuration's `words` key says which list: none, own (the recording's names and rare words, as a person would
list the names they expect: tools/bench/words/<file stem>.txt; a recording without such a file runs with none) or
unrelated (tools/bench/words/unrelated.txt, 20 words said in none of the recordings). The lists are data beside
the bench, as the corpus is read-only.

Scores, by counting each listed word or phrase (normalized) in the reference and in the output:
errors are the reference's occurrences the output lacks, false alarms the output's occurrences beyond the
reference's (a listed word put where it was not said). Every stream is scored on both lists, whichever it ran with,
so that a row without a list shows the errors on the recording's own words that a list would address.
"""

from __future__ import annotations

from pathlib import Path

from engine.scoring.wer import normalize_text
from engine.session.events import WordEvent
from engine.session.final_text import FinalText
from engine.stream.vocabulary import parse_words, read_words_file

WORDS_DIR = Path(__file__).parent / "words"
LISTS = ("none", "own", "unrelated")
UNRELATED = WORDS_DIR / "unrelated.txt"


def listed_words(file_name: str, which: str) -> str | None:
    """The words (comma-separated) a recording of the manifest runs with under the list `which`."""
    if which == "unrelated":
        return read_words_file(UNRELATED)
    own = WORDS_DIR / f"{Path(file_name).stem}.txt"
    return read_words_file(own) if which == "own" and own.is_file() else None


def _count(phrase: list[str], tokens: list[str]) -> int:
    n = len(phrase)
    return sum(tokens[i : i + n] == phrase for i in range(len(tokens) - n + 1)) if n else 0


def score_listed(listed: str | None, reference: str, output: str) -> dict:
    """Listed words in the reference, the output's errors on them and its false alarms."""
    ref, out = normalize_text(reference).split(), normalize_text(output).split()
    said = errors = false_alarms = 0
    for word in parse_words(listed or ""):
        phrase = normalize_text(word).split()
        in_ref, in_out = _count(phrase, ref), _count(phrase, out)
        said += in_ref
        errors += max(0, in_ref - in_out)
        false_alarms += max(0, in_out - in_ref)
    return {"said": said, "errors": errors, "false_alarms": false_alarms}


def final_text(words: list[WordEvent], finals) -> str:
    """The stream's final text: its confirmed words with every final record that fits applied."""
    text = FinalText()
    text.confirm(words)
    for final in finals:
        text.apply(final)
    return " ".join(w.text for w in text.words)


def listed_scores(file_name: str, reference: str, words: list[WordEvent], finals) -> dict:
    """A stream record's scores of the recording's own list and of the unrelated one, in its confirmed and in its
    final text."""
    texts = {"confirmed": " ".join(w.text for w in words), "final": final_text(words, finals)}
    return {
        "listed": {
            which: {text: score_listed(listed_words(file_name, which), reference, out) for text, out in texts.items()}
            for which in LISTS[1:]
        }
    }

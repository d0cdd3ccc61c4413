"""The words-to-know flags `whisperflow stream` and `whisperflow transcribe` share: --words-file (and, for
transcribe, --words, which stream declares with its settings)."""

from __future__ import annotations

import argparse


def add_words_file_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--words-file",
        metavar="FILE",
        help="words to know from a file: one word or phrase a line, # starts a comment (added to --words)",
    )


def words_from(args) -> str | None:
    """The words of --words and --words-file together, checked as the setting is; None when neither was given."""
    from engine.stream.settings import check_setting
    from engine.stream.vocabulary import read_words_file

    listed = [text for text in (args.words, args.words_file and read_words_file(args.words_file)) if text]
    words = ", ".join(listed) or None
    check_setting("words", words, "--words")
    return words

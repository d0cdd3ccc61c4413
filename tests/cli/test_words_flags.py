"""--words and --words-file on `whisperflow stream` and `whisperflow transcribe`: what they list reaches the stream,
a malformed file gets a clear message, and a list too long for the budget says what was kept and what was not."""

from testdata import DATA

from cli.main import build_parser, main
from cli.stream import _config_from


def test_words_and_a_words_file_are_listed_together(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("# printers\nSchoeffer\nMaintz\n", encoding="utf-8")
    args = build_parser().parse_args(["stream", "clip.wav", "--words", "Gutenberg", "--words-file", str(path)])
    assert _config_from(args).words == "Gutenberg, Schoeffer, Maintz"


def test_a_binary_words_file_gets_a_clear_message(tmp_path, capsys):
    path = tmp_path / "names.txt"
    path.write_bytes(b"Gutenberg\n\xff\xd8\xff\xe0\x00\x10JFIF\n")
    assert main(["stream", str(DATA / "LJ001-0008.wav"), "--words-file", str(path)]) == 2
    assert f"error: {path}, line 2: not UTF-8 text" in capsys.readouterr().err


def test_a_too_long_word_on_the_command_line_gets_a_clear_message(capsys):
    assert main(["transcribe", str(DATA / "LJ001-0008.wav"), "--words", "Gutenberg, " + "y" * 90]) == 2
    assert "error: --words must be words or phrases separated by commas, each at most 60" in capsys.readouterr().err


def test_a_list_too_long_for_the_budget_says_what_was_kept_and_what_was_not(capsys):
    words = ", ".join(f"Name{i}son" for i in range(60))
    assert main(["transcribe", str(DATA / "LJ001-0008.wav"), "--words", words]) == 0
    err = capsys.readouterr().err
    assert "note: words to know: " in err and "left out, past the 120 tokens" in err
    assert "Name59son" in err.split("(kept:")[0] and "Name0son" in err.split("(kept:")[1]

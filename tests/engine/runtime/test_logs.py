"""The one place that configures logging: levels, stderr that follows sys.stderr, the rotating file."""

import logging

import pytest

from engine.runtime.logs import MAX_BYTES, WordList, configure_logging, log_file
from engine.session.words import Word

pytestmark = pytest.mark.usefixtures("restore_logging")


def test_a_level_lets_our_lines_at_it_through_and_other_libraries_only_from_warning(capsys):
    configure_logging("debug")
    logging.getLogger("engine.stream.agreement").debug("agreement: confirmed %s", "books")
    logging.getLogger("somelibrary").info("chatter")
    logging.getLogger("somelibrary").warning("trouble")
    err = capsys.readouterr().err
    assert "DEBUG engine.stream.agreement: agreement: confirmed books" in err
    assert "chatter" not in err and "WARNING somelibrary: trouble" in err


def test_the_default_level_is_warning_and_a_second_call_replaces_the_first(capsys):
    configure_logging("debug")
    configure_logging()
    logging.getLogger("engine.stream.processor").info("round 0.00-1.00 s")
    logging.getLogger("app.main").warning("shown")
    assert capsys.readouterr().err.splitlines() == ["WARNING app.main: shown"]  # one handler: one line


def test_an_unknown_level_is_named():
    with pytest.raises(ValueError, match="debug, info, warning, error"):
        configure_logging("verbose")


def test_the_log_file_lies_in_the_configured_folder_and_rotates(tmp_path, monkeypatch):
    monkeypatch.setenv("WHISPERFLOW_LOG_DIR", str(tmp_path / "logs"))
    path = log_file()
    assert path.parent == tmp_path / "logs" and path.parent.is_dir()
    configure_logging("info", file=path)
    log = logging.getLogger("app.test")
    log.info("model tiny.en loaded")
    assert "INFO app.test: model tiny.en loaded" in path.read_text()
    for _ in range(3 * MAX_BYTES // 1000):
        log.info("x" * 1000)
    assert path.stat().st_size <= MAX_BYTES
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name] + [f"{path.name}.{i}" for i in range(1, 4)]


def test_a_word_list_shows_text_and_stream_times():
    words = [Word("books", 2.3, 2.61), Word("by", 2.61, 2.8)]
    assert str(WordList(words, offset=10.0)) == "'books' 12.30-12.61, 'by' 12.61-12.80"
    assert str(WordList([])) == "no words"

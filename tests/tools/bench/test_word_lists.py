"""The bench's words-to-know lists: which list a recording runs with, and the scores of the listed words."""

from pathlib import Path

import pytest

from engine.errors import WhisperFlowError
from engine.stream.vocabulary import parse_words
from tools.bench.configs import parse_config
from tools.bench.manifest import ManifestEntry, find_default_manifest, load_manifest, select
from tools.bench.word_lists import WORDS_DIR, listed_words, score_listed

LONGFORM = "longform/ljspeech_LJ001-0001_to_0032.wav"


def test_a_config_names_the_list_and_the_use():
    config = parse_config("flow:words=own,words_use=prompt")
    assert config.words == "own" and config.stream.words_use == "prompt" and config.stream.words is None
    assert parse_config("flow").words == "none"
    with pytest.raises(WhisperFlowError, match="words takes one of none, own, unrelated"):
        parse_config("flow:words=Gutenberg")


def test_each_recording_runs_with_its_own_names_the_unrelated_list_or_none():
    own = parse_words(listed_words(LONGFORM, "own"))
    assert len(own) == 12 and {"Maintz", "Schoeffer", "Sweynheim", "Pannartz", "Subiaco"} <= set(own)
    assert len(parse_words(listed_words(LONGFORM, "unrelated"))) == 20
    assert listed_words(LONGFORM, "none") is None
    assert listed_words("ljspeech/LJ001-0011.wav", "own") is None  # nothing rare said there


def test_each_list_is_a_corpus_files_and_the_unrelated_words_are_said_nowhere():
    manifest = find_default_manifest()
    if manifest is None:
        pytest.skip("no corpus manifest here")
    entries = load_manifest(manifest)
    stems = {Path(e.name).stem for e in entries}
    assert {p.stem for p in WORDS_DIR.glob("*.txt")} - stems == {"unrelated"}
    unrelated = listed_words(LONGFORM, "unrelated")
    assert all(score_listed(unrelated, e.reference, "")["said"] == 0 for e in entries)


def test_errors_are_listed_words_said_but_not_written_and_false_alarms_the_reverse():
    listed = "Maintz, Peter Schoeffer, Gutenberg"
    reference = "printed at Maintz by Peter Schoeffer; Maintz again"
    output = "printed at mains by Peter Schoeffer, Gutenberg again"
    assert score_listed(listed, reference, output) == {"said": 3, "errors": 2, "false_alarms": 1}
    assert score_listed(None, reference, output) == {"said": 0, "errors": 0, "false_alarms": 0}


def test_a_step_keeps_every_nth_file_of_each_kind():
    entries = [ManifestEntry(f"{k}{i}.wav", None, 1.0, k, "") for k in ("a", "b") for i in range(5)]
    assert [e.name for e in select(entries, step=4)] == ["a0.wav", "a4.wav", "b0.wav", "b4.wav"]

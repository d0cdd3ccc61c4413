"""The words-to-know table: a row per configuration with its list, WER, errors on the own words and false alarms."""

from tools.bench.words_table import words_markdown


def _record(config: str, word_list: str, errors: int, alarms: int) -> dict:
    counts = {"reference_words": 100, "substitutions": errors, "deletions": 0, "insertions": 0}
    scores = {"said": 4, "errors": errors, "false_alarms": alarms}
    return {
        "type": "stream",
        "role": "measured",
        "config": config,
        "word_list": word_list,
        "words": [{"text": "a"}],  # the confirmed words, as a stream record holds them
        "file": "f.wav",
        "kind": "short",
        "duration_s": 300.0,
        "wer": counts,
        "final_wer": counts,
        "listed": {"own": {"confirmed": scores, "final": scores}, "unrelated": {"confirmed": scores, "final": scores}},
    }


def test_a_row_per_config_with_its_list_errors_and_false_alarms_per_10_minutes():
    table = words_markdown([_record("none", "none", 3, 0), _record("own", "own", 1, 2)])
    assert "| none | none | 1 | 300 | 3.0 | 3.0 | 4 | 3 / 3 | 0 / 0 | 0.00 |" in table
    assert "| own | own | 1 | 300 | 1.0 | 1.0 | 4 | 1 / 1 | 2 / 2 | 4.00 |" in table
    assert words_markdown([{"type": "offline"}]) is None

"""The accuracy report on made-up draws: rows per kind and pooled over the kinds with exact references, confirmed and
final WER beside offline, and the differences paired by draw."""

import pytest

from tools.bench.accuracy_table import accuracy_markdown
from tools.bench.report import summarize_run

FILES = {"a.wav": "short", "b.wav": "long_derived", "c.wav": "ivr"}


def _counts(errors, words=10):
    return {"reference_words": words, "substitutions": errors, "deletions": 0, "insertions": 0}


def _stream(config, draw, file, errors, final_errors, final_latencies=(), changed=(0, 0)):
    return {
        "type": "stream",
        "config": config,
        "role": "measured",
        "draw": draw,
        "file": file,
        "kind": FILES[file],
        "settings": {"model": "tiny.en"},
        "pace": "realtime",
        "done": {"audio_s": 5.0, "cpu_s": 2.5, "notices": []},
        "peak_rss_mb": 500.0,
        "latencies": [[1.0, 0.8, True], [2.0, 1.2, True]],
        "shown_latencies": [[1.0, 0.4, True], [2.0, 0.6, True]],
        "timing_source": "offline tiny.en",
        "wer": _counts(errors),
        "final_wer": _counts(final_errors),
        "final_latencies": list(final_latencies),
        "changed": {"edits": changed[0], "words": changed[1]},
    }


def _records():
    records = [{"type": "meta", "pace": "realtime", "started": "now", "draws": 3}]
    records += [
        {"type": "offline", "model": "tiny.en", "file": f, "kind": k, "wer": _counts(1)} for f, k in FILES.items()
    ]
    for draw in (1, 2, 3):
        for file in FILES:
            records.append(_stream("baseline", draw, file, 2, 2))
            records.append(_stream("flow", draw, file, 2 + draw % 2, 1, [0.5, 0.7], (1, 10)))
    return records


def test_rows_per_kind_and_pooled_over_kinds_with_exact_references():
    summary = summarize_run(_records())
    groups = {g["kind"]: g for g in summary["groups"]}
    assert list(groups) == ["short", "long_derived", "ivr", "all"]
    assert groups["all"]["kinds"] == ["short", "long_derived"]  # telephone prompts are not pooled
    flow = groups["all"]["rows"][1]
    assert (flow["config"], flow["files"], flow["draws"]) == ("flow", 2, 3)
    assert flow["wer"] == pytest.approx(16 / 60)  # 3, 2, 3 errors per file over the three draws
    assert (flow["final_wer"], flow["offline_wer"]) == (pytest.approx(0.1), pytest.approx(0.1))
    assert flow["final_latency"]["mean"] == pytest.approx(0.6) and flow["changed_per_100"] == pytest.approx(10.0)
    assert groups["short"]["rows"][1]["wer"] == pytest.approx(8 / 30)


def test_accuracy_table_and_paired_differences():
    table = accuracy_markdown(summarize_run(_records()))
    assert "## all: short, long_derived" in table
    assert "| flow | 2 | 3 | 26.7 | 10.0 | 10.0 | 1.00 / 1.20 | 0.50 | 0.60 | 10.0 | 0.50 | 500 |" in table
    assert "| baseline | 2 | 3 | 20.0 | 20.0 | 10.0 | 1.00 / 1.20 | 0.50 | – | – | 0.50 | 500 |" in table
    assert "| offline tiny.en | 2 | – | – | – | 10.0 | – | – | – | – | – | – |" in table
    # pooled, flow confirmed: 6/20, 4/20, 6/20 against offline 2/20 and baseline 4/20 in the three draws
    half = 4.303 * (100 / 3) ** 0.5 / 3**0.5  # the per-draw differences 20, 10, 20 points: variance 100 / 3
    pooled = table.split("## all")[1]
    assert f"| flow | confirmed | +16.7 [{16.67 - half:+.1f}, {16.67 + half:+.1f}] | +6.7 " in pooled
    assert "| flow | final | +0.0 [+0.0, +0.0] | -10.0 [-10.0, -10.0] |" in pooled
    assert "| baseline | confirmed | +10.0 [+10.0, +10.0] | – |" in pooled

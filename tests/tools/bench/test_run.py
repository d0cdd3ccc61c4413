"""`whisperflow bench` end to end on one real 1.8 s clip (tiny.en, realtime and unaware worker processes), and
`--score-jsonl` on a hand-made stream against a hand-made forced alignment."""

import json
import shutil

import pytest
from testdata import DATA

from cli.main import main

CLIP = "LJ001-0008.wav"  # "has never been surpassed." 1.78 s

TEXTGRID = """File type = "ooTextFile"
Object class = "TextGrid"

0
1.78
<exists>
1
"IntervalTier"
"words"
0
1.78
5
0
0.1
""
0.1
0.35
"has"
0.35
0.7
"never"
0.7
0.9
"been"
0.9
1.6
"surpassed"
"""


def _corpus(root, clips: dict[str, tuple[float, str]]):
    """A corpus folder with clips from tests/data (name: duration, reference) and its manifest."""
    root.mkdir()
    rows = ["file\tduration_s\tkind\treference"]
    for name, (duration, reference) in clips.items():
        shutil.copy(DATA / name, root / name)
        rows.append(f"{name}\t{duration}\tshort\t{reference}")
    (root / "manifest.tsv").write_text("\n".join(rows) + "\n")
    return root


@pytest.fixture()
def corpus(tmp_path):
    return _corpus(tmp_path / "corpus", {CLIP: (1.783, "has never been surpassed.")})


def test_bench_runs_a_configuration_and_reports(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["bench", "--manifest", str(corpus / "manifest.tsv"), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| baseline | 1 |" in table and "| offline tiny.en (gold) | 1 |" in table
    summary = json.loads((out / "results.json").read_text())
    row = summary["groups"][0]["rows"][0]
    assert row["config"] == "baseline" and row["pace"] == "realtime" and row["files"] == 1
    assert row["wer"] is not None and row["wer"] <= 0.25  # tiny.en hears this clip (almost) right
    cost = row["cost"]
    assert cost["rounds"] == 2  # about 1.0 s, then the rest
    assert cost["gflops_per_round"] == pytest.approx(36.937728, rel=1e-3)  # padded to 30 s every round
    assert 0 < cost["encode_s"] < cost["mean_round_s"] and cost["cpu_per_audio_s"] > 0
    assert cost["peak_rss_mb"] > 100 and cost["avg_beam"] == pytest.approx(5.0)  # the baseline decodes with beam 5
    lower = row["lower_bound"]
    assert lower["files"] == 1 and lower["words"] >= 3
    # Unaware clock: words are confirmed at 1.0 s or at the end (1.78 s), never before they are spoken.
    assert 0 <= lower["mean"] <= 1.78
    from tools.bench.reference import strongest_local_model

    assert row["timing_sources"] == {f"offline {strongest_local_model()}": 1}  # tiny.en unless base is installed
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["type"] for r in records].count("stream") == 2
    machines = [r["machine"] for r in records if r["type"] == "stream"]
    assert all(0 <= m["steal"] <= 1 and len(m["gflops"]) == 2 and min(m["gflops"]) > 0 for m in machines)
    assert "While the streams ran, the host took" in table and "a one-thread matrix product ran at" in table
    for name in ("table.md", "latency_vs_wer.png", "ablation.png", "latency_over_time.png"):
        assert (out / name).stat().st_size > 0
    # Resuming a finished run runs nothing more and redraws the same table.
    assert main(["bench", "--manifest", str(corpus / "manifest.tsv"), "--out", str(out), "--resume"]) == 0
    again = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r for r in again if r["type"] != "meta"] == [r for r in records if r["type"] != "meta"]


def test_score_jsonl_against_a_forced_alignment(corpus, tmp_path, capsys):
    (corpus / "LJ001-0008.TextGrid").write_text(TEXTGRID)
    stream = tmp_path / "other.jsonl"
    words = [("Has", 1.0), ("never", 1.0), ("bean", 2.0), ("surpassed.", 2.4)]
    stream.write_text(
        "".join(json.dumps({"type": "word", "text": t, "emitted": e}) + "\n" for t, e in words)
        + json.dumps({"type": "done", "audio_s": 1.78})
        + "\n"
    )
    out = tmp_path / "table"
    assert (
        main(
            [
                "bench",
                "--manifest",
                str(corpus / "manifest.tsv"),
                "--score-jsonl",
                str(stream),
                "--audio",
                str(corpus / CLIP),
                "--label",
                "other system",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert (
        "other system: WER 25.0 % (1 errors / 4 words: 1 substituted, 0 deleted, 0 inserted; – forced "
        "confirmations; reference: manifest LJ001-0008.wav)"
    ) in printed
    # latencies 1.0-0.35, 1.0-0.7, 2.0-0.9, 2.4-1.6 = 0.65, 0.3, 1.1, 0.8; p90 = 0.8 + 0.7 * (1.1 - 0.8)
    assert "mean 0.71 s, median 0.73 s, p90 1.01 s over 4 of 4 words" in printed
    assert "forced alignment (LJ001-0008.TextGrid)" in printed
    table = (out / "table.md").read_text()
    assert "| other system | 1 | 25.0 | 1 / 0 / 0 | – | – | 0.71 / 0.73 / 1.01 / 1.09 |" in table
    assert table.startswith("# WhisperFlow bench: scored stream JSONLs\n") and "?" not in table


def test_score_jsonl_needs_audio_and_word_events(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"type": "done"}\n')
    assert main(["bench", "--score-jsonl", str(empty)]) == 2
    assert main(["bench", "--score-jsonl", str(empty), "--audio", str(DATA / CLIP), "--reference", "x"]) == 2
    err = capsys.readouterr().err
    assert "needs --audio" in err and "has no word events" in err


def test_a_draw_of_flow_scores_its_final_text_beside_offline(tmp_path, capsys):
    clips = {
        CLIP: (1.783, "has never been surpassed."),
        "LJ001-0013.wav": (2.585, "than in the same operations with ugly ones."),
    }
    manifest = _corpus(tmp_path / "corpus", clips) / "manifest.tsv"
    out = tmp_path / "out"
    args = ["bench", "--manifest", str(manifest), "--out", str(out), "--configs", "flow", "--pace", "unaware"]
    assert main([*args, "--draws", "1"]) == 0
    printed = capsys.readouterr().out
    assert "| flow | 2 | 1 |" in printed and "| offline tiny.en | 2 | – | – | – |" in printed  # accuracy.md's table
    assert (out / "accuracy.md").read_text() in printed
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    streams = [r for r in records if r["type"] == "stream"]
    assert [r["draw"] for r in streams] == [1, 1]
    for r in streams:  # each clip is one utterance, finalized at the stream's end
        assert r["finals"] and r["changed"]["words"] > 0 and r["final_latencies"] == [0.0] * len(r["finals"])
    row = json.loads((out / "results.json").read_text())["groups"][0]["rows"][0]
    assert row["final_wer"] <= 0.25 and row["offline_wer"] <= 0.25 and row["changed_per_100"] is not None
    assert row["final_latency"]["words"] == sum(len(r["finals"]) for r in streams)


def test_a_row_that_cuts_where_another_did_replays_its_rounds_and_hears_the_same(tmp_path, capsys):
    # the same settings twice in realtime: only a replay of the first's rounds gives the second the same words
    manifest = _corpus(tmp_path / "corpus", {"LJ001-0013.wav": (2.585, "than in the same operations with ugly ones.")})
    out = tmp_path / "out"
    configs = ["--configs", "first=flow", "again=flow:cuts=first", "--no-lower-bound"]
    assert main(["bench", "--manifest", str(manifest / "manifest.tsv"), "--out", str(out), *configs]) == 0
    assert "Note: again replays first's rounds in each draw" in capsys.readouterr().out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    first, again = ({r["config"]: r for r in records if r["type"] == "stream"}[c] for c in ("first", "again"))
    assert len(first["cuts"]["ends"]) >= 2 and again["cuts"] == first["cuts"]  # the same ends, clocks and finish
    assert [(w["text"], w["emitted"]) for w in again["words"]] == [(w["text"], w["emitted"]) for w in first["words"]]
    texts = [[(f["first"], f["count"], f["words"]) for f in r["finals"]] for r in (first, again)]  # clocks aside
    assert texts[0] == texts[1] and again["wer"] == first["wer"]

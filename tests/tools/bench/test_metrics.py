"""Bench pieces on hand-made cases with known answers: costs, TextGrids, manifests, config specs, the results
log and the report."""

import json

import pytest

from engine.errors import WhisperFlowError
from engine.session.words import Word
from tools.bench.configs import parse_config
from tools.bench.cost import summarize_costs
from tools.bench.manifest import find_default_manifest, load_manifest, select
from tools.bench.paired import wer_difference
from tools.bench.reference import model_rank
from tools.bench.report import markdown, summarize_run, write_report
from tools.bench.results import ResultsLog
from tools.bench.textgrid import read_textgrid_words

# --- costs -----------------------------------------------------------------------------------------


def _record(audio_s, rounds, round_s, encode_s, decode_s, cpu_s, gflops, beam, rss):
    return {
        "done": {
            "audio_s": audio_s,
            "rounds": rounds,
            "encode_s": encode_s,
            "decode_s": decode_s,
            "cpu_s": cpu_s,
            "encoder_gflops": gflops,
        },
        "round_s": round_s,
        "beam": beam,
        "peak_rss_mb": rss,
    }


def test_costs_add_up_over_files():
    records = [
        _record(4.0, 2, [0.5, 0.7], 0.6, 0.4, 3.0, 70.0, {"steps": 10, "sum": 30, "reduced": 4}, 500.0),
        _record(6.0, 2, [0.4, 0.4], 0.4, 0.2, 2.0, 50.0, {"steps": 10, "sum": 50, "reduced": 0}, 520.0),
    ]
    c = summarize_costs(records)
    assert c.rounds == 4
    assert c.mean_round_s == pytest.approx(0.5)
    assert (c.encode_s, c.decode_s, c.other_s) == pytest.approx((0.25, 0.15, 0.10))
    assert c.rtf == pytest.approx(0.2)
    assert c.cpu_per_audio_s == pytest.approx(0.5)
    assert c.peak_rss_mb == 520.0
    assert (c.gflops_total, c.gflops_per_round) == pytest.approx((120.0, 30.0))
    assert c.avg_beam == pytest.approx(4.0)
    assert c.reduced_beam_fraction == pytest.approx(0.2)
    external = summarize_costs([{"done": {"audio_s": 5.0}}])
    assert external.rounds is None and external.rtf is None and external.peak_rss_mb is None


# --- TextGrid, manifest, configs, strongest model -----------------------------------------------------

SHORT_TEXTGRID = '''File type = "ooTextFile"
Object class = "TextGrid"

0
2.5
<exists>
2
"IntervalTier"
"words"
0
2.5
4
0
0.3
""
0.3
0.9
"go"
0.9
1.6
"forward"
1.6
2.5
"said ""ten"""
"TextTier"
"marks"
0
2.5
1
1.0
"x"
'''

LONG_TEXTGRID = """File type = "ooTextFile"
Object class = "TextGrid"

xmin = 0
xmax = 1.5
tiers? <exists>
size = 2
item []:
    item [1]:
        class = "IntervalTier"
        name = "phones"
        xmin = 0
        xmax = 1.5
        intervals: size = 1
        intervals [1]:
            xmin = 0
            xmax = 1.5
            text = "G OW"
    item [2]:
        class = "IntervalTier"
        name = "words"
        xmin = 0
        xmax = 1.5
        intervals: size = 2
        intervals [1]:
            xmin = 0
            xmax = 1e-1
            text = ""
        intervals [2]:
            xmin = 0.1
            xmax = 1.5
            text = "go"
"""


def test_textgrid_words_in_short_and_long_format(tmp_path):
    short = tmp_path / "short.TextGrid"
    short.write_text(SHORT_TEXTGRID)
    assert read_textgrid_words(short) == [Word("go", 0.3, 0.9), Word("forward", 0.9, 1.6), Word('said "ten"', 1.6, 2.5)]
    long = tmp_path / "long.TextGrid"
    long.write_text(LONG_TEXTGRID)
    assert read_textgrid_words(long) == [Word("go", 0.1, 1.5)]
    with pytest.raises(WhisperFlowError, match="no interval tier named 'phones'"):
        read_textgrid_words(short, tier="phones")
    broken = tmp_path / "broken.TextGrid"
    broken.write_text("hello")
    with pytest.raises(WhisperFlowError, match="cannot read the TextGrid"):
        read_textgrid_words(broken)


def test_manifest_reads_quoted_references_and_selects(tmp_path):
    root = tmp_path / "shared" / "corpus"
    (root / "a").mkdir(parents=True)
    (root / "a" / "one.TextGrid").write_text(SHORT_TEXTGRID)
    (root / "manifest.tsv").write_text(
        "file\tduration_s\tkind\treference\tsource\n"
        "a/one.wav\t2.5\tshort\tgo forward\tx\n"
        'b/two.wav\t9\tlong_derived\t"He said ""hi"", twice"\ty\n'
    )
    nested = tmp_path / "work" / "deep"
    nested.mkdir(parents=True)
    assert find_default_manifest(nested) == root / "manifest.tsv"
    entries = load_manifest(root / "manifest.tsv")
    assert [(e.name, e.duration_s, e.kind) for e in entries] == [
        ("a/one.wav", 2.5, "short"),
        ("b/two.wav", 9.0, "long_derived"),
    ]
    assert entries[1].reference == 'He said "hi", twice'
    assert entries[0].path == root / "a" / "one.wav"
    assert entries[0].textgrid == root / "a" / "one.TextGrid" and entries[1].textgrid is None
    assert [e.name for e in select(entries, ["long_derived"])] == ["b/two.wav"]
    assert [e.name for e in select(entries, None, ["one.wav"])] == ["a/one.wav"]
    assert [e.name for e in select(entries, None, ["*/t*.wav"])] == ["b/two.wav"]
    with pytest.raises(WhisperFlowError, match="no files of kind ivr"):
        select(entries, ["ivr"])
    with pytest.raises(WhisperFlowError, match="no manifest file matches nope"):
        select(entries, None, ["nope"])


def test_config_specs():
    c = parse_config("flow+pruning:min_chunk=0.5,beam=5,model=base,pipeline=off")
    assert c.label == "flow+pruning:min_chunk=0.5,beam=5,model=base,pipeline=off"
    s = c.stream
    assert (s.policy, s.beam_pruning, s.min_chunk_s, s.beam_size, s.model, s.pipeline) == (
        "flow",
        True,
        0.5,
        5,
        "base",
        False,
    )
    assert parse_config("baseline").stream.resolved().hush is False
    assert parse_config("baseline+hush").stream.resolved().hush is True
    guarded = parse_config("flow+hush:guard=8").stream.resolved()
    assert (guarded.hush, guarded.guard_frames) == (True, 8) and parse_config(
        "baseline"
    ).stream.resolved().guard_frames == 0
    labelled = parse_config("+ hush word=baseline+hush:guard=8")
    assert labelled.label == "+ hush word" and labelled.stream.guard_frames == 8
    assert parse_config("peer").peer and not parse_config("flow").peer
    for bad, message in [
        ("nope", "unknown policy"),
        ("baseline+beam", "not a yes/no setting"),
        ("baseline:speed=2", "unknown setting 'speed'"),
        ("baseline:beam=wide", "whole number"),
        ("baseline:hush=maybe", "on or off"),
        ("baseline:min_chunk=0", "positive"),
        ("baseline:beam", "KEY=VALUE"),
    ]:
        with pytest.raises(WhisperFlowError, match=message):
            parse_config(bad)


def test_strongest_model_ranking():
    names = ["tiny.en", "base", "mlx-community/whisper-small-mlx", "mlx-community/whisper-large-v3-turbo", "base.en"]
    assert max(names, key=model_rank) == "mlx-community/whisper-large-v3-turbo"
    assert max(["tiny.en", "base", "base.en"], key=model_rank) == "base.en"
    assert max(["tiny.en", "tiny"], key=model_rank) == "tiny.en"


# --- results log and report ------------------------------------------------------------------------


def test_results_log_keeps_finished_records_and_drops_a_cut_off_line(tmp_path):
    path = tmp_path / "out" / "results.jsonl"
    log = ResultsLog(path)
    log.append({"type": "stream", "config": "baseline", "file": "a.wav"})
    with open(path, "a") as f:
        f.write('{"type": "stream", "conf')  # killed mid-write
    resumed = ResultsLog(path, resume=True)
    assert resumed.records == [{"type": "stream", "config": "baseline", "file": "a.wav"}]
    assert resumed.has(type="stream", file="a.wav") and not resumed.has(file="b.wav")
    resumed.append({"type": "offline", "file": "a.wav"})
    assert [json.loads(line)["type"] for line in path.read_text().splitlines()] == ["stream", "offline"]
    assert ResultsLog(path).records == [] and path.read_text() == ""  # a fresh run starts empty


def _stream(config, role, file, kind, wer, latencies, rounds=2):
    return {
        "type": "stream",
        "config": config,
        "settings": {},
        "pace": "realtime" if role == "measured" else "unaware",
        "role": role,
        "file": file,
        "kind": kind,
        "duration_s": 70.0 if kind == "long_derived" else 3.0,
        "words": [],
        "round_s": [0.5] * rounds,
        "done": {
            "audio_s": 3.0,
            "rounds": rounds,
            "encode_s": 0.6,
            "decode_s": 0.3,
            "cpu_s": 3.0,
            "encoder_gflops": 73.9,
            "forced": 1,
            "padded_retries": 1,
            "guard_stops": 2,
            "dropped_s": 0.0,
            "notices": [],
        },
        "beam": {"steps": 8, "sum": 8, "reduced": 0},
        "peak_rss_mb": 600.0,
        "wer": {"reference_words": 10, "substitutions": wer, "deletions": 0, "insertions": 0},
        "latencies": [[t, lat, True] for t, lat in latencies],
        "timing_source": "offline tiny.en",
    }


def test_report_table_json_and_plots(tmp_path):
    records = [
        {"type": "meta", "pace": "realtime", "reference_model": "tiny.en", "started": "now"},
        {
            "type": "offline",
            "model": "tiny.en",
            "file": "a",
            "kind": "short",
            "wer": {"reference_words": 10, "substitutions": 0, "deletions": 0, "insertions": 0},
        },
        _stream("baseline", "measured", "a", "short", 1, [(0.5, 2.0), (1.0, 3.0)]),
        _stream("baseline", "lower_bound", "a", "short", 2, [(0.5, 1.0), (1.0, 1.0)]),
        _stream("baseline", "measured", "b", "long_derived", 3, [(t, 2.0 + t / 70) for t in range(1, 70)]),
    ]
    summary = summarize_run(records)
    short, long, overall = summary["groups"]
    assert [g["kind"] for g in summary["groups"]] == ["short", "long_derived", "all"]
    row = short["rows"][0]
    assert row["wer"] == pytest.approx(0.1) and row["latency"]["mean"] == pytest.approx(2.5)
    assert row["lower_bound"]["mean"] == pytest.approx(1.0) and row["lower_bound"]["wer"] == pytest.approx(0.2)
    assert row["cost"]["rtf"] == pytest.approx(1 / 3) and row["cost"]["gflops_per_round"] == pytest.approx(36.95)
    assert short["gold"] == [{"model": "tiny.en", "files": 1, "wer": 0.0, "wer_counts": short["gold"][0]["wer_counts"]}]
    assert overall["rows"][0]["wer"] == pytest.approx(0.2) and overall["rows"][0]["files"] == 2
    table = markdown(summary)
    assert (
        "| baseline | 1 | 10.0 | 1 / 0 / 0 | 1 | 0.0 | 2.50 / 2.50 / 2.90 / 2.99 | – / – / – / – | – "
        "| 1.00 / 1.00 / 1.00 / 1.00 | 2 | 500 (300 / 150 / 50) | 0.33 |" in table
    )
    assert "| offline tiny.en (gold) | 1 | 0.0 | 0 / 0 / 0 |" in table
    assert overall["rows"][0]["forced"] == 2 and overall["rows"][0]["wer_counts"]["deletions"] == 0
    assert (overall["rows"][0]["padded_retries"], overall["rows"][0]["guard_stops"]) == (2, 4)
    assert table.splitlines()[8].endswith(
        "| 1 | – | 2 | – | – | – |"
    )  # padded retries, early retries not recorded, guard stops; skipped rounds and late words not recorded
    _, written = write_report(records, tmp_path)
    assert sorted(p.name for p in written) == [
        "ablation.png",
        "accuracy.md",
        "latency_over_time.png",
        "latency_vs_wer.png",
        "results.json",
        "table.md",
    ]
    assert all(p.stat().st_size > 1000 for p in written)
    assert json.loads((tmp_path / "results.json").read_text())["groups"][0]["rows"][0]["wer"] == pytest.approx(0.1)


def test_a_row_without_rounds_prints_dashes_for_them():
    peer = _stream("peer", "measured", "a", "short", 1, [(0.5, 2.0)])
    del peer["round_s"], peer["beam"], peer["done"]["rounds"], peer["done"]["encode_s"], peer["done"]["decode_s"]
    table = markdown(summarize_run([{"type": "meta", "pace": "realtime"}, peer]))
    row = next(line for line in table.splitlines() if line.startswith("| peer |"))
    assert "None" not in row and "| – | – (– / – / –) |" in row


def test_wer_difference_is_paired_by_file():
    files = [f"clip{i}" for i in range(12)]
    base = [_stream("baseline", "measured", f, "short", i % 3, []) for i, f in enumerate(files)]
    same = wer_difference([_stream("flow", "measured", f, "short", i % 3, []) for i, f in enumerate(files)], base)
    assert (same.files, same.points, same.low, same.high) == (12, 0.0, 0.0, 0.0)
    one_more = wer_difference(
        [_stream("flow", "measured", f, "short", i % 3 + 1, []) for i, f in enumerate(files)], base
    )
    assert one_more.points == pytest.approx(10.0) and one_more.low == pytest.approx(10.0)  # worse on every file
    better_on_some = [
        _stream("flow", "measured", f, "short", i % 3 + (1 if i < 6 else -1 if i % 3 else 0), [])
        for i, f in enumerate(files)
    ]
    mixed = wer_difference(better_on_some, base)  # 6 files one error worse, 4 one better: not a sure difference
    assert mixed.points == pytest.approx(100 * 2 / 120) and mixed.low < 0 < mixed.high
    assert wer_difference(base[:9], base[:9]) is None  # too few files to say
    records = [{"type": "meta", "pace": "unaware"}] + [
        _stream(config, "measured", f, "short", errors, [(1.0, 1.0)])
        for config, errors in (("baseline", 1), ("flow", 2))
        for f in files
    ]
    assert (
        "WER against the first row (baseline), in points, paired by file (95 % bootstrap interval over 12 "
        "files): flow +10.0 [+10.0, +10.0]."
    ) in markdown(summarize_run(records))


def test_the_table_says_what_its_latency_measures_at_each_pace():
    intro = {
        pace: markdown(summarize_run([{"type": "meta", "pace": pace}])).splitlines()[2]
        for pace in ("realtime", "unaware", "fast")
    }
    assert "computation-aware at `--pace realtime`" in intro["realtime"]
    assert "computation-unaware at `--pace unaware`" in intro["unaware"]
    assert "measure no latency" in intro["fast"] and "computation-aware" not in intro["fast"]

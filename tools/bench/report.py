"""Summaries of a run's records: a Markdown table per kind of audio, results.json with every number,
and the plots (tools.bench.plots)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from engine.scoring.latency import summarize
from engine.scoring.wer import ZERO, WerCounts
from tools.bench import machine
from tools.bench.cost import summarize_costs
from tools.bench.draws import compare_draws
from tools.bench.final_score import changed_per_100, text_counts
from tools.bench.manifest import NOT_HEADLINE_KINDS
from tools.bench.paired import wer_difference

ALL = "all"  # the group pooling every kind of the run but NOT_HEADLINE_KINDS


def _wer(records: list[dict], text: str = "confirmed") -> WerCounts:
    return sum((text_counts(r, text) for r in records), ZERO)


def _latency(records: list[dict], key: str = "latencies") -> dict:
    return asdict(summarize([lat for r in records for _, lat, _ in r.get(key, [])]))


def _done_total(records: list[dict], key: str) -> int | None:
    """A total from the streams' done records (None if a record does not say): words confirmed without
    agreement (forced), padded retries of runaway rounds, rounds ended by the guard, seconds of audio dropped."""
    counts = [r["done"].get(key) for r in records]
    return None if None in counts else sum(counts)


def _offline_counts(measured: list[dict], offline: list[dict]) -> dict[str, WerCounts]:
    """WER counts per file of the offline transcripts by the row's model, on the files the row ran (none for a row
    without a WhisperFlow model: the peer, a scored JSONL)."""
    model = (measured[0].get("settings") or {}).get("model") if measured else None
    files = {r["file"] for r in measured}
    return {r["file"]: WerCounts(**r["wer"]) for r in offline if r["model"] == model and r["file"] in files}


def _row(config: str, measured: list[dict], lower: list[dict], offline: dict[str, WerCounts]) -> dict:
    counts, lower_counts = _wer(measured), _wer(lower)
    final_counts = _wer(measured, "final")
    sources: dict[str, int] = {}
    for r in measured:
        sources[r["timing_source"]] = sources.get(r["timing_source"], 0) + 1
    return {
        "config": config,
        "settings": measured[0].get("settings") if measured else None,
        "pace": measured[0]["pace"] if measured else None,
        "files": len({r["file"] for r in measured}),
        "draws": len({r.get("draw", 1) for r in measured}),
        "audio_s": sum(r["done"]["audio_s"] for r in measured),
        "wer": counts.wer,
        "wer_counts": asdict(counts),
        "final_wer": final_counts.wer,
        "final_wer_counts": asdict(final_counts),
        "offline_wer": sum(offline.values(), ZERO).wer,
        "final_latency": asdict(summarize([lat for r in measured for lat in r.get("final_latencies", [])])),
        "changed_per_100": changed_per_100(measured),
        "forced": _done_total(measured, "forced"),
        "padded_retries": _done_total(measured, "padded_retries"),
        "early_retries": _done_total(measured, "early_retries"),
        "guard_stops": _done_total(measured, "guard_stops"),
        "budget_stops": _done_total(measured, "budget_stops"),
        "skipped_rounds": _done_total(measured, "skipped_rounds"),
        "late": _done_total(measured, "late"),
        "dropped_s": _done_total(measured, "dropped_s"),
        "latency": _latency(measured),
        "shown": _latency(measured, "shown_latencies"),
        "corrections": _done_total(measured, "corrections"),
        "lower_bound": {**_latency(lower), "wer": lower_counts.wer, "files": len(lower)},
        "cost": asdict(summarize_costs(measured)) if measured else None,
        "timing_sources": sources,
        "notices": sorted({n for r in measured for n in r["done"].get("notices", [])}),
    }


def _group(kind: str, streams: list[dict], offline: list[dict], lower_is_measured: bool) -> dict:
    configs = list(dict.fromkeys(r["config"] for r in streams))
    measured = {c: [r for r in streams if r["config"] == c and r["role"] == "measured"] for c in configs}
    gold_by_config = {c: _offline_counts(measured[c], offline) for c in configs}
    rows = []
    for config in configs:
        lower = (
            measured[config]
            if lower_is_measured
            else [r for r in streams if r["config"] == config and r["role"] == "lower_bound"]
        )
        rows.append(_row(config, measured[config], lower, gold_by_config[config]))
    for config, row in zip(configs[1:], rows[1:]):  # how sure the WER difference from the first row is
        difference = wer_difference(measured[config], measured[configs[0]])
        row["wer_vs_first"] = asdict(difference) if difference else None
    gold = []
    for model in dict.fromkeys(r["model"] for r in offline):
        mine = [r for r in offline if r["model"] == model]
        counts = _wer(mine)
        gold.append({"model": model, "files": len(mine), "wer": counts.wer, "wer_counts": asdict(counts)})
    return {
        "kind": kind,
        "kinds": list(dict.fromkeys(r["kind"] for r in streams + offline)),
        "rows": rows,
        "gold": gold,
        "draws": compare_draws(measured, gold_by_config),
    }


def _file_summary(r: dict) -> dict:
    return {
        "config": r["config"],
        "role": r["role"],
        "pace": r["pace"],
        "file": r["file"],
        "kind": r["kind"],
        "draw": r.get("draw", 1),
        "wer": WerCounts(**r["wer"]).wer,
        "final_wer": text_counts(r, "final").wer,
        "latency": _latency([r]),
        "cost": asdict(summarize_costs([r])),
        "timing_source": r["timing_source"],
        "machine": r.get("machine"),
    }


def summarize_run(records: list[dict]) -> dict:
    """Every number of the run: per kind (and pooled over the kinds with exact references), per configuration, and
    per file."""
    meta = next((r for r in reversed(records) if r["type"] == "meta"), {})  # the latest invocation's
    streams = [r for r in records if r["type"] == "stream"]
    offline = [r for r in records if r["type"] == "offline"]
    lower_is_measured = meta.get("pace") == "unaware"
    kinds = list(dict.fromkeys(r["kind"] for r in streams + offline))
    groups = [
        _group(k, [r for r in streams if r["kind"] == k], [r for r in offline if r["kind"] == k], lower_is_measured)
        for k in kinds
    ]
    pooled = [k for k in kinds if k not in NOT_HEADLINE_KINDS]
    if len(pooled) > 1:
        headline = [r for r in streams if r["kind"] in pooled], [r for r in offline if r["kind"] in pooled]
        groups.append(_group(ALL, *headline, lower_is_measured))
    notes = list(dict.fromkeys(r["text"] for r in records if r["type"] == "note"))
    files = [_file_summary(r) for r in streams]
    return {
        "meta": meta,
        "groups": groups,
        "files": files,
        "notes": notes,
        "machine": machine.summarize([r["machine"] for r in streams if r.get("machine")]),
    }


def _f(x: float | None, digits: int = 2, scale: float = 1.0) -> str:
    return "–" if x is None else f"{x * scale:.{digits}f}"


def _sdi(counts: dict) -> str:
    """Substitutions / deletions / insertions."""
    return f"{counts['substitutions']} / {counts['deletions']} / {counts['insertions']}"


def _count(value: float | None) -> str:
    return "–" if value is None else f"{value:g}" if isinstance(value, int) else f"{value:.1f}"


def _lat(stats: dict) -> str:
    return " / ".join(_f(stats.get(k)) for k in ("mean", "median", "p90", "p99"))


HEADER = (
    "| config | files | WER % | sub / del / ins | forced | dropped s | latency s (mean / median / p90 / p99) "
    "| first shown s (mean / median / p90 / p99) | corrections | lower bound s (mean / median / p90 / p99) "
    "| rounds | round ms (encode / decode / other) | RTF | CPU s per audio s | peak RSS MB "
    "| GFLOPs per round | GFLOPs total | avg beam | reduced beam % | padded retries | early retries | guard stops "
    "| budget stops | rounds skipped (silence) | late (max delay) |"
)


_CLOCKS = {  # what the latency columns measure at the paces that are not computation-aware
    "fast": "At `--pace fast` the audio arrives faster than it is spoken, so the latency columns measure no latency "
    "(WER, corrections and costs hold).",
    "unaware": "Latency is computation-unaware at `--pace unaware` (the clock advances by audio only).",
}


def intro(meta: dict) -> list[str]:
    """The table's title and how it was measured."""
    if "pace" in meta:
        title = f"# WhisperFlow bench ({meta.get('started', '')})"
        clock = _CLOCKS.get(
            meta["pace"],
            f"Latency is computation-aware at `--pace {meta['pace']}`; the lower bound "
            "is the computation-unaware pace.",
        )
        reference = f"offline {meta.get('reference_model', '?')}"
    else:  # a folder of --score-jsonl rows alone: no bench run wrote its meta
        title = "# WhisperFlow bench: scored stream JSONLs"
        clock = (
            "Each row is a stream JSONL scored with `whisperflow bench --score-jsonl`; its latency is on the clock "
            "the JSONL recorded."
        )
        reference = "an offline transcription"
    return [
        title,
        "",
        f"{clock} Word end times: forced alignment where the corpus has it, else {reference}. "
        "WER after Whisper's English normalizer.",
        "",
    ]


def markdown(summary: dict) -> str:
    """One table per kind of audio, with the offline gold rows, and notes on how it was measured."""
    meta = summary["meta"]
    lines = intro(meta)
    for group in summary["groups"]:
        lines += [f"## {group['kind']}", "", HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
        for row in group["rows"]:
            c = row["cost"] or {}
            split = " / ".join(_f(c.get(k), 0, 1000) for k in ("encode_s", "decode_s", "other_s"))
            lines.append(
                f"| {row['config']} | {row['files']} | {_f(row['wer'], 1, 100)} | {_sdi(row['wer_counts'])} "
                f"| {_count(row['forced'])} | {_count(row.get('dropped_s'))} | {_lat(row['latency'])} "
                f"| {_lat(row['shown']) if row.get('shown') else '–'} | {_count(row.get('corrections'))} "
                f"| {_lat(row['lower_bound'])} | {_count(c.get('rounds'))} "
                f"| {_f(c.get('mean_round_s'), 0, 1000)} ({split}) "
                f"| {_f(c.get('rtf'))} | {_f(c.get('cpu_per_audio_s'))} | {_f(c.get('peak_rss_mb'), 0)} "
                f"| {_f(c.get('gflops_per_round'), 1)} | {_f(c.get('gflops_total'), 0)} | {_f(c.get('avg_beam'))} "
                f"| {_f(c.get('reduced_beam_fraction'), 1, 100)} | {_count(row.get('padded_retries'))} "
                f"| {_count(row.get('early_retries'))} "
                f"| {_count(row.get('guard_stops'))} | {_count(row.get('budget_stops'))} "
                f"| {_count(row.get('skipped_rounds'))} "
                f"| {_count(row.get('late'))} |"
            )
        for gold in group["gold"]:
            lines.append(
                f"| offline {gold['model']} (gold) | {gold['files']} | {_f(gold['wer'], 1, 100)} "
                f"| {_sdi(gold['wer_counts'])} " + "| – " * (HEADER.count(" | ") - 3) + "|"
            )
        lines += _differences(group["rows"])
        sources = sorted({s for row in group["rows"] for s in row["timing_sources"]})
        notices = sorted({n for row in group["rows"] for n in row["notices"]})
        lines += ["", f"Word end times from: {', '.join(sources) or '–'}."]
        lines += [f"Note: {n}." for n in notices]
        lines.append("")
    lines += [f"Note: {n}." for n in summary.get("notes", [])]
    host = meta.get("machine", {})
    if host:
        blas = f", {host['blas']}" if host.get("blas") else ""
        lines.append(f"Machine: {host.get('system')}, {host.get('cpus')} CPUs, {host.get('processor')}{blas}.")
    if summary.get("machine"):
        lines.append(machine.describe(summary["machine"]))
    return "\n".join(lines) + "\n"


def _differences(rows: list[dict]) -> list[str]:
    """A line under the table: each row's WER minus the first row's, with its 95 % interval."""
    paired = [(row["config"], row["wer_vs_first"]) for row in rows[1:] if row.get("wer_vs_first")]
    if not paired:
        return []
    items = "; ".join(f"{config} {d['points']:+.1f} [{d['low']:+.1f}, {d['high']:+.1f}]" for config, d in paired)
    return [
        "",
        f"WER against the first row ({rows[0]['config']}), in points, paired by file (95 % bootstrap "
        f"interval over {paired[0][1]['files']} files): {items}.",
    ]


def write_report(records: list[dict], out_dir: Path) -> tuple[str, list[Path]]:
    """results.json, table.md, accuracy.md (tools.bench.accuracy_table) and the plots in out_dir; returns the two
    tables and the files written."""
    from tools.bench.accuracy_table import accuracy_markdown
    from tools.bench.plots import write_plots
    from tools.bench.words_table import words_markdown

    summary = summarize_run(records)
    out_dir.mkdir(parents=True, exist_ok=True)
    table, accuracy = markdown(summary), accuracy_markdown(summary)
    (out_dir / "results.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    (out_dir / "table.md").write_text(table, encoding="utf-8")
    (out_dir / "accuracy.md").write_text(accuracy, encoding="utf-8")
    written = [out_dir / "results.json", out_dir / "table.md", out_dir / "accuracy.md"]
    written += write_plots(summary, [r for r in records if r["type"] == "stream"], out_dir)
    words = words_markdown(records)
    if words:
        (out_dir / "words.md").write_text(words, encoding="utf-8")
        written.append(out_dir / "words.md")
    return table + "\n" + accuracy + ("\n" + words if words else ""), written

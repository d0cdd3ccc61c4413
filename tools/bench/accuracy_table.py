"""The accuracy report (accuracy.md): per kind of audio and pooled, each configuration's WER of its confirmed
captions and of its final text beside the offline transcript's, what the final pass costs in time and rewrites,
and the WER differences paired by draw (tools.bench.draws)."""

from __future__ import annotations

from tools.bench.report import ALL, intro

COLUMNS = (
    "config",
    "files",
    "draws",
    "WER % confirmed",
    "WER % final",
    "offline WER %",
    "latency s (mean / p90)",
    "first shown s (mean)",
    "final latency s (mean)",
    "changed per 100 words",
    "CPU s per audio s",
    "peak RSS MB",
)
DIFFERENCE_COLUMNS = ("config", "text", "− offline", "− baseline")
EXPLANATION = (
    "Final text: the confirmed words with each utterance's final record applied (a stream without a final pass "
    "ends with its confirmed words). Final latency: from the end of an utterance being detected to its final text "
    "being reported. Changed: substitutions, insertions and deletions of normalized words between an utterance's "
    "confirmed words and its final words, per 100 confirmed words. Offline: `whisperflow transcribe` (greedy, 30 s "
    "windows) on the whole file with the row's model."
)


def _cell(x: float | None, digits: int = 2, scale: float = 1.0) -> str:
    return "–" if x is None else f"{x * scale:.{digits}f}"


def _table(header: tuple[str, ...], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def _config_row(row: dict) -> list[str]:
    cost = row["cost"] or {}
    latency = f"{_cell(row['latency']['mean'])} / {_cell(row['latency']['p90'])}"
    return [
        row["config"],
        str(row["files"]),
        str(row["draws"]),
        _cell(row["wer"], 1, 100),
        _cell(row["final_wer"], 1, 100),
        _cell(row["offline_wer"], 1, 100),
        latency,
        _cell(row["shown"]["mean"]),
        _cell(row["final_latency"]["mean"]),
        _cell(row["changed_per_100"], 1),
        _cell(cost.get("cpu_per_audio_s")),
        _cell(cost.get("peak_rss_mb"), 0),
    ]


def _offline_row(gold: dict) -> list[str]:
    row = [f"offline {gold['model']}", str(gold["files"]), "–", "–", "–", _cell(gold["wer"], 1, 100)]
    return row + ["–"] * (len(COLUMNS) - len(row))


def _difference(d: dict | None) -> str:
    if d is None:
        return "–"
    interval = "" if d["low"] is None else f" [{d['low']:+.1f}, {d['high']:+.1f}]"
    return f"{d['mean']:+.1f}{interval}"


def _differences(group: dict) -> list[str]:
    """The paired differences by draw, in points, where any row has one."""
    rows = [
        [c["config"], c["text"], _difference(c["offline"]), _difference(c["baseline"])]
        for c in group["draws"]
        if c["offline"] or c["baseline"]
    ]
    if not rows:
        return []
    draws = max(d["draws"] for c in group["draws"] for d in (c["offline"], c["baseline"]) if d)
    return [
        "",
        f"WER differences in points, mean over {draws} draw(s) of each draw's difference "
        "[95 % t-interval over draws, from 3 draws]:",
        "",
        *_table(DIFFERENCE_COLUMNS, rows),
    ]


def accuracy_markdown(summary: dict) -> str:
    """One table per kind of audio and one pooled over the kinds with exact references."""
    meta = summary["meta"]
    started = f" ({meta['started']})" if "started" in meta else ""
    lines = [f"# WhisperFlow bench: confirmed and final text{started}", ""]
    lines += intro(meta)[2:] + [EXPLANATION, ""]
    for group in summary["groups"]:
        title = f"{ALL}: {', '.join(group['kinds'])}" if group["kind"] == ALL else group["kind"]
        rows = [_config_row(r) for r in group["rows"]] + [_offline_row(g) for g in group["gold"]]
        lines += [f"## {title}", "", *_table(COLUMNS, rows), *_differences(group), ""]
    return "\n".join(lines) + "\n"

"""The paper's pictures, as PNGs: latency against WER (with the offline gold), an ablation bar chart of
latency, per-word latency over stream time, and the soak's latency per minute."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

LONG_FILE_S = 60.0
MAX_TIMELINES = 3
LEGEND_INSIDE = 6  # a legend with more entries than this goes beside the axes, which are drawn wider for it


def _axes_grid(n: int, width: float = 6.0, height: float = 4.2):
    fig = Figure(figsize=(width * n, height), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    return fig, axes


def _colors(n: int) -> list:
    """n colours that tell the configurations apart: matplotlib's ten, or twenty paired shades for more."""
    if n <= 10:
        return [f"C{i}" for i in range(10)]
    from matplotlib import colormaps

    return list(colormaps["tab20"].colors)


def _legend(ax, entries: int, loc: str = "best") -> None:
    """The legend inside the axes at loc, or beside them when it is long enough to cover the data."""
    if entries > LEGEND_INSIDE:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(fontsize="small", loc=loc)


def _plottable(groups: list[dict]) -> list[dict]:
    return [g for g in groups if any(r["latency"]["mean"] is not None for r in g["rows"])]


def latency_vs_wer(summary: dict, path: Path) -> bool:
    """One point per configuration (filled: computation-aware, hollow: unaware lower bound); gold as lines."""
    groups = _plottable(summary["groups"])
    if not groups:
        return False
    fig, axes = _axes_grid(len(groups), width=8.0 if max(len(g["rows"]) for g in groups) > LEGEND_INSIDE else 6.0)
    for ax, group in zip(axes, groups):
        colors = _colors(len(group["rows"]))
        for i, row in enumerate(group["rows"]):
            color = colors[i % len(colors)]
            lat, wer = row["latency"]["mean"], row["wer"]
            if lat is None or wer is None:
                continue
            ax.plot([lat], [wer * 100], "o", color=color, label=row["config"])
            lb, lb_wer = row["lower_bound"]["mean"], row["lower_bound"]["wer"]
            if lb is not None and lb_wer is not None:
                ax.plot([lb], [lb_wer * 100], "o", mfc="none", color=color)
                ax.plot([lb, lat], [lb_wer * 100, wer * 100], ":", color=color, lw=1)
        for j, gold in enumerate(group["gold"]):
            if gold["wer"] is not None:
                ax.axhline(
                    gold["wer"] * 100, ls="--", color="0.4", lw=1 + j * 0.5, label=f"offline {gold['model']} (gold)"
                )
        bounds = any(r["lower_bound"]["mean"] is not None for r in group["rows"])
        ax.set_title(f"{group['kind']}: latency vs WER" + (" (hollow: unaware lower bound)" if bounds else ""))
        ax.set_xlabel("mean per-word latency (s)")
        ax.set_ylabel("WER (%)")
        ax.set_xlim(0, ax.get_xlim()[1] * 1.05)  # room right of the slowest point for its marker
        ax.set_ylim(0, ax.get_ylim()[1] * 1.1)  # and above the highest
        ax.grid(alpha=0.3)
        _legend(ax, len(group["rows"]) + len(group["gold"]))
    fig.savefig(path, dpi=120)
    return True


def ablation(summary: dict, path: Path) -> bool:
    """The paper's Figure 8: per configuration, mean latency to confirmation and to first showing (whiskers to
    p90) beside the computation-unaware lower bound where the run has one, with each configuration's WER above
    its bars."""
    groups = _plottable(summary["groups"])
    if not groups:
        return False
    fig, axes = _axes_grid(len(groups), width=max(5.0, 1.4 * max(len(g["rows"]) for g in groups)))
    bars = (("latency", "confirmed", 1.0), ("shown", "first shown", 0.65), ("lower_bound", "unaware lower bound", 0.3))
    for ax, group in zip(axes, groups):
        rows = group["rows"]
        x = np.arange(len(rows))
        present = [b for b in bars if any((r.get(b[0]) or {}).get("mean") is not None for r in rows)]
        width = 0.8 / len(present)
        for i, (key, label, alpha) in enumerate(present):
            stats = [r.get(key) or {} for r in rows]
            means = np.array([s.get("mean") if s.get("mean") is not None else np.nan for s in stats])
            p90 = np.array([s.get("p90") if s.get("p90") is not None else np.nan for s in stats])
            upper = np.clip(np.nan_to_num(p90 - means), 0, None)
            offset = (i - (len(present) - 1) / 2) * width
            ax.bar(
                x + offset,
                np.nan_to_num(means),
                width,
                color="C0",
                alpha=alpha,
                label=label,
                yerr=[np.zeros_like(upper), upper],
                capsize=2,
            )
        top = max([r["latency"]["p90"] or 0 for r in rows] + [0.5])
        for xi, r in zip(x, rows):
            ax.text(xi, top * 1.05, f"WER {100 * r['wer']:.1f}%", ha="center", fontsize="x-small")
        ax.set_ylim(0, top * 1.15)
        ax.set_xticks(x, [r["config"] for r in rows], rotation=25, ha="right", fontsize="small")
        ax.set_ylabel("per-word latency (s): mean, whisker to p90")
        ax.set_title(f"{group['kind']}: latency and WER by configuration")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    fig.savefig(path, dpi=120)
    return True


def _rolling_median(values: np.ndarray, window: int = 15) -> np.ndarray:
    half = window // 2
    return np.array([np.median(values[max(0, i - half) : i + half + 1]) for i in range(len(values))])


def latency_over_time(streams: list[dict], path: Path) -> bool:
    """Per-word latency against the word's time in the stream, for the long files (or the longest one)."""
    with_words = [r for r in streams if r["latencies"]]
    if not with_words:
        return False
    long_files = list(dict.fromkeys(r["file"] for r in with_words if r["duration_s"] >= LONG_FILE_S))
    files = long_files[:MAX_TIMELINES] or [max(with_words, key=lambda r: r["duration_s"])["file"]]
    configs = list(dict.fromkeys(r["config"] for r in with_words))
    fig = Figure(figsize=(14 if len(configs) > LEGEND_INSIDE else 11, 3.6 * len(files)), layout="constrained")
    axes = fig.subplots(len(files), 1, squeeze=False)[:, 0]
    colors = _colors(len(configs))
    for ax, name in zip(axes, files):
        for r in (r for r in with_words if r["file"] == name):
            color = colors[configs.index(r["config"]) % len(colors)]
            t = np.array([x[0] for x in r["latencies"]])
            lat = np.array([x[1] for x in r["latencies"]])
            measured = r["role"] == "measured"
            if measured:
                ax.scatter(t, lat, s=6, color=color, alpha=0.35)
            ax.plot(
                t,
                _rolling_median(lat),
                "-" if measured else "--",
                color=color,
                lw=1.5 if measured else 1,
                label=f"{r['config']} ({r['pace']})",
            )
        ax.set_title(f"{name}: per-word latency over the stream (line: rolling median of 15 words)")
        ax.set_xlabel("stream time: end of the spoken word (s)")
        ax.set_ylabel("latency (s)")
        ax.grid(alpha=0.3)
        _legend(ax, len(configs), loc="upper left")
    fig.savefig(path, dpi=120)
    return True


def write_plots(summary: dict, streams: list[dict], out_dir: Path) -> list[Path]:
    """The PNGs that there is data for; returns their paths."""
    written = []
    for name, draw, data in (
        ("latency_vs_wer.png", latency_vs_wer, summary),
        ("ablation.png", ablation, summary),
        ("latency_over_time.png", latency_over_time, streams),
    ):
        if draw(data, out_dir / name):
            written.append(out_dir / name)
    return written


def soak_latency(series: dict[str, np.ndarray], path: Path, minute_s: float = 60.0) -> None:
    """The soak's latency over an hour: per listener, the median and p90 of each minute's words."""
    fig = Figure(figsize=(11, 4), layout="constrained")
    ax = fig.subplots()
    for i, (name, pairs) in enumerate(series.items()):
        if not len(pairs):
            continue
        minute = (pairs[:, 0] // minute_s).astype(int)
        minutes = np.unique(minute)
        for stat, style in ((50, "-"), (90, "--")):
            values = [np.percentile(pairs[minute == m, 1], stat) for m in minutes]
            ax.plot(minutes + 0.5, values, style, color=f"C{i}", label=f"{name} p{stat}")
    ax.set_title("soak: confirmed-word latency per minute of speech")
    ax.set_xlabel("minute of the stream")
    ax.set_ylabel("latency (s)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    fig.savefig(path, dpi=120)

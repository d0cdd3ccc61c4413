"""The bench's words-to-know table (words.md): per kind of audio and configuration, WER and how the listed words
fared (tools.bench.word_lists): errors on each recording's own words (listed or not) and false alarms of the list the
row ran with (its own words for a row without a list), in the confirmed and the final text."""

from __future__ import annotations

from engine.scoring.wer import ZERO, WerCounts
from tools.bench.final_score import text_counts
from tools.bench.report import ALL

HEADER = (
    "| config | list | files | audio s | WER % | final WER % | own words said | errors on them (confirmed / final) "
    "| false alarms (confirmed / final) | false alarms per 10 min (final) |"
)


def _wer(records: list[dict], text: str = "confirmed") -> WerCounts:
    return sum((text_counts(r, text) for r in records), ZERO)


def _total(records: list[dict], which: str, text: str, key: str) -> int:
    return sum(r["listed"][which][text][key] for r in records)


def _row(config: str, records: list[dict]) -> str:
    audio_s = sum(r["duration_s"] for r in records)
    ran_with = records[0].get("word_list", "none")
    which = "unrelated" if ran_with == "unrelated" else "own"
    alarms = _total(records, which, "final", "false_alarms")
    cells = [
        config,
        ran_with,
        str(len({r["file"] for r in records})),
        f"{audio_s:.0f}",
        f"{100 * _wer(records).wer:.1f}",
        f"{100 * _wer(records, 'final').wer:.1f}",
        str(_total(records, "own", "final", "said")),
        f"{_total(records, 'own', 'confirmed', 'errors')} / {_total(records, 'own', 'final', 'errors')}",
        f"{_total(records, which, 'confirmed', 'false_alarms')} / {alarms}",
        f"{600 * alarms / audio_s:.2f}" if audio_s else "–",
    ]
    return "| " + " | ".join(cells) + " |"


def words_markdown(records: list[dict]) -> str | None:
    """One table per kind (and all kinds pooled, when there are several) of the measured stream records that carry
    listed-word scores; None when none does."""
    streams = [r for r in records if r["type"] == "stream" and r.get("role") == "measured" and "listed" in r]
    if not streams:
        return None
    kinds = sorted({r["kind"] for r in streams})
    lines = ["# Words to know", ""]
    for kind in kinds + ([ALL] if len(kinds) > 1 else []):
        group = [r for r in streams if kind in (ALL, r["kind"])]
        lines += [f"## {kind}", "", HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
        for config in dict.fromkeys(r["config"] for r in group):
            lines.append(_row(config, [r for r in group if r["config"] == config]))
        lines.append("")
    return "\n".join(lines)

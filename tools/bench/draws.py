"""How sure a WER difference is over draws: the same plan run N times (``--draws``), each row's WER minus a
reference's (the offline transcript, or the baseline row of the same draw) per draw, and a t-interval over draws.

A realtime row is one draw of many: the rounds fall where the machine's load lets them, so the same configuration
confirms different words from one run to the next. Pairing by draw compares rows that ran under the same load.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from engine.scoring.wer import ZERO, WerCounts
from tools.bench.final_score import text_counts

MIN_DRAWS = 3  # fewer draws than this give a mean without an interval
BASELINE = "baseline"
# Two-sided 95 % quantiles of Student's t by degrees of freedom (1-30); beyond, the Cornish-Fisher expansion.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131)
_T95 += (2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
_Z975 = 1.959964


def t95(df: int) -> float:
    """The 97.5th percentile of Student's t with df degrees of freedom."""
    if df <= len(_T95):
        return _T95[df - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


@dataclass(frozen=True)
class DrawDifference:
    """Mean over draws of a row's WER minus a reference's, in points, with a 95 % t-interval (None below MIN_DRAWS
    draws) and each draw's difference."""

    draws: int
    mean: float
    low: float | None
    high: float | None
    per_draw: list[float]


def t_interval(differences: list[float]) -> DrawDifference:
    n = len(differences)
    mean = sum(differences) / n
    if n < MIN_DRAWS:
        return DrawDifference(n, mean, None, None, differences)
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return DrawDifference(n, mean, mean - half, mean + half, differences)


Counts = dict[str, WerCounts]  # per file


def by_draw(records: list[dict], text: str) -> dict[int, Counts]:
    """Each draw's WER counts per file for the confirmed or final text (records without a draw are draw 1)."""
    draws: dict[int, Counts] = {}
    for r in records:
        draws.setdefault(r.get("draw", 1), {})[r["file"]] = text_counts(r, text)
    return draws


def paired_over_draws(row: dict[int, Counts], reference: dict[int, Counts]) -> DrawDifference | None:
    """Per draw, the row's WER minus the reference's over the files both have; None if no draw has any."""
    differences = []
    for draw, mine in sorted(row.items()):
        theirs = reference.get(draw, {})
        files = sorted(mine.keys() & theirs.keys())
        if files:
            a, b = sum((mine[f] for f in files), ZERO), sum((theirs[f] for f in files), ZERO)
            differences.append(100 * (a.errors - b.errors) / max(b.reference_words, 1))
    return t_interval(differences) if differences else None


def compare_draws(measured: dict[str, list[dict]], offline: dict[str, Counts]) -> list[dict]:
    """For each configuration and each text (confirmed, final): its paired difference from the offline transcript
    of its model (offline: per configuration, WER counts per file, the same in every draw) and from the baseline
    row, where there is one."""
    comparisons = []
    for config, records in measured.items():
        for text in ("confirmed", "final"):
            row = by_draw(records, text)
            gold = offline.get(config)
            versus_offline = paired_over_draws(row, dict.fromkeys(row, gold)) if gold else None
            versus_baseline = None
            if config != BASELINE and measured.get(BASELINE):
                versus_baseline = paired_over_draws(row, by_draw(measured[BASELINE], text))
            comparisons.append(
                {
                    "config": config,
                    "text": text,
                    "offline": versus_offline and asdict(versus_offline),
                    "baseline": versus_baseline and asdict(versus_baseline),
                }
            )
    return comparisons

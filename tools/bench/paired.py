"""How sure a WER difference between two configurations is: a paired bootstrap over the files both ran.

A few errors move a row's WER by tenths of a point on 51 short clips, and clips differ far more than configurations
do. Resampling whole files (with replacement) and recomputing both rows' WER on the same resample gives an interval
for the difference that accounts for that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.scoring.wer import WerCounts

MIN_FILES = 10  # fewer files than this give no useful interval
RESAMPLES = 10_000


@dataclass(frozen=True)
class WerDifference:
    """WER of a row minus WER of the reference row, in points, with a 95 % bootstrap interval."""

    files: int
    points: float
    low: float
    high: float


def wer_difference(rows: list[dict], reference: list[dict], seed: int = 0) -> WerDifference | None:
    """rows and reference: one stream record per file and draw (with "file" and "wer" counts; several draws of a
    file count as several files). None with fewer than MIN_FILES files in common."""
    a = {(r["file"], r.get("draw", 1)): WerCounts(**r["wer"]) for r in rows}
    b = {(r["file"], r.get("draw", 1)): WerCounts(**r["wer"]) for r in reference}
    files = sorted(set(a) & set(b))
    if len(files) < MIN_FILES:
        return None
    errors_a = np.array([a[f].errors for f in files], float)
    errors_b = np.array([b[f].errors for f in files], float)
    words = np.array([b[f].reference_words for f in files], float)
    picks = np.random.default_rng(seed).integers(0, len(files), (RESAMPLES, len(files)))
    resampled = 100 * (errors_a[picks].sum(1) - errors_b[picks].sum(1)) / np.maximum(words[picks].sum(1), 1)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return WerDifference(len(files), 100 * (errors_a.sum() - errors_b.sum()) / words.sum(), float(low), float(high))

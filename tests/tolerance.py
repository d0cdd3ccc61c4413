"""Float comparisons that hold for any correct BLAS kernel and thread count (OpenBLAS picks its kernel per
CPU, and OPENBLAS_CORETYPE or the thread count change the order of float32 sums): errors are measured
relative to the values compared. A real bug is off by orders of magnitude more."""

import numpy as np

MAX_REL = 1e-4  # largest error, as a fraction of the largest magnitude compared
MEAN_REL = 1e-5  # mean error, as a fraction of the mean magnitude


def assert_close(actual, expected, max_rel: float = MAX_REL, mean_rel: float = MEAN_REL) -> None:
    got, want = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    diff = np.abs(got - want)
    largest, typical = max(np.abs(want).max(), 1e-30), max(np.abs(want).mean(), 1e-30)
    assert diff.max() <= max_rel * largest, f"max error {diff.max():.3g} against values up to {largest:.3g}"
    assert diff.mean() <= mean_rel * typical, f"mean error {diff.mean():.3g} against a mean value of {typical:.3g}"

"""GELU from numpy's exp: float64 GELU to float32 precision, in place, over values of every size and sign."""

import math

import numpy as np
import pytest
from scipy.special import erf

from engine.model.gelu import BLOCK, gelu_in_place


def exact(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return x * 0.5 * (1.0 + erf(x / math.sqrt(2)))


def test_matches_float64_gelu_to_float32_precision():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 3, 3 * BLOCK + 17), np.linspace(-12, 12, 2001), [0.0, -0.0, 1e-30, -40, 40]])
    x = x.astype(np.float32)
    got = gelu_in_place(x.copy())
    # scipy's float32 erf in the same formula is off by up to ~5e-7 here; a wrong coefficient by orders more
    assert np.abs(got - exact(x)).max() <= 1e-6 * np.maximum(1.0, np.abs(x)).max()
    assert np.all(np.abs(got - exact(x)) <= 1e-6 * np.maximum(1.0, np.abs(x)))
    assert np.all(np.isfinite(got))


def test_works_in_place_on_any_shape_and_returns_its_input():
    x = np.linspace(-3, 3, 2 * 1536, dtype=np.float32).reshape(2, 1536)
    want = exact(x)
    out = gelu_in_place(x)
    assert out is x
    np.testing.assert_allclose(x, want, atol=1e-6)


def test_refuses_an_array_it_cannot_update_in_place():
    with pytest.raises(ValueError, match="contiguous"):
        gelu_in_place(np.zeros((4, 6), np.float32).T)


def test_large_values_give_no_subnormal_floats():
    """Subnormals slow every operation that touches them (here, and in the matrix product after the GELU): where
    erf is ±1 in float32, GELU is max(x, 0) exactly, as the reference computes it."""
    x = np.concatenate([np.linspace(-300, 300, 60001), -np.geomspace(12.7, 300, 1001)]).astype(np.float32)
    got = gelu_in_place(x.copy())
    tiny = np.finfo(np.float32).tiny
    assert not np.any((got != 0) & (np.abs(got) < tiny))
    far = np.abs(x) >= 12.7
    np.testing.assert_array_equal(got[far], np.maximum(x[far], 0))
    assert np.all(np.abs(got - exact(x)) <= 1e-6 * np.maximum(1.0, np.abs(x)))

"""The fast paths of app/core/offsets.py against direct formulations.

* ``CurveEvaluator`` / ``offset_curves``: s(Δ) = Σ Re(w e^{iΔθ}) by two matrix products over
  Δ = a·B ± b, compared with one complex exponential per (Δ, pair) for many lengths and pair counts.
* ``mean_and_std``: the mean curve (curve of the mean weights) and the spread (QR of the centred
  weights when there are more draws than dimensions) against every draw evaluated explicitly.
* ``record_returns`` (continued fraction of θ/2π) against ``clock.near_returns`` (a scan of every
  offset), record for record and bit for bit, including θ near fractions of 2π with small
  denominators (where it must hand over to the scan).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.clock import near_returns
from app.core.frequencies import inverse_frequencies
from app.core.offsets import CurveEvaluator, mean_and_std, merge_still_pairs, offset_curves, record_returns


def conditioning(weights, theta, count):
    """How far two correct float64 evaluations can differ: each argument Δ·θ is rounded by up to
    2^-53·Δθ, so term j moves by |w_j|·2^-53·Δθ_j; plus a few ulp of Σ|w_j| for the sums."""
    w = np.abs(np.atleast_2d(weights)).max(axis=0)
    return 4 * 2.0**-53 * (count - 1) * float(w @ np.asarray(theta)) + 1e-13 * float(w.sum())


def direct(weights, theta, count):
    deltas = np.arange(count, dtype=np.float64)
    return (np.exp(1j * np.multiply.outer(deltas, theta)) @ np.atleast_2d(weights).T).real.T


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 16, 17, 101, 512, 513, 4097, 65537])
@pytest.mark.parametrize("pairs", [1, 3, 64])
def test_curves_equal_direct_complex_sums(count, pairs):
    rng = np.random.default_rng(count * 7 + pairs)
    theta = inverse_frequencies(2 * pairs, 500000.0)
    weights = rng.standard_normal((3, pairs)) + 1j * rng.standard_normal((3, pairs))
    got = offset_curves(weights, theta, count)
    assert got.shape == (3, count)
    np.testing.assert_allclose(got, direct(weights, theta, count), rtol=0, atol=conditioning(weights, theta, count))
    # One vector in, one curve out; a constant is added per row.
    single = offset_curves(weights[0], theta, count, constant=2.5)
    np.testing.assert_allclose(single, direct(weights[0], theta, count)[0] + 2.5, rtol=0, atol=conditioning(weights, theta, count) + 1e-15)


def test_real_weights_and_evaluator_cover_exactly_the_range():
    theta = inverse_frequencies(16, 10000.0)
    for count in (1, 2, 9, 10, 131073):
        evaluator = CurveEvaluator(theta, count)
        assert evaluator.block % 2 == 0
        assert (evaluator.rows - 1) * evaluator.block + evaluator.half >= count - 1  # the last row reaches Δ = count − 1
        values = evaluator.values(np.full((1, 8), 2.0 + 0j))
        assert values.shape == (1, count)
    # Constant content at the largest default range: the cosine sum, offset by offset.
    got = offset_curves(np.full(8, 2.0), theta, 131073)
    want = 2 * np.cos(np.multiply.outer(np.arange(131073.0), theta)).sum(axis=1)
    np.testing.assert_allclose(got, want, rtol=0, atol=conditioning(np.full(8, 2.0), theta, 131073))


def test_still_pairs_fold_into_one_constant():
    theta = inverse_frequencies(16, 10000.0)
    theta[5:] = 0.0
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((2, 8)) + 1j * rng.standard_normal((2, 8))
    merged_w, merged_theta = merge_still_pairs(weights, theta)
    assert merged_w.shape == (2, 6) and merged_theta[-1] == 0.0 and np.all(merged_theta[:-1] > 0)
    np.testing.assert_allclose(offset_curves(weights, theta, 3000), direct(weights, theta, 3000), rtol=0, atol=1e-12)
    # Every pair still: a constant curve, Re Σ w.
    np.testing.assert_allclose(offset_curves(weights[0], np.zeros(8), 50), np.full(50, weights[0].sum().real), rtol=0, atol=1e-13)


@pytest.mark.parametrize("draws, pairs", [(1, 4), (2, 4), (5, 16), (64, 4), (9, 1), (17, 8)])
def test_mean_and_std_equal_every_draw_evaluated(draws, pairs):
    rng = np.random.default_rng(draws * 31 + pairs)
    theta = inverse_frequencies(2 * pairs, 100.0)
    weights = rng.standard_normal((draws, pairs)) + 1j * rng.standard_normal((draws, pairs))
    curves = direct(weights, theta, 2000)
    mean, std = mean_and_std(weights, theta, 2000)
    np.testing.assert_allclose(mean, curves.mean(axis=0), rtol=0, atol=1e-12)
    if draws == 1:
        assert std is None
    else:
        np.testing.assert_allclose(std, curves.std(axis=0), rtol=0, atol=1e-10)


RETURN_THETAS = (
    [1.0, 0.5, 2.0, 3.0, 6.0, 1e-3, 1e-9, 0.37, 0.0123]
    + [math.pi / 6, 2 * math.pi / 7, math.pi, 2 * math.pi, 2 * math.pi / 12 + 1e-12, 2 * math.pi / 1000 + 3e-11]
    + [float(t) for d in (8, 64, 128, 1024) for base in (10.0, 1e4, 5e5, 1e9) for t in inverse_frequencies(d, base)[:: max(1, d // 8)]]
    + list(np.random.default_rng(5).uniform(0, 1, 60)) + list(10 ** np.random.default_rng(6).uniform(-9, 0, 60))
)


@pytest.mark.parametrize("count", [2, 3, 7, 1001, 131073, 262145])
def test_record_returns_equal_the_scan(count):
    for theta in RETURN_THETAS:
        assert record_returns(theta, count) == near_returns(theta, count), (theta, count)


def test_record_returns_hand_over_near_exact_periods():
    # θ = 2π/12 (to the last bit): the 12th position returns to within rounding, the scan decides.
    marks = record_returns(math.pi / 6, 1000)
    assert marks == near_returns(math.pi / 6, 1000)
    assert marks[-1]["delta"] == 12 and abs(marks[-1]["gap"]) < 1e-9

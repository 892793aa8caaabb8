"""The fast Men et al. bound search gives exactly the slow search's answers.

The reference here is the search as first written: a log grid from b = 2, then bisection, every
decision taken by ``first_negative`` (the block-by-block scan of B_m).  The fast search reaches the
same decisions by another rounding path, trusting a value only when it is farther from 0 than
both paths' errors; the precomputed tables (app/core/men_table.py) are checked against the
reference and against direct sums of cosines.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core import calculator, men_table
from app.core.calculator import _first_negative, _passes, first_negative, men_base_bound, men_bound_source


def reference_search(head_dim, length, rel_tol=1e-4, steps_per_decade=40):
    def passes(b):
        return first_negative(b, head_dim, length) is None

    ratio = 10 ** (1 / steps_per_decade)
    if passes(2.0):
        return {"base": 2.0, "grid_ratio": ratio, "first_negative_below": None}
    low = 2.0
    while True:
        high = low * ratio
        if high > 1e15:
            return {"base": None, "grid_ratio": ratio, "first_negative_below": None}
        if passes(high):
            break
        low = high
    while high / low - 1 > rel_tol:
        mid = math.sqrt(low * high)
        if passes(mid):
            high = mid
        else:
            low = mid
    return {"base": high, "grid_ratio": ratio, "first_negative_below": first_negative(low, head_dim, length)}


def direct_margin(base, head_dim, length):
    """B_m = Σ_i cos(m·b^(−2i/d)) for m < length, one cosine per term."""
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    return np.cos(np.outer(np.arange(length), theta)).sum(axis=1)


@pytest.fixture
def no_tables(monkeypatch):
    """Search everything live (the tables would otherwise answer)."""
    monkeypatch.setattr(men_table, "GRID", {})
    monkeypatch.setattr(men_table, "BOUNDS", {})
    men_base_bound.cache_clear()
    yield
    men_base_bound.cache_clear()


@pytest.mark.parametrize("head_dim, length", [(2, 50), (4, 700), (6, 7), (8, 2000), (64, 1000), (256, 300), (1024, 64)])
def test_live_search_equals_the_reference_search(no_tables, head_dim, length):
    assert men_base_bound(head_dim, length) == reference_search(head_dim, length)


@pytest.mark.parametrize("head_dim, length", [(64, 3000), (128, 5000), (32, 2500)])
def test_search_with_the_grid_table_equals_the_reference_search(head_dim, length):
    men_base_bound.cache_clear()
    assert head_dim in men_table.GRID and (head_dim, length) not in men_table.BOUNDS
    assert men_base_bound(head_dim, length) == reference_search(head_dim, length)


def test_pass_fail_and_first_negative_agree_with_the_reference_near_the_bound():
    # Bases just around the bound are where B_m comes closest to 0.
    for head_dim, length in ((64, 1024), (128, 2048), (96, 1500)):
        bound = reference_search(head_dim, length)["base"]
        for factor in np.linspace(0.97, 1.03, 15):
            b = bound * factor
            assert _passes(b, head_dim, length) == (first_negative(b, head_dim, length) is None), (head_dim, length, b)
            assert _first_negative(b, head_dim, length) == first_negative(b, head_dim, length), (head_dim, length, b)


@pytest.mark.parametrize("head_dim, length", [(d, t) for d in (32, 64, 80, 96, 128, 256) for t in (1024, 2048)])
def test_table_bounds_equal_the_reference_search(head_dim, length):
    base, below = men_table.BOUNDS[(head_dim, length)]
    want = reference_search(head_dim, length)
    assert (base, below) == (want["base"], want["first_negative_below"])


@pytest.mark.parametrize("key", sorted(k for k in men_table.BOUNDS if k[1] <= 16384))
def test_table_bounds_are_tight_by_direct_sums(key):
    head_dim, length = key
    base, below = men_table.BOUNDS[key]
    assert direct_margin(base, head_dim, length).min() >= 0
    # Replay the bisection that ended at `base` (a mid at or above it must have passed, one below
    # it failed) to find the last failing base; B_m there first turns negative at `below`.
    grid = calculator._grid(40)
    k = next(i for i, g in enumerate(grid) if g >= base)
    low, high = grid[k - 1], grid[k]
    while high / low - 1 > 1e-4:
        mid = math.sqrt(low * high)
        high, low = (mid, low) if mid >= base else (high, mid)
    assert high == base and below < length
    B = direct_margin(low, head_dim, below + 1)
    assert B[-1] < 1e-9 and (B[:-1] > -1e-9).all()


def test_grid_table_entries_are_first_negatives():
    # Every entry checked against a direct sum where that is cheap (first negative below 20000).
    grid = calculator._grid(40)
    for head_dim, entries in men_table.GRID.items():
        for k in range(0, len(entries), 7):
            negative_at, close_at = entries[k]
            assert close_at == -1
            if 0 <= negative_at < 20000:
                B = direct_margin(grid[k], head_dim, negative_at + 1)
                assert B[-1] < 0 and (B[:-1] >= 0).all(), (head_dim, k)
        assert entries[-1] == (-1, -1)  # ends with a base that passes every length up to CAP


def test_sources():
    assert men_bound_source(128, 32768, 1 << 20) == "table"
    assert men_bound_source(128, 16000, 1 << 20) == "live"  # grid from the table, bisection live
    assert men_bound_source(128, 17000, 1 << 20) is None
    assert men_bound_source(100, 600, 1 << 20) == "live"  # no table for d = 100: whole search live
    assert men_bound_source(100, 700, 1 << 20) is None


@pytest.mark.parametrize("head_dim, base, length", [(2, 10.0, 5), (16, 10000.0, 1000), (128, 500000.0, 131072), (1024, 1e9, 32768)])
def test_margin_curve_equals_direct_sums(head_dim, base, length):
    # The drawn B_m (two matrix products over m = a·B ± b) against one cosine per (m, pair).
    got = calculator.margin_curve(base, head_dim, length)
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    m = np.arange(length, dtype=np.float64)
    want = np.zeros(length)
    for t in theta:
        want += np.cos(m * t)
    assert got.shape == (length,)
    # Each argument m·θ is rounded by up to 2^-53·mθ in either evaluation (the problem's own
    # conditioning), plus a few ulp per term of the sums.
    np.testing.assert_allclose(got, want, rtol=0, atol=4 * 2.0**-53 * (length - 1) * theta.sum() + 1e-13 * head_dim)

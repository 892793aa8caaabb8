"""The grid of bases the calculator searches: every base with four significant digits.

Index i is k·10^(e−3) with e = i // 9000 and k = 1000 + i mod 9000, so 1 ≤ b < 10^15 in
GRID_SIZE = 135,000 steps of 0.01 % to 0.1 %.  Shared by the calculator's search and the
precomputed records it reads (app/core/men_table.py), which is why it lives apart from both.
"""

from __future__ import annotations

import math

import numpy as np

PER_DECADE = 9000  # k = 1000 … 9999
GRID_DECADES = 15  # 1 ≤ b < 10^15
GRID_SIZE = PER_DECADE * GRID_DECADES


def grid_values(start: int, stop: int) -> np.ndarray:
    """Grid values with indices start … stop−1: index i is k·10^(e−3) with e = i // 9000,
    k = 1000 + i mod 9000, the double nearest to the decimal ``f"{k}e{e-3}"`` (k/10^(3−e) and
    k·10^(e−3) are correctly rounded).  Shape ``(stop−start,)``."""
    index = np.arange(start, min(stop, GRID_SIZE), dtype=np.int64)
    decade = index // PER_DECADE
    k = (1000 + index % PER_DECADE).astype(np.float64)
    out = np.empty(len(index))
    for e in np.unique(decade):
        sel = decade == e
        out[sel] = k[sel] / 10.0 ** (3 - e) if e < 3 else k[sel] * 10.0 ** (e - 3)
    return out


def grid_value(index: int) -> float:
    return float(grid_values(index, index + 1)[0])


def grid_index_at_least(base: float) -> int:
    """Index of the smallest grid value ≥ base (GRID_SIZE when none)."""
    if base <= 1:
        return 0
    e = min(GRID_DECADES - 1, max(0, math.floor(math.log10(base))))
    lo = e * PER_DECADE
    values = grid_values(max(0, lo - PER_DECADE), min(GRID_SIZE, lo + 2 * PER_DECADE))
    pos = int(np.searchsorted(values, base, side="left"))
    return max(0, lo - PER_DECADE) + pos


def grid_step(base: float) -> float:
    """How much larger the next grid value is than ``base``'s own: g(i + 1)/g(i) (≈ 1 + 10^-3 … 10^-4)."""
    return grid_value(grid_index_at_least(base) + 1) / base

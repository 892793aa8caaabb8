"""Reduce long curves to what a screen can show without inventing patterns.

Striding (keeping every k-th sample) aliases an oscillating curve into a false slow wave.
A min/max envelope per pixel column keeps the true extremes of every column, so the drawn
band covers exactly the values the full-resolution curve takes there.
"""

from __future__ import annotations

import numpy as np

from app.core.rope import block_partition


def minmax_envelope(y: np.ndarray, columns: int) -> dict[str, np.ndarray]:
    """Per-column extremes of ``y`` over at most ``columns`` contiguous columns.

    y: ``(N,)``.  Returns ``start`` and ``stop`` (index range [start, stop) of each column),
    ``low`` and ``high`` (NaN-ignoring min and max over the column), each ``(C,)`` with
    C = min(N, columns).  When N ≤ columns every column is one sample and low = high = y.
    """
    starts, sizes = block_partition(len(y), columns)
    low, high = column_envelope(y, starts)
    return {"start": starts, "stop": starts + sizes, "low": low, "high": high}


def column_envelope(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column min and max (NaN-ignoring) of ``values`` ``(N,)`` for columns beginning at
    ``starts`` (indices into ``values``, increasing, first 0; each column runs to the next start,
    the last to the end).  Two ``(C,)`` float64 arrays."""
    values = np.asarray(values, dtype=np.float64)
    return np.fmin.reduceat(values, starts), np.fmax.reduceat(values, starts)

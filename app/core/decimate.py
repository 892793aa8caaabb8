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
    y = np.asarray(y, dtype=np.float64)
    starts, sizes = block_partition(len(y), columns)
    return {
        "start": starts,
        "stop": starts + sizes,
        "low": np.fmin.reduceat(y, starts),
        "high": np.fmax.reduceat(y, starts),
    }

"""Absolute position encodings: the sinusoid's shift matrix and a GPT-2-style learned table.

Sinusoidal (Vaswani et al. 2017 §3.5): every frequency w_i occupies two columns, one holding
sin(p·w_i) and one cos(p·w_i); which columns depends on the layout (see
:mod:`app.core.sinusoidal`).  By the angle-addition identities

    sin(w(p+k)) =  cos(wk)·sin(wp) + sin(wk)·cos(wp)
    cos(w(p+k)) = −sin(wk)·sin(wp) + cos(wk)·cos(wp)

so on the (sin, cos) pair of frequency w, moving k positions ahead is the 2×2 matrix
[[cos wk, sin wk], [−sin wk, cos wk]] — a rotation by −wk in the (sin, cos) plane — and the whole
table obeys PE(p+k) = M_k PE(p) with M_k block-diagonal (up to the layout's column order) and free
of p.  Only even d has a partner for every sine column.

Learned (GPT-2 ``wpe``): a table of max_len rows, initialised N(0, 0.01²) and then trained; a
position ≥ max_len has no row at all.
"""

from __future__ import annotations

import numpy as np

from app.core.sinusoidal import sinusoid_frequencies

LEARNED_STD = 0.01


def learned_table(max_len: int, dim: int, seed: int, std: float = LEARNED_STD) -> np.ndarray:
    """GPT-2-style position table at initialisation, N(0, std²).  Shape ``(max_len, dim)``.

    Drawn from ``numpy.random.default_rng([seed, 2])`` row by row, so row p is the same whatever
    max_len is (a longer table only adds rows).
    """
    rng = np.random.default_rng([seed, 2])
    return rng.standard_normal((max_len, dim)) * std


def pair_columns(dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Columns (sin_i, cos_i) holding sin(p·w_i) and cos(p·w_i), each ``(d/2,)``.  d must be even.

    interleaved: (2i, 2i+1).  concatenated and tensor2tensor: (i, i + d/2).
    """
    if dim % 2:
        raise ValueError(f"dim must be even for every sine column to have a cosine partner (got {dim})")
    i = np.arange(dim // 2)
    if layout == "interleaved":
        return 2 * i, 2 * i + 1
    if layout in ("concatenated", "tensor2tensor"):
        return i, i + dim // 2
    raise ValueError(f"unknown layout {layout!r}")


def shift_matrix(dim: int, base: float, layout: str, shift: int) -> np.ndarray:
    """M_k with PE(p + k) = M_k PE(p) for every p.  Shape ``(d, d)``; d even.

    For pair i with frequency w_i, rows/columns (sin_i, cos_i) hold [[cos(k w_i), sin(k w_i)],
    [−sin(k w_i), cos(k w_i)]]; every other entry is 0.  M_k is orthogonal, M_0 = I and
    M_{−k} = M_kᵀ.
    """
    sin_cols, cos_cols = pair_columns(dim, layout)
    angle = float(shift) * sinusoid_frequencies(dim, base, layout)[: dim // 2]
    c, s = np.cos(angle), np.sin(angle)
    matrix = np.zeros((dim, dim))
    matrix[sin_cols, sin_cols] = c
    matrix[sin_cols, cos_cols] = s
    matrix[cos_cols, sin_cols] = -s
    matrix[cos_cols, cos_cols] = c
    return matrix


def toeplitz_deviation(matrix: np.ndarray) -> float:
    """Largest |S[i, j] − S[i − t, j − t]| with t = min(i, j): how far S is from constant diagonals.

    0 exactly for a Toeplitz matrix.  matrix ``(N, M)``.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    rows, cols = np.indices(matrix.shape)
    t = np.minimum(rows, cols)
    return float(np.max(np.abs(matrix - matrix[rows - t, cols - t]))) if matrix.size else 0.0

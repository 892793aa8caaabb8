"""Attention score matrices s_mn = ⟨R_m q_m, R_n k_n⟩ / √d, bounded by what a screen can show.

Content kinds (what q_m and k_n are before rotation):

* ``repeated``: one seeded random q and one k, the same at every position, so s_mn isolates
  what position alone contributes and the matrix is Toeplitz (constant diagonals).
* ``constant``: q = k = (1, …, 1) at every position (the RoFormer long-range-decay picture).
* ``random``: independent seeded vectors at every position; no Toeplitz structure.

For position-independent content and L ≤ B the matrix is built from its 2L−1 distinct values
s(n−m) = qᵀΘ_{n−m}k (``offset_scores``), so it is Toeplitz bit for bit and travels to the page as
those 2L−1 numbers (app/web/responses.py); ``explicit=True`` rotates every position instead, for
checking the identity numerically.

A matrix over L positions is reduced to at most B×B cells by averaging over blocks of
consecutive positions.  The block mean of q_m·k_n over m ∈ A, n ∈ C equals
(mean_{m∈A} R_m q_m)·(mean_{n∈C} R_n k_n), so reduction is exact and costs O(L·d + B²·d)
(O(B²·d) for position-independent content, via closed-form mean phasors).
"""

from __future__ import annotations

import numpy as np

from app.core.rope import as_complex, block_partition, mean_phasors, offset_scores, rotate, rotation_matrix

CONTENTS: tuple[str, ...] = ("repeated", "constant", "random")


def content_vectors(content: str, seq_len: int, head_dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Query and key content before rotation.

    ``repeated``/``constant`` return two ``(d,)`` vectors (used at every position); ``random``
    returns two ``(L, d)`` arrays.  Draws standard normals from ``numpy.random.default_rng(seed)``,
    queries first.
    """
    if content == "constant":
        ones = np.ones(head_dim)
        return ones, ones.copy()
    rng = np.random.default_rng(seed)
    if content == "repeated":
        return rng.standard_normal(head_dim), rng.standard_normal(head_dim)
    if content == "random":
        return rng.standard_normal((seq_len, head_dim)), rng.standard_normal((seq_len, head_dim))
    raise ValueError(f"content must be one of {CONTENTS}, got {content!r}")


def score_matrix(
    q: np.ndarray,
    k: np.ndarray,
    inv_freq: np.ndarray,
    pairing: str,
    seq_len: int,
    max_cells: int,
    causal: bool = False,
    explicit: bool = False,
) -> dict[str, np.ndarray]:
    """Block-averaged score matrix over positions 0..seq_len-1, scaled by 1/√d.

    q, k: ``(d,)`` (same content at every position) or ``(L, d)``.  Returns ``scores`` of shape
    ``(B, B)`` with B ≤ max_cells (B = L when L ≤ max_cells, an exact matrix), plus the block
    ``starts`` and ``sizes``.  With ``causal`` the keys after the query are masked (NaN); a
    diagonal block averages only its visible entries n ≤ m.

    Same content at every position and one position per block: s_mn = s(n−m) from the 2L−1
    offset values (RoFormer eq. 16: R_mᵀR_n = R_{n−m}), unless ``explicit``, which rotates q and k
    at every position and takes every inner product (equal up to rounding, ~1e-16 relative).
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    head_dim = q.shape[-1]
    rotary_dim = 2 * len(inv_freq)
    starts, sizes = block_partition(seq_len, max_cells)

    if q.ndim == 1 and sizes[0] == 1 and not explicit:
        by_offset = offset_scores(q, k, inv_freq, np.arange(-(seq_len - 1), seq_len), pairing)
        positions = np.arange(seq_len)
        scores = by_offset[positions[None, :] - positions[:, None] + (seq_len - 1)]
        rotated = None
    elif q.ndim == 1:
        phasors = mean_phasors(starts, sizes, inv_freq)
        pooled_q = as_complex(q, rotary_dim, pairing) * phasors
        pooled_k = as_complex(k, rotary_dim, pairing) * phasors
        # Re(conj(a)·b) = a.real·b.real + a.imag·b.imag: one real product instead of a complex one.
        scores = _real_products(pooled_q, pooled_k) + float(q[rotary_dim:] @ k[rotary_dim:])
        rotated = None
    else:
        rotated = rotate(np.stack([q, k]), np.arange(seq_len), inv_freq, pairing)  # one cos/sin table for both: (2, L, d)
        pooled_q, pooled_k = np.add.reduceat(rotated, starts, axis=1) / sizes[:, None]
        scores = pooled_q @ pooled_k.T

    if causal:
        blocks = len(starts)
        scores[np.arange(blocks)[:, None] < np.arange(blocks)[None, :]] = np.nan
        diagonal = np.arange(blocks)
        if sizes[0] == 1:
            pass  # a block of one cell (m, m) is wholly visible: nothing to re-average
        elif rotated is None:
            scores[diagonal, diagonal] = _visible_diagonal_means(q, k, inv_freq, pairing, starts, sizes)
        else:
            scores[diagonal, diagonal] = _visible_block_means(rotated[0], rotated[1], sizes)
    return {"scores": scores / np.sqrt(head_dim), "starts": starts, "sizes": sizes}


def _real_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Re(conj(a) @ b.T) for complex ``(B, h)`` arrays, as one real ``(B, 2h) @ (2h, B)`` product."""
    return np.concatenate([a.real, a.imag], axis=1) @ np.concatenate([b.real, b.imag], axis=1).T


def _visible_diagonal_means(
    q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, pairing: str, starts: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """Mean of q_m·k_n over m, n in one block with n ≤ m, for each block.  Shape ``(B,)``."""
    visible = sizes * (sizes + 1) / 2.0
    if q.ndim == 1:
        # Same content everywhere: Σ_{n≤m} s(n−m) = Σ_{δ=0}^{b−1} (b−δ)·s(−δ).
        largest = int(sizes.max())
        backward = offset_scores(q, k, inv_freq, -np.arange(largest), pairing)
        sums = {int(size): float(np.dot(size - np.arange(size), backward[:size])) for size in np.unique(sizes)}
        return np.array([sums[int(size)] for size in sizes]) / visible
    positions = np.arange(int(starts[-1] + sizes[-1]))
    rotated = rotate(np.stack([q, k]), positions, inv_freq, pairing)  # (2, L, d)
    return _visible_block_means(rotated[0], rotated[1], sizes)


def _visible_block_means(rotated_q: np.ndarray, rotated_k: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Mean of R_m q_m · R_n k_n over n ≤ m inside each block, from the rotated ``(L, d)`` arrays.

    Blocks are consecutive with the sizes given (all equal but possibly the last): the rows are
    zero-padded to ``(B, size, d)`` so a cumulative sum over the keys runs inside each block only.
    """
    blocks, size = len(sizes), int(sizes[0])
    length, dim = rotated_q.shape
    padded_q, padded_k = rotated_q, rotated_k
    if blocks * size != length:
        padded_q = np.zeros((blocks * size, dim))
        padded_k = np.zeros((blocks * size, dim))
        padded_q[:length] = rotated_q
        padded_k[:length] = rotated_k
    keys_so_far = np.cumsum(padded_k.reshape(blocks, size, dim), axis=1)
    sums = np.einsum("bsd,bsd->b", padded_q.reshape(blocks, size, dim), keys_so_far)
    return sums / (sizes * (sizes + 1) / 2.0)


def diagonal_spread(matrix: np.ndarray) -> dict[str, float | int | None]:
    """How far a square matrix is from Toeplitz: the largest (max − min) along any diagonal.

    matrix: ``(B, B)``; NaN entries (masked cells) are ignored.  Diagonal o holds the cells
    (i, i + o) for o = −(B−1) … B−1.  Returns ``spread`` (the largest max − min over the finite
    cells of one diagonal; 0 for a Toeplitz matrix, None when no cell is finite),
    the ``offset`` o where it occurs, and ``scale`` = max |entry| over finite cells (None if none).
    Cost O(B²).
    """
    values = np.asarray(matrix, dtype=np.float64)
    size = values.shape[0]
    if values.ndim != 2 or values.shape[1] != size:
        raise ValueError(f"matrix must be square, got shape {values.shape}")
    finite = np.isfinite(values)
    scale = float(np.max(np.abs(values[finite]))) if finite.any() else None
    # Mirror the columns and pad every row with B NaNs; reading the flat buffer with a row stride of
    # 2B − 1 shifts row i right by i, which lines up each diagonal j − i = B − 1 − c in column c.
    padded = np.full((size, 2 * size), np.nan)
    padded[:, :size] = np.where(finite, values, np.nan)[:, ::-1]
    shifted = padded.reshape(-1)[: size * (2 * size - 1)].reshape(size, 2 * size - 1)
    high = np.fmax.reduce(shifted, axis=0)
    low = np.fmin.reduce(shifted, axis=0)
    spread = (high - low)[::-1]  # index o + (B − 1) for diagonal o = j − i
    if not np.isfinite(spread).any():
        return {"spread": None, "offset": None, "scale": scale}
    where = int(np.nanargmax(spread))
    return {"spread": float(spread[where]), "offset": where - (size - 1), "scale": scale}


def theta_identity_errors(
    inv_freq: np.ndarray, pairing: str, dim: int, pairs: list[tuple[int, int]]
) -> list[dict[str, float | int]]:
    """Check Θ_mᵀ Θ_n = Θ_{n−m} and Θ_mᵀ Θ_m = I with explicit ``(d, d)`` matrices.

    For each (m, n) in ``pairs`` builds Θ_m, Θ_n and Θ_{n−m} with
    :func:`app.core.rope.rotation_matrix` and returns ``m``, ``n``, ``shift_error`` =
    max |Θ_mᵀΘ_n − Θ_{n−m}| and ``orthogonality_error`` = max |Θ_mᵀΘ_m − I|.  Cost O(d³) per pair.
    """
    identity = np.eye(dim)
    results = []
    for m, n in pairs:
        theta_m = rotation_matrix(m, inv_freq, pairing, dim)
        theta_n = rotation_matrix(n, inv_freq, pairing, dim)
        theta_offset = rotation_matrix(n - m, inv_freq, pairing, dim)
        results.append(
            {
                "m": int(m),
                "n": int(n),
                "shift_error": float(np.max(np.abs(theta_m.T @ theta_n - theta_offset))),
                "orthogonality_error": float(np.max(np.abs(theta_m.T @ theta_m - identity))),
            }
        )
    return results

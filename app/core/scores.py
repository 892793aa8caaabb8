"""Attention score matrices s_mn = ⟨R_m q_m, R_n k_n⟩ / √d, bounded by what a screen can show.

Content kinds (what q_m and k_n are before rotation):

* ``repeated``: one seeded random q and one k, the same at every position, so s_mn isolates
  what position alone contributes and the matrix is Toeplitz (constant diagonals).
* ``constant``: q = k = (1, …, 1) at every position (the RoFormer long-range-decay picture).
* ``random``: independent seeded vectors at every position; no Toeplitz structure.

A matrix over L positions is reduced to at most B×B cells by averaging over blocks of
consecutive positions.  The block mean of q_m·k_n over m ∈ A, n ∈ C equals
(mean_{m∈A} R_m q_m)·(mean_{n∈C} R_n k_n), so reduction is exact and costs O(L·d + B²·d)
(O(B²·d) for position-independent content, via closed-form mean phasors).
"""

from __future__ import annotations

import numpy as np

from app.core.rope import as_complex, block_partition, mean_phasors, offset_scores, rotate

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
) -> dict[str, np.ndarray]:
    """Block-averaged score matrix over positions 0..seq_len-1, scaled by 1/√d.

    q, k: ``(d,)`` (same content at every position) or ``(L, d)``.  Returns ``scores`` of shape
    ``(B, B)`` with B ≤ max_cells (B = L when L ≤ max_cells, an exact matrix), plus the block
    ``starts`` and ``sizes``.  With ``causal`` the keys after the query are masked (NaN); a
    diagonal block averages only its visible entries n ≤ m.
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    head_dim = q.shape[-1]
    rotary_dim = 2 * len(inv_freq)
    starts, sizes = block_partition(seq_len, max_cells)

    if q.ndim == 1:
        phasors = mean_phasors(starts, sizes, inv_freq)
        pooled_q = as_complex(q, rotary_dim, pairing) * phasors
        pooled_k = as_complex(k, rotary_dim, pairing) * phasors
        scores = (np.conj(pooled_q) @ pooled_k.T).real + float(q[rotary_dim:] @ k[rotary_dim:])
    else:
        positions = np.arange(seq_len)
        pooled_q = np.add.reduceat(rotate(q, positions, inv_freq, pairing), starts, axis=0) / sizes[:, None]
        pooled_k = np.add.reduceat(rotate(k, positions, inv_freq, pairing), starts, axis=0) / sizes[:, None]
        scores = pooled_q @ pooled_k.T

    if causal:
        blocks = len(starts)
        scores[np.triu_indices(blocks, 1)] = np.nan
        diagonal = np.arange(blocks)
        scores[diagonal, diagonal] = _visible_diagonal_means(q, k, inv_freq, pairing, starts, sizes)
    return {"scores": scores / np.sqrt(head_dim), "starts": starts, "sizes": sizes}


def _visible_diagonal_means(q, k, inv_freq, pairing, starts, sizes) -> np.ndarray:
    """Mean of q_m·k_n over m, n in one block with n ≤ m, for each block.  Shape ``(B,)``."""
    visible = sizes * (sizes + 1) / 2.0
    if q.ndim == 1:
        # Same content everywhere: Σ_{n≤m} s(n−m) = Σ_{δ=0}^{b−1} (b−δ)·s(−δ).
        largest = int(sizes.max())
        backward = offset_scores(q, k, inv_freq, -np.arange(largest), pairing)
        return np.array([np.dot(size - np.arange(size), backward[:size]) for size in sizes]) / visible
    sums = np.empty(len(starts))
    for block, (start, size) in enumerate(zip(starts, sizes)):
        positions = np.arange(start, start + size)
        rotated_q = rotate(q[start : start + size], positions, inv_freq, pairing)
        rotated_k = rotate(k[start : start + size], positions, inv_freq, pairing)
        sums[block] = np.sum(rotated_q * np.cumsum(rotated_k, axis=0))
    return sums / visible

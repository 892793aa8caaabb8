"""Transformer-XL's relative attention score and its four terms (Dai et al. 2019, §3.3).

For a query at position i and a key at position j ≤ i, with token embeddings E_x, the score is

    A_ij = (a) E_iᵀ W_qᵀ W_kE E_j        content · content
         + (b) E_iᵀ W_qᵀ W_kR R_{i−j}    content · position
         + (c) uᵀ W_kE E_j               global content bias
         + (d) vᵀ W_kR R_{i−j}           global position bias

(then scaled by 1/√d_head before the softmax).  R_k is a fixed sinusoid of the offset k = i − j,
not of an absolute position: ``inv_freq = 1 / 10000^(arange(0, d, 2)/d)`` and
``R_k = [sin(k·inv_freq), cos(k·inv_freq)]`` (all sines, then all cosines), as the original
code's ``PositionalEmbedding`` builds it (kimiyoung/transformer-xl, pytorch/mem_transformer.py).
u and v (``r_w_bias``, ``r_r_bias`` there) are learned vectors shared by every query, added to
the projected query: ``AC = (q + u)·k`` gives (a) + (c), ``BD = (q + v)·W_kR R`` gives (b) + (d).

What each term depends on follows from the formula: (a) on both tokens, (b) on the query token
and i − j, (c) on the key token alone (constant down each column), (d) on i − j alone (constant
along each diagonal).

Memory layout: the keys are the key_len positions 0 … key_len − 1 (the cached memory followed by
the current segment) and the queries are the last query_len of them, i = key_len − query_len …
key_len − 1, as ``w_head_q[-qlen:]`` does; the code's relative positions run
``pos_seq = arange(klen − 1, −1, −1)``, so only offsets i − j ≥ 0 exist and later keys are masked.
"""

from __future__ import annotations

import numpy as np

from app.core.frequencies import inverse_frequencies

XL_BASE = 10000.0


def relative_inverse_frequencies(d_model: int) -> np.ndarray:
    """1 / 10000^(2i/d) for i = 0 … d/2 − 1.  Shape ``(d/2,)``; d even."""
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be even and at least 2 (got {d_model})")
    return inverse_frequencies(d_model, XL_BASE)


def relative_sinusoid(offsets: np.ndarray, d_model: int) -> np.ndarray:
    """R_k = [sin(k·inv_freq), cos(k·inv_freq)] for each offset k.  ``(K,)`` → ``(K, d)``."""
    phase = np.multiply.outer(np.asarray(offsets, dtype=np.float64), relative_inverse_frequencies(d_model))
    return np.concatenate([np.sin(phase), np.cos(phase)], axis=1)


def stand_in_weights(d_model: int, key_len: int, seed: int, content: str = "random") -> dict[str, np.ndarray]:
    """Seeded stand-ins for a trained layer's tensors (one head, d_head = d_model).

    ``embeddings`` ``(key_len, d)``: a standard normal vector per position (``content='random'``)
    or one vector repeated at every position (``'repeated'``).  ``W_q``, ``W_kE``, ``W_kR``
    ``(d, d)``: normal with variance 1/d, so projections keep unit scale.  ``u``, ``v`` ``(d,)``:
    standard normal.  Drawn from ``numpy.random.default_rng([seed, 16])`` in that order, the
    embeddings last.
    """
    if content not in ("random", "repeated"):
        raise ValueError(f"content must be 'random' or 'repeated', got {content!r}")
    rng = np.random.default_rng([seed, 16])
    scale = 1.0 / np.sqrt(d_model)
    weights = {
        "W_q": rng.standard_normal((d_model, d_model)) * scale,
        "W_kE": rng.standard_normal((d_model, d_model)) * scale,
        "W_kR": rng.standard_normal((d_model, d_model)) * scale,
        "u": rng.standard_normal(d_model),
        "v": rng.standard_normal(d_model),
    }
    # drawn after the weights, so the weights do not depend on key_len
    rows = key_len if content == "random" else 1
    weights["embeddings"] = np.repeat(rng.standard_normal((rows, d_model)), key_len // rows, axis=0)
    return weights


def position_bias(offsets: np.ndarray, W_kR: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Term (d) as a function of the offset alone: vᵀ W_kR R_k.  ``(K,)`` → ``(K,)``."""
    return (relative_sinusoid(offsets, len(v)) @ np.asarray(W_kR).T) @ np.asarray(v)


def score_terms(
    embeddings: np.ndarray,
    W_q: np.ndarray,
    W_kE: np.ndarray,
    W_kR: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    query_len: int,
) -> dict[str, np.ndarray]:
    """The four terms of A_ij for the last ``query_len`` positions against all ``key_len``.

    embeddings ``(key_len, d)``, W_* ``(d, d)`` (projection x ↦ W x), u, v ``(d,)``.  Returns
    ``a``, ``b``, ``c``, ``d`` and ``sum`` ``(query_len, key_len)`` with NaN where j > i (no
    relative embedding exists for a later key, and the causal mask hides it), ``offsets``
    ``(query_len, key_len)`` = i − j, ``query_positions`` ``(query_len,)`` and ``R`` ``(key_len, d)``,
    the row for offset k = 0 … key_len − 1.
    """
    E = np.asarray(embeddings, dtype=np.float64)
    key_len, d_model = E.shape
    if not 1 <= query_len <= key_len:
        raise ValueError(f"query_len must be between 1 and key_len ({key_len}), got {query_len}")
    query_positions = np.arange(key_len - query_len, key_len)
    offsets = query_positions[:, None] - np.arange(key_len)[None, :]
    valid = offsets >= 0
    R = relative_sinusoid(np.arange(key_len), d_model)

    q = E[query_positions] @ W_q.T  # (Q, d)
    k = E @ W_kE.T  # (K, d)
    r = R @ W_kR.T  # (K offsets, d)
    index = np.where(valid, offsets, 0)
    terms = {
        "a": q @ k.T,
        "b": (q @ r.T)[np.arange(query_len)[:, None], index],
        "c": np.broadcast_to(k @ u, (query_len, key_len)).copy(),
        "d": (r @ v)[index],
    }
    for name in terms:
        terms[name][~valid] = np.nan
    terms["sum"] = terms["a"] + terms["b"] + terms["c"] + terms["d"]
    return {**terms, "offsets": offsets, "query_positions": query_positions, "R": R}


def constancy(matrix: np.ndarray) -> dict[str, float]:
    """How far a (NaN-masked) matrix is from depending on one index only: the largest spread
    (max − min) along any diagonal (i − j fixed), down any column (j fixed) and along any row
    (i fixed), ignoring NaN.  0 means exactly constant in that direction."""
    m = np.asarray(matrix, dtype=np.float64)
    grid = np.indices(m.shape)
    rows, cols = grid[0], grid[1]

    def spread(groups: np.ndarray, count: int) -> float:
        high = np.full(count, -np.inf)
        low = np.full(count, np.inf)
        np.fmax.at(high, groups.ravel(), m.ravel())  # fmax/fmin pass over NaN
        np.fmin.at(low, groups.ravel(), m.ravel())
        seen = np.isfinite(high)
        return float(np.max(high[seen] - low[seen])) if seen.any() else 0.0

    return {
        "diagonal": spread(cols - rows + m.shape[0] - 1, sum(m.shape) - 1),
        "column": spread(cols, m.shape[1]),
        "row": spread(rows, m.shape[0]),
    }

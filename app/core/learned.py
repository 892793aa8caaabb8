"""Statistics of a learned absolute position table, and of a sinusoid of the same shape.

A learned table P (GPT-2 ``wpe``, BERT ``position_embeddings``) has one trained row per position,
max_len × d; the token at position p gets P[p] added to its embedding, and a position ≥ max_len
has no row at all.  What training put into the rows is seen through:

* cosine similarity between positions: ``C[p, q] = P[p]·P[q] / (‖P[p]‖ ‖P[q]‖)``.  For the
  sinusoid it depends on p − q only (every row of an even-d sinusoid has norm √(d/2), and
  PE(p)·PE(q) = Σ_i cos((p − q)·w_i)), so its matrix is Toeplitz; a learned table owes nothing of
  the kind and only approximates it where training made it so.
* principal components of the rows: centre the rows (X = P − mean over positions) and take the
  thin SVD X = U S Vᵀ.  Row p's coordinate on component k is (U S)[p, k] = X[p]·V[:, k]; the share
  of variance component k explains is S_k² / Σ S².

Sources: Radford et al. 2019 (GPT-2's learned ``wpe``); Devlin et al. 2019 (BERT's
``position_embeddings``); Vaswani et al. 2017 §3.5 for the sinusoid (see app.core.sinusoidal).
"""

from __future__ import annotations

import numpy as np

from app.core.sinusoidal import sinusoid_frequencies, sinusoidal_table


def row_norms(table: np.ndarray) -> np.ndarray:
    """‖P[p]‖ for each row, computed in float64.  ``(N, d)`` → ``(N,)``."""
    return np.linalg.norm(np.asarray(table, dtype=np.float64), axis=1)


def cosine_similarity(rows: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """C[p, q] = a_p·b_q / (‖a_p‖ ‖b_q‖) in float64; NaN where a row is all zeros.

    rows ``(N, d)``, others ``(M, d)`` (default: ``rows``) → ``(N, M)``.
    """
    a = np.asarray(rows, dtype=np.float64)
    b = a if others is None else np.asarray(others, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        na = a / np.linalg.norm(a, axis=1, keepdims=True)
        nb = na if others is None else b / np.linalg.norm(b, axis=1, keepdims=True)
        return na @ nb.T


def principal_components(table: np.ndarray, components: int) -> dict[str, np.ndarray]:
    """PCA of the rows by the thin SVD of the centred table.

    table ``(N, d)``.  Returns ``coordinates`` ``(N, k)`` = (U S)[:, :k], ``components`` ``(k, d)``
    = Vᵀ[:k], ``singular_values`` ``(min(N, d),)``, ``explained_variance_ratio``
    ``(min(N, d),)`` = S² / Σ S², and ``mean`` ``(d,)``, with k = min(components, N, d).

    Singular vectors are defined up to sign; each component's sign is fixed so that the row with
    the largest |coordinate| on it has a positive one (as scikit-learn's ``svd_flip`` does with U),
    which makes the result reproducible.
    """
    x = np.asarray(table, dtype=np.float64)
    mean = x.mean(axis=0)
    u, s, vt = np.linalg.svd(x - mean, full_matrices=False)
    k = min(components, len(s))
    u, vt = u[:, :k], vt[:k]
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(k)])
    signs[signs == 0] = 1.0
    u, vt = u * signs, vt * signs[:, None]
    total = float(np.sum(s**2))
    ratio = s**2 / total if total > 0 else np.zeros_like(s)
    return {
        "coordinates": u * s[:k],
        "components": vt,
        "singular_values": s,
        "explained_variance_ratio": ratio,
        "mean": mean,
    }


def pc_rotation(pca: dict[str, np.ndarray]) -> tuple[float | None, float]:
    """(positions per turn, share of steady steps) of the walk through the PC1/PC2 plane.

    The step from position p to p + 1 turns by the wrapped angle between their (PC1, PC2) points;
    when at least 90% of the steps turn the same way the walk is a steady rotation and its period
    is 2π / |median step|; otherwise the period is None.  ``pca``: a :func:`principal_components`
    result (its ``coordinates`` ``(N, k)``).
    """
    coordinates = pca["coordinates"]
    if coordinates.shape[1] < 2 or len(coordinates) < 3:
        return None, 0.0
    angle = np.arctan2(coordinates[:, 1], coordinates[:, 0])
    step = np.angle(np.exp(1j * np.diff(angle)))
    median = float(np.median(step))
    steady = float(np.mean(np.sign(step) == np.sign(median))) if median else 0.0
    return (2 * np.pi / abs(median) if steady >= 0.9 else None), steady


def sinusoid_like(rows: int, dim: int, base: float = 10000.0) -> np.ndarray:
    """The Vaswani sinusoid (interleaved layout) with the shape of a learned table: ``(rows, dim)``.

    The layout does not change any statistic here: reordering columns changes neither dot
    products nor the principal components' coordinates.
    """
    return sinusoidal_table(np.arange(rows), dim, base, "interleaved")


def sinusoid_offset_similarity(offsets: np.ndarray, dim: int, base: float = 10000.0) -> np.ndarray:
    """Cosine similarity of PE(p) and PE(p + Δ) for an even d: (2/d)·Σ_i cos(Δ·w_i), whatever p is.

    offsets ``(K,)`` → ``(K,)``.  Raises ``ValueError`` for odd d, whose last sine column has no
    cosine partner (its rows do not all have the same norm).
    """
    if dim % 2:
        raise ValueError(f"the closed form needs an even dimension (got {dim})")
    w = sinusoid_frequencies(dim, base, "interleaved")
    return np.cos(np.multiply.outer(np.asarray(offsets, dtype=np.float64), w)).sum(axis=1) * (2.0 / dim)


def sinusoid_similarity(positions: np.ndarray, dim: int, base: float = 10000.0) -> np.ndarray:
    """Cosine similarity between the sinusoid's rows at ``positions`` (consecutive integers).

    ``(N,)`` → ``(N, N)``.  For even d it is built from the 2N − 1 offsets, so every diagonal is
    constant bit for bit; for odd d it is computed from the rows.
    """
    positions = np.asarray(positions, dtype=np.int64)
    if dim % 2:
        table = sinusoidal_table(positions, dim, base, "interleaved")
        return cosine_similarity(table)
    n = len(positions)
    by_offset = sinusoid_offset_similarity(np.arange(-(n - 1), n), dim, base)
    rows, cols = np.indices((n, n))
    return by_offset[cols - rows + n - 1]


def neighbour_similarity(similarity: np.ndarray, offset: int = 1) -> float:
    """Mean of C[p, p + offset] over the rows that have such a neighbour (NaN-ignoring)."""
    diagonal = np.diagonal(np.asarray(similarity, dtype=np.float64), offset)
    return float(np.nanmean(diagonal)) if diagonal.size else float("nan")


def diagonal_statistics(rows: np.ndarray, normalise: bool, block: int = 512) -> dict[str, np.ndarray]:
    """Mean, min and max over p of G[p, p + Δ] for every offset Δ = 0 … N − 1, where G = A·Aᵀ.

    rows ``(N, d)``; with ``normalise`` the rows are scaled to unit length first (G is then the
    cosine similarity).  G is symmetric, so negative offsets repeat these.  Returns ``offsets``,
    ``mean``, ``low``, ``high`` and ``count`` (N − Δ pairs), each ``(N,)``.  G is built ``block``
    rows at a time, so memory stays at block × N values whatever N is.
    """
    a = np.asarray(rows, dtype=np.float64)
    if normalise:
        with np.errstate(divide="ignore", invalid="ignore"):
            a = a / np.linalg.norm(a, axis=1, keepdims=True)
    n = len(a)
    total = np.zeros(n)
    low = np.full(n, np.inf)
    high = np.full(n, -np.inf)
    for start in range(0, n, block):
        stop = min(start + block, n)
        gram = a[start:stop] @ a[start:].T  # rows start…stop−1 against keys start…n−1
        grid = np.indices(gram.shape)
        i, j = grid[0], grid[1]
        upper = j >= i
        delta = (j - i)[upper]
        values = gram[upper]
        total += np.bincount(delta, weights=values, minlength=n)[:n]
        np.minimum.at(low, delta, values)
        np.maximum.at(high, delta, values)
    count = n - np.arange(n)
    return {"offsets": np.arange(n), "mean": total / count, "low": low, "high": high, "count": count}

"""Score against offset, s(Δ), over long ranges: computed at every offset, reduced per pixel column.

For the same content at both positions, ⟨R_m q, R_{m+Δ} k⟩ = Σ_j Re(w_j e^{iΔθ_j}) + c with
w_j = conj(z_q,j)·z_k,j (see :mod:`app.core.rope`) and c the inner product of the dimensions that do
not rotate.  Evaluating it at every Δ in [0, N) costs N·r/2 phasors; writing Δ = a·B + b turns
e^{iΔθ} into e^{iaBθ}·e^{ibθ}, so all N values come out of one real matrix product of an
``(A, r)`` and an ``(r, B)`` table with A·B ≥ N (A + B ≈ 2√N phasors instead of N·r/2).
"""

from __future__ import annotations

import numpy as np

def offset_curves(weights: np.ndarray, inv_freq: np.ndarray, count: int, constant: np.ndarray | float = 0.0) -> np.ndarray:
    """s(Δ) = Σ_j Re(w_j e^{iΔθ_j}) + c for Δ = 0 … count−1, for one or several weight vectors.

    weights: ``(r/2,)`` or ``(S, r/2)`` complex; inv_freq: ``(r/2,)``; constant: scalar or ``(S,)``.
    Returns ``(count,)`` or ``(S, count)`` float64.  The phasor of Δ = a·B + b is the product of the
    phasors of a·B and b, so each value carries a couple of rounding errors more than
    ``exp(1j·Δθ)`` would (relative ~1e-15), at a small fraction of its cost.
    """
    weights = np.asarray(weights, dtype=np.complex128)
    single = weights.ndim == 1
    weights = np.atleast_2d(weights)
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    block = max(1, int(np.ceil(np.sqrt(count))))
    rows = -(-count // block)
    coarse = np.exp(1j * np.multiply.outer(np.arange(rows, dtype=np.float64) * block, inv_freq))  # (A, h)
    fine = np.exp(1j * np.multiply.outer(np.arange(block, dtype=np.float64), inv_freq))  # (B, h)
    right = np.ascontiguousarray(np.concatenate([fine.real, fine.imag], axis=1).T)  # (2h, B)
    constant = np.broadcast_to(np.asarray(constant, dtype=np.float64), (len(weights),))
    # Every draw at once: row (s, a) of the left factor is w_s·e^{iaBθ}, so that
    # Re(w e^{iaBθ} e^{ibθ}) = Re(·)·cos bθ − Im(·)·sin bθ is one real matrix product.
    left = (weights[:, None, :] * coarse[None, :, :]).reshape(-1, len(inv_freq))
    values = (np.concatenate([left.real, -left.imag], axis=1) @ right).reshape(len(weights), rows * block)
    out = values[:, :count] + constant[:, None]
    return out[0] if single else out


def log_columns(start: int, stop: int, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Split the integers [start, stop) into at most ``columns`` contiguous columns of geometrically growing
    width (for a logarithmic axis): column edges are the distinct values of floor(geomspace(start, stop)).

    start ≥ 1.  Returns ``(starts, sizes)``, both ``(C,)`` int64; every column holds at least one integer.
    """
    if start < 1 or stop <= start:
        raise ValueError(f"need 1 ≤ start < stop, got {start}, {stop}")
    edges = np.unique(np.floor(np.geomspace(start, stop, columns + 1)).astype(np.int64))
    edges = edges[(edges >= start) & (edges <= stop)]
    if edges[0] != start:
        edges = np.concatenate([[start], edges])
    if edges[-1] != stop:
        edges = np.concatenate([edges, [stop]])
    return edges[:-1], np.diff(edges)


def column_envelope(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column min and max (NaN-ignoring) of ``values`` for columns beginning at ``starts`` (indices
    into ``values``, increasing, first 0; each column runs to the next start).  Shapes ``(C,)``."""
    values = np.asarray(values, dtype=np.float64)
    return np.fmin.reduceat(values, starts), np.fmax.reduceat(values, starts)

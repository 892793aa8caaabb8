"""Rotary position embedding: rotating query/key vectors and the scores that result.

A rotated pair is a complex number: pair j of x is ``z_j = x[a_j] + i·x[b_j]`` and rotating it
by φ = m·θ_j is ``z_j · e^{iφ}``, i.e. ``(x, y) → (x cos φ − y sin φ, x sin φ + y cos φ)``.
Which dimensions form pair j is the *pairing* (a property of the checkpoint):

* ``"interleaved"``: (2j, 2j+1).  RoFormer, GPT-J (``rotate_every_two``), Meta's original Llama.
* ``"half"``: (j, j + r/2).  GPT-NeoX, Hugging Face Llama (``rotate_half``).

Only the first ``r`` dimensions (the rotary dimension) rotate; the rest pass through unchanged
(HF ``apply_rotary_pos_emb`` with partial rotary).  Because ⟨R_m q, R_n k⟩ =
Re(conj(z_q) z_k e^{i(n−m)θ}) summed over pairs, a score depends on positions only through the
offset Δ = n − m.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from app.core.frequencies import angles

Pairing = Literal["interleaved", "half"]
PAIRINGS: tuple[str, ...] = ("interleaved", "half")


def pair_index(rotary_dim: int, pairing: str) -> tuple[np.ndarray, np.ndarray]:
    """Dimension indices (a_j, b_j) forming pair j, each of shape ``(r/2,)``."""
    half = rotary_dim // 2
    j = np.arange(half)
    if pairing == "interleaved":
        return 2 * j, 2 * j + 1
    if pairing == "half":
        return j, j + half
    raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")


def interleaved_to_half(rotary_dim: int) -> np.ndarray:
    """The permutation P = [0, 2, 4, …, 1, 3, 5, …] of shape ``(r,)``.

    ``x[P]`` lays out the pairs of an interleaved vector as the half convention expects, so
    ``rotate_half(x[P]) = rotate_interleaved(x)[P]``.  This is why HF's Llama conversion script
    permutes the q/k projection weights.
    """
    return np.concatenate([np.arange(0, rotary_dim, 2), np.arange(1, rotary_dim, 2)])


def as_complex(x: np.ndarray, rotary_dim: int, pairing: str) -> np.ndarray:
    """z_j = x[a_j] + i·x[b_j].  Shape ``(..., d)`` → ``(..., r/2)`` complex128."""
    x = np.asarray(x, dtype=np.float64)
    a, b = pair_index(rotary_dim, pairing)
    return x[..., a] + 1j * x[..., b]


def rotate(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray, pairing: str) -> np.ndarray:
    """R(positions[p]) x for each position.

    x: ``(d,)`` (the same vector at every position), ``(P, d)``, or ``(..., P, d)`` (e.g. q and k
    stacked, which then share one cos/sin table); positions: ``(P,)``; inv_freq: ``(r/2,)`` with
    r ≤ d.  Returns ``(P, d)`` (``(..., P, d)``) float64; dims ≥ r are copied.
    """
    x = np.asarray(x, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.float64)
    rotary_dim = 2 * len(inv_freq)
    if rotary_dim > x.shape[-1]:
        raise ValueError(f"rotary dimension {rotary_dim} exceeds vector length {x.shape[-1]}")
    out = np.empty(np.broadcast_shapes(x.shape[:-1], positions.shape) + x.shape[-1:])
    phi = angles(positions, inv_freq)
    cos, sin = np.cos(phi), np.sin(phi)
    a, b = _pair_slices(rotary_dim, pairing)  # the dims of pair_index as strided views (no gather)
    xa, xb = x[..., a], x[..., b]
    out_a, out_b = out[..., a], out[..., b]
    np.multiply(xa, cos, out=out_a)
    out_a -= xb * sin
    np.multiply(xa, sin, out=out_b)
    out_b += xb * cos
    out[..., rotary_dim:] = x[..., rotary_dim:]
    return out


def _pair_slices(rotary_dim: int, pairing: str) -> tuple[slice, slice]:
    """The index sets of :func:`pair_index` as slices: (2j, 2j+1) or (j, j + r/2)."""
    half = rotary_dim // 2
    if pairing == "interleaved":
        return slice(0, rotary_dim, 2), slice(1, rotary_dim, 2)
    if pairing == "half":
        return slice(0, half), slice(half, rotary_dim)
    raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")


def offset_scores(q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, offsets: np.ndarray, pairing: str) -> np.ndarray:
    """s(Δ) = ⟨R_m q, R_{m+Δ} k⟩ for each offset Δ (any m; raw inner product, no 1/√d).

    = Σ_j Re(conj(z_q,j) z_k,j e^{iΔθ_j}) + ⟨q_pass, k_pass⟩.  q, k: ``(d,)``; offsets ``(N,)``
    → ``(N,)``.  Costs N·r/2, independent of where the two positions sit.
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    rotary_dim = 2 * len(inv_freq)
    weights = np.conj(as_complex(q, rotary_dim, pairing)) * as_complex(k, rotary_dim, pairing)
    phasors = np.exp(1j * angles(offsets, inv_freq))
    return (phasors @ weights).real + float(q[rotary_dim:] @ k[rotary_dim:])


def ones_score(offset_angles: np.ndarray) -> np.ndarray:
    """⟨R_m 1, R_n 1⟩/√d for all-ones q = k, from the angles φ_j = (n − m)·θ_j of its pairs.

    Each pair (1, 1) is z = 1 + i and contributes Re(conj(z)·z·e^{iφ}) = 2 cos φ, so the score is
    (2/√d) Σ_j cos φ_j with d = 2·(r/2) (RoFormer's long-range-decay picture; M-RoPE takes φ_j from
    the offset on each pair's own axis).  ``(..., r/2)`` → ``(...)``.
    """
    offset_angles = np.asarray(offset_angles, dtype=np.float64)
    return 2.0 * np.cos(offset_angles).sum(axis=-1) / np.sqrt(2 * offset_angles.shape[-1])


def block_partition(length: int, max_blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Split positions 0..length-1 into at most ``max_blocks`` contiguous blocks.

    Every block has ``ceil(length/max_blocks)`` positions except possibly the last.
    Returns ``(starts, sizes)``, both ``(B,)`` int64.
    """
    size = -(-length // max_blocks)
    starts = np.arange(0, length, size, dtype=np.int64)
    return starts, np.minimum(size, length - starts)


def mean_phasors(starts: np.ndarray, sizes: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """Mean of e^{i m θ_j} over m in [start, start+size) for each block.  Shape ``(B, r/2)``.

    Closed form (Dirichlet kernel): e^{i(start + (size−1)/2)θ} · sin(size·θ/2) / (size·sin(θ/2)),
    with the limit cos(size·x)/cos(x) where sin(x = θ/2) vanishes.  Cost B·r/2 whatever the size.
    """
    starts = np.asarray(starts, dtype=np.float64)[:, None]
    sizes = np.asarray(sizes, dtype=np.float64)[:, None]
    half_angle = 0.5 * np.asarray(inv_freq, dtype=np.float64)[None, :]
    sin_half = np.sin(half_angle)
    small = np.abs(sin_half) < 1e-12
    # The ratio depends on the block size alone (blocks are equal but the last): once per size.
    distinct, which = np.unique(sizes[:, 0], return_inverse=True)
    distinct = distinct[:, None]
    ratio = np.where(
        small,
        np.cos(distinct * half_angle) / np.cos(half_angle),
        np.sin(distinct * half_angle) / (distinct * np.where(small, 1.0, sin_half)),
    )[which]
    return np.exp(1j * (starts + 0.5 * (sizes - 1.0)) * 2.0 * half_angle) * ratio


def rotation_matrix(position: float, inv_freq: np.ndarray, pairing: str, dim: int) -> np.ndarray:
    """Θ_m, the explicit ``(d, d)`` matrix with ``Θ_m x = rotate(x, [m], inv_freq, pairing)[0]``.

    For every pair j with dimensions (a_j, b_j) and angle φ = m·θ_j it holds the 2×2 rotation
    ``[[cos φ, −sin φ], [sin φ, cos φ]]`` in rows/columns (a_j, b_j); dims ≥ r are the identity.
    With ``interleaved`` pairing it is block-diagonal (RoFormer eq. 15); with ``half`` it is the
    same matrix conjugated by the permutation of :func:`interleaved_to_half`.
    """
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    rotary_dim = 2 * len(inv_freq)
    if rotary_dim > dim:
        raise ValueError(f"rotary dimension {rotary_dim} exceeds the matrix size {dim}")
    phi = float(position) * inv_freq
    cos, sin = np.cos(phi), np.sin(phi)
    a, b = pair_index(rotary_dim, pairing)
    theta = np.eye(dim)
    theta[a, a] = cos
    theta[a, b] = -sin
    theta[b, a] = sin
    theta[b, b] = cos
    return theta

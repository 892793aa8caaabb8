"""Context-extension numbers from head dim, base, training length and target length.

- NTK-aware base for a scale s: b' = b·s^(r/(r−2))  (bloc97; jquesnelle/yarn).
- Dynamic NTK base at current length L: b·(s·L/Lmax − (s−1))^(r/(r−2)), L floored at Lmax (HF).
- YaRN attention factor 0.1·ln s + 1 (logits × its square) and LongRoPE's sqrt(1 + ln s/ln L0).
- Llama 3.1 band edges λ_high = L0/high_freq_factor, λ_low = L0/low_freq_factor and the number of
  pairs in each band (HF ``_compute_llama3_parameters``).
- Men et al. 2024, "Base of RoPE Bounds Context Length" (arXiv 2405.14591): with q, k random and a
  similar key k* = q + ε, E[qᵀR_m k*] − E[qᵀR_m k] ∝ B_m = Σ_{i=0}^{d/2−1} cos(m·θ_i).  The model can
  tell a similar token from a random one at distance m only while B_m ≥ 0, so a context of L
  tokens needs B_m ≥ 0 for every m < L; the lower bound of the base is the smallest b for which
  that holds.  We compute it numerically (no fitted formula).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from app.core.scaling import base_inv_freq, get_mscale, longrope_attention, ntk_base


def dynamic_ntk_base(base: float, factor: float, rotary_dim: int, length: int, max_position_embeddings: int) -> float:
    """b·(s·L/Lmax − (s−1))^(r/(r−2)) with L = max(length, Lmax)."""
    L = max(length, max_position_embeddings)
    return base * ((factor * L / max_position_embeddings) - (factor - 1)) ** (rotary_dim / (rotary_dim - 2))


def llama3_band_counts(rotary_dim: int, base: float, original_length: int, low_freq_factor: float, high_freq_factor: float) -> dict:
    """Pairs kept (λ < L0/high), smoothed (between) and divided by s (λ > L0/low), HF's comparisons."""
    theta = base_inv_freq(rotary_dim, base)
    wavelen = 2 * math.pi / theta
    high_edge = original_length / high_freq_factor
    low_edge = original_length / low_freq_factor
    kept = wavelen < high_edge
    divided = wavelen > low_edge
    return {
        "high_freq_wavelen": high_edge,
        "low_freq_wavelen": low_edge,
        "kept": int(kept.sum()),
        "smoothed": int((~kept & ~divided).sum()),
        "divided": int(divided.sum()),
    }


def similarity_margin(base: float, head_dim: int, positions: np.ndarray) -> np.ndarray:
    """B_m = Σ_{i=0}^{d/2−1} cos(m·b^(−2i/d)) for each m.  Shape of positions."""
    theta = base_inv_freq(head_dim, base)
    return np.cos(np.multiply.outer(np.asarray(positions, dtype=np.float64), theta)).sum(axis=1)


_BLOCK = 512


def first_negative(base: float, head_dim: int, limit: int) -> int | None:
    """Smallest integer m in [0, limit) with B_m < 0, or None.

    m is split as m = a + k with a a multiple of 512 and k < 512, so
    cos(mθ) = cos(aθ)cos(kθ) − sin(aθ)sin(kθ) and B over a block of starts is two matrix products
    (starts × pairs)·(pairs × 512).  Blocks are evaluated in order and the search stops at the
    first negative value, so a failing base costs little.
    """
    theta = base_inv_freq(head_dim, base)
    k = np.arange(_BLOCK, dtype=np.float64)
    cos_k = np.cos(np.multiply.outer(theta, k))  # (pairs, 512)
    sin_k = np.sin(np.multiply.outer(theta, k))
    starts_per_step = 16
    a0 = 0
    while a0 < limit:
        starts = np.arange(a0, min(limit, a0 + starts_per_step * _BLOCK), _BLOCK, dtype=np.float64)
        phase = np.multiply.outer(starts, theta)  # (starts, pairs)
        # einsum keeps this single-threaded: a threaded BLAS on small blocks costs more than it saves.
        margin = np.einsum("sp,pk->sk", np.cos(phase), cos_k) - np.einsum("sp,pk->sk", np.sin(phase), sin_k)
        margin = margin.ravel()[: max(0, min(limit, a0 + len(starts) * _BLOCK) - a0)]
        negative = np.flatnonzero(margin < 0)
        if negative.size:
            return a0 + int(negative[0])
        a0 += len(starts) * _BLOCK
        starts_per_step = min(starts_per_step * 2, 64)
    return None


def margin_curve(base: float, head_dim: int, length: int) -> np.ndarray:
    """B_m for every m in [0, length), by the same block decomposition as :func:`first_negative`.
    Shape ``(length,)``."""
    theta = base_inv_freq(head_dim, base)
    k = np.arange(_BLOCK, dtype=np.float64)
    cos_k = np.cos(np.multiply.outer(theta, k))
    sin_k = np.sin(np.multiply.outer(theta, k))
    starts = np.arange(0, length, _BLOCK, dtype=np.float64)
    phase = np.multiply.outer(starts, theta)
    margin = np.einsum("sp,pk->sk", np.cos(phase), cos_k) - np.einsum("sp,pk->sk", np.sin(phase), sin_k)
    return margin.ravel()[:length]


@lru_cache(maxsize=128)
def men_base_bound(head_dim: int, context_len: int, rel_tol: float = 1e-4, steps_per_decade: int = 40) -> dict:
    """Smallest base b with B_m ≥ 0 for all m < context_len (Men et al. 2024).

    Search: bases on a log grid (``steps_per_decade`` per decade) from b = 2 upwards until one
    passes, then bisection between it and the grid point below to ``rel_tol``.  The set of
    passing bases need not be an interval, so this is the smallest passing base at the fine grid's
    resolution.  Returns ``{"base", "grid_ratio", "first_negative_below"}`` (the first failing
    distance just below the bound).
    """

    def passes(b: float) -> bool:
        return first_negative(b, head_dim, context_len) is None

    ratio = 10 ** (1 / steps_per_decade)
    if passes(2.0):
        return {"base": 2.0, "grid_ratio": ratio, "first_negative_below": None}
    low = 2.0
    while True:
        high = low * ratio
        if high > 1e15:
            return {"base": None, "grid_ratio": ratio, "first_negative_below": None}
        if passes(high):
            break
        low = high
    while high / low - 1 > rel_tol:
        mid = math.sqrt(low * high)
        if passes(mid):
            high = mid
        else:
            low = mid
    return {"base": high, "grid_ratio": ratio, "first_negative_below": first_negative(low, head_dim, context_len)}


def summary(head_dim: int, base: float, train_len: int, target_len: int, rotary_dim: int | None = None) -> dict:
    """Every calculator output for s = target_len / train_len."""
    r = rotary_dim or head_dim
    s = target_len / train_len
    return {
        "scale": s,
        "ntk_base": ntk_base(base, s, r) if r > 2 else None,
        "yarn_attention": get_mscale(s),
        "yarn_logit_multiplier": get_mscale(s) ** 2,
        "longrope_attention": longrope_attention(s, train_len) if train_len >= 2 else None,
    }

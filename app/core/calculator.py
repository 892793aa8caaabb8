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

from app.core import men_table
from app.core.offsets import offset_curves
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
    """B_m for every m in [0, length): :func:`app.core.offsets.offset_curves` with unit weights (two
    matrix products over m = a·B ± b with angle-addition tables; as close to the direct sum as the
    rounding of the arguments m·θ allows).  Shape ``(length,)``."""
    theta = base_inv_freq(head_dim, base)
    return offset_curves(np.ones(len(theta), dtype=np.complex128), theta, length)


# ---- Faster exact search for the Men et al. bound ----------------------------------------------
#
# men_base_bound is a sequence of pass/fail decisions "first_negative(b, d, T) is None".  The
# helpers below reach each decision, and the final first negative distance, without the cost of
# the reference scan, and give exactly the reference's answer: B_m is evaluated by another
# rounding path, and a value is only trusted when it is farther from 0 than both paths' rounding
# error can reach; otherwise the reference evaluation (first_negative) decides.


def _phasors(theta: np.ndarray, count: int, step: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of (k·step)·θ for k < count: theta ``(..., P)`` → two arrays ``(..., P, count)``.

    The first 16 columns by direct trig, the rest by doubling (angle addition with the directly
    computed cos/sin of n·step·θ): about 2 roundings per doubling, so each entry is within
    2^-53·k·step·θ (argument rounding) + 1e-15 of the exact value.
    """
    n = min(count, 16)
    angle = np.multiply.outer(theta, step * np.arange(n, dtype=np.float64))
    cos_k, sin_k = np.cos(angle), np.sin(angle)
    while n < count:
        shift = theta * (step * n)
        c, s = np.cos(shift)[..., None], np.sin(shift)[..., None]
        take = min(n, count - n)
        cos_k, sin_k = (
            np.concatenate([cos_k, cos_k[..., :take] * c - sin_k[..., :take] * s], axis=-1),
            np.concatenate([sin_k, sin_k[..., :take] * c + cos_k[..., :take] * s], axis=-1),
        )
        n += take
    return cos_k, sin_k


def _scan_negatives(thetas: np.ndarray, limit: int, stop_early: bool) -> tuple[np.ndarray, np.ndarray]:
    """For each base (row of ``thetas``, shape (G, P)): the first m < limit where B_m is certainly
    negative, and the first m < limit where B_m is within rounding distance δ of 0 (−1: none).
    With ``stop_early`` the scan ends at the first block where every base has a negative (the
    second answer is then only known up to there).  Returns two int64 arrays ``(G,)``.

    B_m = Σ cos(m θ_i) is evaluated in blocks m = a + k, k < W (W ≈ √limit, a power of two):
    cos(aθ)cos(kθ) − sin(aθ)sin(kθ), one (batched) matrix product per group of rows, the tables
    of kθ and aθ from :func:`_phasors`.  This evaluation and the reference (:func:`first_negative`)
    each differ from the exact sum by at most 2^-52·m·Σθ_i (argument rounding) + P·1e-14 (trig,
    products, doubling) + P²·2^-53 (a sum of P terms of size ≤ 1); δ is twice the sum of both.
    So a value below −δ is negative for the reference too, and a value above δ is not.
    """
    G, pairs = thetas.shape
    spread = 2.0**-49 * thetas.sum(axis=1)
    floor = pairs * 1e-13 + pairs * pairs * 2.0**-50
    width = 1 << max(4, min(12, (int(math.isqrt(limit)) - 1).bit_length()))
    rows_total = -(-limit // width)
    cos_k, sin_k = _phasors(thetas, width, 1.0)
    table = np.concatenate([cos_k, sin_k], axis=1)  # (G, 2P, W)
    cos_a, sin_a = _phasors(thetas, rows_total, float(width))
    left = np.concatenate([cos_a.transpose(0, 2, 1), -sin_a.transpose(0, 2, 1)], axis=2)  # (G, rows, 2P), C order
    chunk = max(1, (1 << 15) // (width * G))
    negative_at = np.full(G, -1, dtype=np.int64)
    close_at = np.full(G, -1, dtype=np.int64)
    for r0 in range(0, rows_total, chunk):
        m0 = r0 * width
        block = np.matmul(left[:, r0 : r0 + chunk], table).reshape(G, -1)[:, : limit - m0]
        delta = (spread * (m0 + block.shape[1]) + floor)[:, None]
        for mask, at in ((block < -delta, negative_at), (np.abs(block) <= delta, close_at)):
            hit = mask.any(axis=1) & (at < 0)
            at[hit] = m0 + np.argmax(mask[hit], axis=1)
        if stop_early and (negative_at >= 0).all():
            break
    return negative_at, close_at


def _verdict(negative_at: int, close_at: int, limit: int) -> bool | None:
    """Does the base pass (no B_m < 0 for m < limit), as :func:`first_negative` decides?  None when
    only the reference evaluation can tell (a value within rounding distance of 0 comes first)."""
    if 0 <= negative_at < limit:
        return False
    return None if 0 <= close_at < limit else True


def _first_negative(base: float, head_dim: int, limit: int) -> int | None:
    """:func:`first_negative`, exactly (the reference evaluation decides when rounding could)."""
    negative_at, close_at = (int(v[0]) for v in _scan_negatives(base_inv_freq(head_dim, base)[None, :], limit, True))
    end = negative_at if 0 <= negative_at < limit else limit
    if 0 <= close_at < end:
        return first_negative(base, head_dim, limit)
    return negative_at if end < limit else None


def _passes(base: float, head_dim: int, limit: int) -> bool:
    """first_negative(base, head_dim, limit) is None, decided exactly as the reference would."""
    negative_at, close_at = (int(v[0]) for v in _scan_negatives(base_inv_freq(head_dim, base)[None, :], limit, True))
    verdict = _verdict(negative_at, close_at, limit)
    return (first_negative(base, head_dim, limit) is None) if verdict is None else verdict


_TWO_PI = 2 * math.pi


def _probe_fails(thetas: np.ndarray, limit: int, probes: int) -> np.ndarray:
    """For each row of ``thetas`` ((G, P), one base per row): True if B_m < 0 certainly, for
    some m among ``probes`` positions spread evenly over [0, limit).  A cheap first look: when a
    base fails, about half of all m have B_m < 0, except within a few grid steps of the bound.

    float32 cosines of the phases reduced to [−π, π] in float64: each term is within
    2^-51·mθ_i + 5e-7 of cos(mθ_i) (phase rounding and reduction, float32 rounding ≤ 2^-24·π,
    float32 cos ≤ 3e-7), so a sum below −δ, δ = 2^-49·m·Σθ + P·2e-6 + P²·2^-50, is negative
    for the reference evaluation of :func:`first_negative` too.  Shape ``(G,)`` bool.
    """
    count = min(probes, limit)
    positions = np.minimum(np.floor((np.arange(count, dtype=np.float64) + 0.5) * (limit / count)), limit - 1)
    phase = thetas[:, None, :] * positions[None, :, None]  # (G, probes, P)
    turns = np.rint(phase * (1 / _TWO_PI))
    phase -= turns * _TWO_PI
    margin = np.cos(phase.astype(np.float32)).sum(axis=2, dtype=np.float64)
    pairs = thetas.shape[1]
    delta = 2.0**-49 * float(positions[-1]) * thetas.sum(axis=1) + pairs * 2e-6 + pairs * pairs * 2.0**-50
    return (margin < -delta[:, None]).any(axis=1)


@lru_cache(maxsize=8)
def _grid(steps_per_decade: int) -> tuple[float, ...]:
    """The search grid 2, 2·r, (2·r)·r, … (r = 10^(1/steps), each the previous times r, as the
    search forms them) up to 1e15."""
    ratio = 10 ** (1 / steps_per_decade)
    grid = [2.0]
    while grid[-1] * ratio <= 1e15:
        grid.append(grid[-1] * ratio)
    return tuple(grid)


def grid_first_negatives(head_dim: int, limit: int, steps_per_decade: int = 40) -> list[tuple[int, int]]:
    """For the search grid's bases in order, ``(first certain negative, first near-zero)`` distances
    below ``limit`` (−1: none; see :func:`_scan_negatives`), up to the first base that certainly
    passes ``limit``.  This settles the grid part of :func:`men_base_bound` for every
    context_len ≤ limit (``men_table.GRID`` holds it for common head dims)."""
    exponents = np.arange(0, head_dim, 2, dtype=np.float64) / head_dim
    out = []
    for base in _grid(steps_per_decade):
        negative_at, close_at = (int(v[0]) for v in _scan_negatives(1.0 / np.power(np.array([[base]]), exponents), limit, True))
        if 0 <= negative_at <= close_at:
            close_at = -1  # a near-zero value after the first certain negative never matters
        out.append((negative_at, close_at))
        if negative_at < 0 and close_at < 0:
            break
    return out


def _grid_index_from_table(entries, head_dim: int, context_len: int) -> int | None:
    grid = _grid(40)
    for k, (negative_at, close_at) in enumerate(entries):
        verdict = _verdict(negative_at, close_at, context_len)
        if verdict is None:
            verdict = first_negative(grid[k], head_dim, context_len) is None
        if verdict:
            return k
    raise AssertionError("the grid table ends with a base that passes")  # pragma: no cover


def _grid_index_live(head_dim: int, context_len: int, steps_per_decade: int) -> int | None:
    grid = _grid(steps_per_decade)
    if _passes(2.0, head_dim, context_len):
        return 0
    exponents = np.arange(0, head_dim, 2, dtype=np.float64) / head_dim
    pairs = len(exponents)
    width = 1 << max(4, min(12, (int(math.isqrt(context_len)) - 1).bit_length()))
    group = max(1, min(16, (1 << 20) // (pairs * (2 * width + 2 * (-(-context_len // width))) * 8)))
    for k0 in range(1, len(grid), 16):
        bases = np.array(grid[k0 : k0 + 16])
        thetas = 1.0 / np.power(bases[:, None], exponents)  # base_inv_freq of each, row by row
        open_ = np.flatnonzero(~_probe_fails(thetas, context_len, 8))
        for g0 in range(0, open_.size, group):
            rows = open_[g0 : g0 + group]
            negative_at, close_at = _scan_negatives(thetas[rows], context_len, False)
            for i, n, c in zip(rows, negative_at, close_at):
                verdict = _verdict(int(n), int(c), context_len)
                if verdict is None:
                    verdict = first_negative(float(bases[i]), head_dim, context_len) is None
                if verdict:
                    return k0 + int(i)
    return None


@lru_cache(maxsize=128)
def men_base_bound(head_dim: int, context_len: int, rel_tol: float = 1e-4, steps_per_decade: int = 40) -> dict:
    """Smallest base b with B_m ≥ 0 for all m < context_len (Men et al. 2024).

    Search: bases on a log grid (``steps_per_decade`` per decade) from b = 2 upwards until one
    passes, then bisection between it and the grid point below to ``rel_tol``.  The set of
    passing bases need not be an interval, so this is the smallest passing base at the fine grid's
    resolution.  Returns ``{"base", "grid_ratio", "first_negative_below"}`` (the first failing
    distance just below the bound).

    Every pass/fail decision is the one :func:`first_negative` gives, reached more cheaply: the
    grid part is read from ``men_table.GRID`` when it covers the head dim (the first negative
    distance of every grid base, precomputed), otherwise grid bases are probed in batches at a
    few distances (:func:`_probe_fails`) and the rest evaluated a batch at a time
    (:func:`_scan_negatives`); the bisection evaluates one base at a time, stopping at the first
    negative block.  ``men_table.BOUNDS`` holds finished results for common (head dim, length).
    """
    ratio = 10 ** (1 / steps_per_decade)
    default_search = (rel_tol, steps_per_decade) == (1e-4, 40)
    if default_search and (head_dim, context_len) in men_table.BOUNDS:
        base, first_below = men_table.BOUNDS[(head_dim, context_len)]
        return {"base": base, "grid_ratio": ratio, "first_negative_below": first_below}
    entries = men_table.GRID.get(head_dim) if default_search and context_len <= men_table.CAP else None
    if entries is not None:
        found = _grid_index_from_table(entries, head_dim, context_len)
    else:
        found = _grid_index_live(head_dim, context_len, steps_per_decade)
    if found is None:
        return {"base": None, "grid_ratio": ratio, "first_negative_below": None}
    grid = _grid(steps_per_decade)
    if found == 0:
        return {"base": 2.0, "grid_ratio": ratio, "first_negative_below": None}
    low, high = grid[found - 1], grid[found]
    while high / low - 1 > rel_tol:
        mid = math.sqrt(low * high)
        if _passes(mid, head_dim, context_len):
            high = mid
        else:
            low = mid
    return {"base": high, "grid_ratio": ratio, "first_negative_below": _first_negative(low, head_dim, context_len)}


def men_live_limit(head_dim: int, live_budget: int) -> int:
    """Largest context length whose bound :func:`men_base_bound` finds within ``live_budget``
    evaluations of (distance, pair): about 12·T·(d/2) when men_table.GRID covers the head dim
    (only the bisection is left), about 30 times more otherwise (the grid is scanned too), with
    d/2 counted as at least 8."""
    pairs = max(1, head_dim // 2)
    if head_dim in men_table.GRID:
        return min(men_table.CAP, live_budget // pairs)
    # Small head dims have bounds up to 1e14: hundreds of grid bases, whatever T·d/2.
    return live_budget // (32 * max(pairs, 8))


def men_bound_source(head_dim: int, context_len: int, live_budget: int) -> str | None:
    """How :func:`men_base_bound` answers within ``live_budget``: ``"table"`` (precomputed in
    men_table.BOUNDS), ``"live"`` (searched now, see :func:`men_live_limit`), or None (neither)."""
    from app.core import men_table

    if (head_dim, context_len) in men_table.BOUNDS:
        return "table"
    return "live" if context_len <= men_live_limit(head_dim, live_budget) else None


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

"""Score against offset, s(Δ), over long ranges: computed at every offset, reduced per pixel column.

For the same content at both positions, ⟨R_m q, R_{m+Δ} k⟩ = Σ_j Re(w_j e^{iΔθ_j}) + c with
w_j = conj(z_q,j)·z_k,j (see :mod:`app.core.rope`) and c the inner product of the dimensions that do
not rotate.  Evaluating it at every Δ in [0, N) costs N·r/2 phasors; writing Δ = a·B ± b turns
e^{iΔθ} into e^{iaBθ}·e^{±ibθ}, so all N values come out of two real matrix products of ``(A, r/2)``
and ``(r/2, B/2)`` tables with A·B ≥ N (A + B ≈ 2√N phasors instead of N·r/2; see
:class:`CurveEvaluator`).  The tables are built by angle addition from a few direct cos/sin
(:func:`phasor_table`), so the products — N·r/2 multiply-adds on one BLAS thread — are nearly the
whole cost.

A min/max envelope per pixel column has to see every offset (a sum of incommensurate cosines has no
shortcut for its extremes over an interval), so the work is N·r/2 per curve; what is kept small is
everything around it: pairs that do not rotate (p-RoPE) are one constant, the mean over random draws
is one curve (the mean of the weights), and the spread needs at most min(S, r) more curves.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from app.core.clock import TWO_PI, near_returns, wrap_signed
from app.core.frequencies import inverse_frequencies

# Rows of curves per matrix product (bounds the temporary to rows × N float64).
ROW_CHUNK = 8


def kept_pairs(head_dim: int, drop_percent: float) -> int:
    """Pairs that keep rotating under p-RoPE: int(p·d // 2) with p = 1 − x/100 (HF 'proportional')."""
    return int((1.0 - drop_percent / 100.0) * head_dim // 2)


def prope_ladder(head_dim: int, base: float, drop_percent: float) -> np.ndarray:
    """p-RoPE's ladder: θ_j = b^(−2j/d) for the kept (fastest) pairs, 0 for the dropped (slowest,
    highest j) ones.  Shape ``(d/2,)``."""
    inv_freq = inverse_frequencies(head_dim, base)
    inv_freq[kept_pairs(head_dim, drop_percent) :] = 0.0
    return inv_freq


def phasor_table(inv_freq: np.ndarray, count: int, step: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of (k·step)·θ_j for k = 0 … count−1: two ``(count, h)`` float64 arrays (the real
    and imaginary parts of one complex table).

    The first 16 rows by direct cos/sin, the rest by doubling: rows n … 2n−1 are rows 0 … n−1
    times the directly computed phasor of n·step·θ (one complex multiply, two roundings per
    level), so an entry carries at most ~3·log2(count) ulp plus the rounding of its argument
    (2^-53·k·step·θ).
    """
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    table = np.empty((count, len(inv_freq)), dtype=np.complex128)
    n = min(count, 16)
    angle = np.multiply.outer(step * np.arange(n, dtype=np.float64), inv_freq)
    table.real[:n] = np.cos(angle)
    table.imag[:n] = np.sin(angle)
    while n < count:
        take = min(n, count - n)
        shift = inv_freq * (step * n)
        np.multiply(table[:take], np.cos(shift) + 1j * np.sin(shift), out=table[n : n + take])
        n += take
    return table.real, table.imag


def merge_still_pairs(weights: np.ndarray, inv_freq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs with θ_j = 0 contribute the constant Re(w_j): fold them into one pair with θ = 0.

    weights ``(S, h)`` complex, inv_freq ``(h,)`` → ``(S, h')``, ``(h',)`` with h' ≤ h.
    """
    still = inv_freq == 0
    if still.sum() <= 1:
        return weights, inv_freq
    moving = ~still
    merged = weights[:, still].sum(axis=1, keepdims=True)
    return np.concatenate([weights[:, moving], merged], axis=1), np.concatenate([inv_freq[moving], [0.0]])


class CurveEvaluator:
    """Evaluates s_w(Δ) = Σ_j Re(w_j e^{iΔθ_j}) for Δ = 0 … count−1 and any weight rows w.

    Offsets are written Δ = a·B ± b (0 ≤ b ≤ B/2, B even): with L = w·e^{iaBθ},
    s(aB ± b) = Σ_j Re(L_j) cos bθ_j ∓ Im(L_j) sin bθ_j = P[a, b] ∓ Q[a, b], where P and Q are two
    real matrix products of ``(A, h)`` by ``(h, B/2 + 1)``: each product serves the offsets on
    both sides of a·B, so the multiply-adds are N·h per curve (plus one pass to combine them),
    half of the 2N·h of one product over [cos bθ; sin bθ] for 0 ≤ b < B.
    """

    def __init__(self, inv_freq: np.ndarray, count: int) -> None:
        inv_freq = np.asarray(inv_freq, dtype=np.float64)
        self.count = count
        half = max(1, (math.isqrt(max(count - 1, 0)) + 2) // 2)  # B/2 ≈ √count / 2
        self.half = half
        self.block = 2 * half
        # Row a covers Δ = aB − B/2 + 1 … aB + B/2; the last must reach count − 1.
        self.rows = max(1, -(-(count - 1 - half) // self.block) + 1)
        cos_b, sin_b = phasor_table(inv_freq, half + 1)
        self.cos_b = np.ascontiguousarray(cos_b.T)  # (h, B/2 + 1)
        self.sin_b = np.ascontiguousarray(sin_b.T)
        cos_a, sin_a = phasor_table(inv_freq, self.rows, float(self.block))  # (A, h)
        self.cos_a, self.sin_a = np.ascontiguousarray(cos_a), np.ascontiguousarray(sin_a)

    def values(self, weights: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """weights ``(R, h)`` complex → ``(R, count)`` float64, a view into ``out`` (R·A·B float64,
        reused when given: a fresh megabyte costs as much to fault in as the products take)."""
        weights = np.asarray(weights, dtype=np.complex128)
        wr, wi = weights.real[:, None, :], weights.imag[:, None, :]
        complex_weights = bool(np.any(wi))
        h, half, rows = weights.shape[1], self.half, self.rows
        size = len(weights) * rows * self.block
        if out is None or out.size < size:
            out = np.empty(size)
        out = out[:size].reshape(len(weights), rows, self.block)  # column c holds Δ = aB − B/2 + 1 + c
        # Rows of a·B in chunks whose temporaries stay small (≤ 96 KB: reused heap memory, not fresh
        # pages to fault in).
        step = max(1, 12288 // (half + 1))
        for a0 in range(0, rows, step):
            a1 = min(rows, a0 + step)
            cos_a, sin_a = self.cos_a[a0:a1], self.sin_a[a0:a1]
            real = wr * cos_a  # Re(w e^{iaBθ}) = Re w cos aBθ − Im w sin aBθ
            imag = wr * sin_a  # Im(w e^{iaBθ}) = Re w sin aBθ + Im w cos aBθ
            if complex_weights:
                real -= wi * sin_a
                imag += wi * cos_a
            p = (real.reshape(-1, h) @ self.cos_b).reshape(len(weights), a1 - a0, half + 1)
            q = (imag.reshape(-1, h) @ self.sin_b).reshape(len(weights), a1 - a0, half + 1)
            chunk = out[:, a0:a1]
            np.add(p[:, :, half - 1 : 0 : -1], q[:, :, half - 1 : 0 : -1], out=chunk[:, :, : half - 1])  # Δ = aB − b
            np.subtract(p, q, out=chunk[:, :, half - 1 :])  # Δ = aB + b
        return out.reshape(len(weights), -1)[:, half - 1 : half - 1 + self.count]


def offset_curves(weights: np.ndarray, inv_freq: np.ndarray, count: int, constant: np.ndarray | float = 0.0) -> np.ndarray:
    """s(Δ) = Σ_j Re(w_j e^{iΔθ_j}) + c for Δ = 0 … count−1, for one or several weight vectors.

    weights: ``(r/2,)`` or ``(S, r/2)`` complex; inv_freq: ``(r/2,)``; constant: scalar or ``(S,)``.
    Returns ``(count,)`` or ``(S, count)`` float64.  The phasor of Δ = a·B + b is the product of the
    phasors of a·B and b, each built by angle addition, so each value carries a few rounding errors
    more than ``exp(1j·Δθ)`` would (relative ~1e-14 of Σ|w_j|), at a small fraction of its cost.
    """
    weights = np.asarray(weights, dtype=np.complex128)
    single = weights.ndim == 1
    weights, inv_freq = merge_still_pairs(np.atleast_2d(weights), np.asarray(inv_freq, dtype=np.float64))
    evaluator = CurveEvaluator(inv_freq, count)
    if len(weights) <= ROW_CHUNK:
        out = evaluator.values(weights)
    else:
        out = np.concatenate([evaluator.values(weights[i : i + ROW_CHUNK]) for i in range(0, len(weights), ROW_CHUNK)])
    if np.any(constant):
        out += np.asarray(constant, dtype=np.float64).reshape(-1, 1)
    return out[0] if single else out


def mean_and_std(weights: np.ndarray, inv_freq: np.ndarray, count: int, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean and population standard deviation over the S weight rows of s_w(Δ), Δ = 0 … count−1.

    weights ``(S, h)`` complex.  Returns ``(count,)`` arrays (std None when S = 1: it is 0).  Both are
    linear-algebra identities, not approximations: the mean curve is the curve of the mean weights,
    and S·var(Δ) = Σ_s s_{w_s − w̄}(Δ)² = ‖U φ(Δ)‖² with U the ``(S, 2h)`` real form [Re, −Im] of the
    centred weights and φ(Δ) = [cos Δθ, sin Δθ]; with U = QR, ‖Uφ‖ = ‖Rφ‖, so at most min(S, 2h)
    curves are evaluated (centring also avoids the cancellation of E[s²] − E[s]²).
    """
    weights, inv_freq = merge_still_pairs(np.atleast_2d(np.asarray(weights, dtype=np.complex128)), np.asarray(inv_freq, dtype=np.float64))
    evaluator = CurveEvaluator(inv_freq, count)
    draws = len(weights)
    mean_weights = weights.mean(axis=0)
    mean = evaluator.values(mean_weights[None, :], out)[0]
    if draws == 1:
        return mean, None
    centred = weights - mean_weights
    h = centred.shape[1]
    if draws > 2 * h:
        real = np.concatenate([centred.real, -centred.imag], axis=1)  # (S, 2h): s_w = real · φ
        # cast: numpy/linalg/_linalg.pyi types every qr() as QRResult; mode="r" returns R alone, an array
        r = cast(np.ndarray, np.linalg.qr(real, mode="r"))
        centred = r[:, :h] - 1j * r[:, h:]
    squares = np.zeros(count)
    for i in range(0, len(centred), ROW_CHUNK):
        values = evaluator.values(centred[i : i + ROW_CHUNK])
        squares += np.einsum("rn,rn->n", values, values)
    return mean, np.sqrt(squares / draws)


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


# ---- record returns of one hand, from the continued fraction of θ/2π ------------------------------


def _convergent_denominators(num: int, den: int, count: int, past: int = 2) -> list[int]:
    """Denominators q_0 = 1, q_1, … of the continued-fraction convergents of num/den (exact integer
    Euclid), up to and including the ``past``-th one ≥ count (fewer if the expansion ends)."""
    num, den = num % den, den
    previous, q = 0, 1
    out = [1]
    beyond = 0
    while num and beyond < past:
        a, rest = divmod(den, num)
        num, den = rest, num
        previous, q = q, a * q + previous
        out.append(q)
        beyond += q >= count
    return out


def record_returns(theta: float, count: int, exact: float = 1e-9) -> list[dict[str, float | int]]:
    """:func:`app.core.clock.near_returns` (the offsets Δ in [2, count) at which the hand of speed θ comes
    back closer to its start than ever before), equal to it record for record and gap for gap, in
    O(log count) instead of a scan of every offset.

    With α = θ/P (P the float 2π that :func:`wrap_signed` uses, α exact as a fraction) the gap at Δ
    is P·‖Δα‖ up to the rounding of Δ·θ and of P·round(·): at most ε = 2^-51·(count·θ + 8).  In exact
    arithmetic the records are the convergent denominators q_k of α, and every other Δ in
    (q_k, q_{k+1}) has ‖Δα‖ ≥ ‖q_kα‖ + ‖q_{k+1}α‖ (three-distance structure; the bound is reached at
    Δ = q_{k+1} − q_k), while ‖q_kα‖ − ‖q_{k+1}α‖ ≥ ‖q_{k+2}α‖.  So when P·‖q_kα‖ > 4ε for every
    convergent involved (and no gap is within ε of ``exact``) rounding cannot add, drop or reorder a
    record, and the records are the q_k with their gaps evaluated exactly as near_returns does.
    Otherwise (θ within ~1e-10 of a fraction of 2π with a small denominator) the scan decides.
    """
    if count < 3:
        return []
    theta = float(theta)
    if not (math.isfinite(theta) and theta > 0):
        return near_returns(theta, count, exact)
    a_num, a_den = theta.as_integer_ratio()
    p_num, p_den = TWO_PI.as_integer_ratio()
    num, den = a_num * p_den, a_den * p_num  # α = θ/P exactly
    denominators = _convergent_denominators(num, den, count)
    eps = 2.0**-51 * (count * theta + 8.0)
    records = [q for q in sorted(set(denominators)) if 2 <= q < count]
    gaps = wrap_signed(np.array(records, dtype=np.float64) * theta)
    out: list[dict[str, float | int]] = []
    last_kept: int | None = None
    for q, gap in zip(records, gaps, strict=True):
        out.append({"delta": q, "gap": float(gap)})
        last_kept = q
        if abs(gap) < exact:
            break
    # Every convergent from q_1 up to two past the last record kept must be clear of rounding.
    last = denominators.index(last_kept) if last_kept is not None else 0
    for q in denominators[1 : last + 3]:
        rest = q * num % den
        margin = min(rest, den - rest) / den * TWO_PI  # P·‖qα‖ (int / int is correctly rounded)
        if margin <= 4 * eps or (q < count and abs(margin - exact) <= 2 * eps):
            return near_returns(theta, count, exact)
    return out

"""Floating-point precision of RoPE angles φ = m·θ_j, as production code forms them.

Production (transformers ``LlamaRotaryEmbedding.forward``) multiplies float32 positions by float32
inverse frequencies; some kernels do it in bfloat16 or float16.  We emulate a dtype by rounding
the position, the inverse frequency and the product to that dtype:

    φ̃(m) = round(round(m) · round(θ))

float32 and float16 use numpy's own types (correctly rounded).  bfloat16 has no numpy type: we
round float32 values to the upper 16 bits with round-to-nearest-even (:func:`to_bfloat16`).  The
product of two bfloat16 values is exact in float32 (8 + 8 significant bits), so rounding it once
to bfloat16 equals a correctly rounded bfloat16 multiply.  The reference is float64 ``m·θ``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.rope import block_partition

DTYPES = ("float32", "bfloat16", "float16")
# Significand bits including the implicit one.
SIGNIFICAND_BITS = {"float64": 53, "float32": 24, "bfloat16": 8, "float16": 11}


def to_bfloat16(x: np.ndarray) -> np.ndarray:
    """Round to bfloat16 (round to nearest, ties to even), returned as float32 values.

    Method: view float32 bits as uint32, add 0x7FFF plus the lowest kept bit, clear the low 16
    bits.  NaN stays NaN (its quiet bit is kept).  Shape of input.
    """
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


def round_to(x: np.ndarray | float, dtype: str) -> np.ndarray:
    """Round float64 values to ``dtype``; returns an array of that dtype (bfloat16: float32 holding
    bfloat16 values)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "float64":
        return x
    if dtype == "float32":
        return x.astype(np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16)
    if dtype == "bfloat16":
        # float64 → float32 → bfloat16 double-rounds; the values we round (integers, float32
        # inverse frequencies, exact float32 products) are float32-representable, so it is exact.
        return to_bfloat16(x.astype(np.float32))
    raise ValueError(f"unknown dtype {dtype!r}")


def angles_in(positions: np.ndarray, inv_freq: float, dtype: str, rounded_positions: np.ndarray | None = None) -> np.ndarray:
    """φ̃(m) = round(round(m)·round(θ)) in ``dtype``, returned as float64.  Shape of positions.

    θ is first rounded to float32 (the dtype transformers builds it in), then to ``dtype``.
    ``rounded_positions`` (``round_to(positions, dtype)``) may be passed to reuse it across pairs.
    """
    theta32 = np.float32(inv_freq)
    if dtype == "float64":
        return np.asarray(positions, dtype=np.float64) * float(inv_freq)
    m = round_to(positions, dtype) if rounded_positions is None else rounded_positions
    theta = round_to(np.float64(theta32), dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == "bfloat16":
            product = to_bfloat16(m.astype(np.float32) * theta.astype(np.float32))
        else:
            product = m * theta  # numpy float32 / float16 multiply, correctly rounded
    return product.astype(np.float64)


def angle_error(positions: np.ndarray, inv_freq: float, dtype: str) -> np.ndarray:
    """φ̃(m) − m·θ (float64 reference, θ the float64 value), radians.  Inf/NaN where the dtype
    overflows (float16 positions above 65504)."""
    exact = np.asarray(positions, dtype=np.float64) * float(inv_freq)
    with np.errstate(invalid="ignore"):
        return angles_in(positions, inv_freq, dtype) - exact


def head_score(positions: np.ndarray, inv_freq: np.ndarray, dtype: str) -> np.ndarray:
    """Mean over pairs of cos φ_j(m): the score ⟨R_0 q, R_m k⟩ for q = k with equal unit-norm
    pairs, divided by the number of pairs.  cos is evaluated exactly of the dtype's angle, so the
    difference to float64 isolates the angle's rounding.  Shape ``(len(positions),)``."""
    total = np.zeros(len(positions), dtype=np.float64)
    for theta in np.asarray(inv_freq, dtype=np.float64):
        with np.errstate(invalid="ignore"):
            total += np.cos(angles_in(positions, float(theta), dtype))
    return total / len(inv_freq)


def first_collision(inv_freq: float, dtype: str, limit: int) -> int | None:
    """Smallest m in [0, limit) with φ̃(m+1) == φ̃(m): two neighbouring positions get the same
    angle on this pair.  None if there is none below ``limit``.  Cost O(1) (no scan of the range).

    bfloat16 / float16 (p = 8 / 11 significant bits): positions 2^p and 2^p + 1 round to the same
    value (ties to even), so the answer is at most 2^p ≤ 2048; we compare the angles of
    m = 0 … 2^p + 1 directly.

    float32 (p = 24): positions are exact below 2^24 and 2^24 + 1 rounds to 2^24, so the answer is
    at most 2^24.  Below that only the products can collide.  Write θ32 = K·2^q with K an integer in
    [2^23, 2^24); the product m·θ32 = (m·K)·2^q is rounded to a multiple of the unit in the last
    place, which is P·2^q in integer units n = m·K.  m and m+1 can share a rounded value only if the
    step K is at most that unit, and P is a power of two, so:

    * θ32 a power of two (K = 2^23): every product below 2^24·θ32 is exact: no collision.
    * otherwise the first binade where it can happen has P = 2^24 > K; it starts at
      m0 = ⌈2^47 / K⌉ (between 2^23 and 2^24) and reaches past 2^24.  Lower binades have P ≤ 2^23 < K,
      and the step across their upper boundaries (at most 1.5 units of the lower binade) is also
      too small to collide except at m0 − 1 → m0, which we test directly.
    * In that binade put s(m) = (m·K + P/2) mod P, the position of m·K inside its rounding cell.
      m collides with m+1 only if s(m) ∈ [0, D] with D = P − K (the cell still has room for one
      more step; the two ends are ties decided by round-to-even).  s decreases by D (mod P) per
      step, so these m are found in closed form, one or two per wrap of s around P, and each
      candidate is checked with the real float32 multiply.  A hit strictly inside (0, D) always
      collides; ties need the even neighbour.  Writing K = K'·2^z (K' odd), P' = P/2^z and
      D' = D/2^z (odd, coprime to P'): when D' ≥ 3 two consecutive wraps cannot both land on a
      tie, so a collision is among the first hits; when D' = 1 every hit is a tie, but whether
      m collides depends only on m·K mod 2P, i.e. on m mod 2P', and one wrap is P' steps: the
      first 8 wraps cover that period and if none of them collides nothing in range does.
    Checked against a full scan of every m < 2^24 in the tests.
    """
    if dtype == "float64":
        # ulp(mθ) ≥ θ needs m ≥ 2^52: far beyond any context length.
        return None
    if limit <= 0:
        return None
    p = SIGNIFICAND_BITS[dtype]
    position_collision = 1 << p  # round(2^p + 1) == 2^p (ties to even)
    theta = float(round_to(np.float64(np.float32(inv_freq)), dtype))
    if theta == 0.0:
        return 0
    if dtype != "float32":
        m = np.arange(min(limit, position_collision) + 2, dtype=np.float64)
        phi = angles_in(m, inv_freq, dtype)
        same = np.flatnonzero(phi[1:] == phi[:-1])
        return int(same[0]) if same.size and same[0] < limit else None

    def collides(m: npt.ArrayLike) -> np.ndarray:
        m = np.asarray(m, dtype=np.float64)
        return angles_in(m, inv_freq, "float32") == angles_in(m + 1, inv_freq, "float32")

    answer_if_none = position_collision if position_collision < limit else None
    stop = min(limit, position_collision)  # candidates m < stop; m = 2^24 is the position collision
    mantissa, _exponent = math.frexp(theta)
    K = int(mantissa * (1 << 24))  # θ32 = K·2^(exponent − 24), exactly
    if K == 1 << 23:
        return answer_if_none
    P = 1 << 24
    D = P - K
    m0 = -(-(1 << 47) // K)  # first m with m·K ≥ 2^47: the product is in the binade with unit P
    if m0 - 1 >= stop:
        return answer_if_none
    if collides([m0 - 1])[0]:
        return m0 - 1
    s0 = (m0 * K + P // 2) % P
    wraps = np.arange(8, dtype=np.int64)
    top = s0 + wraps * P
    low = np.maximum((top - 1) // D, 0)  # ⌈(s0 + wP − D)/D⌉, at least 0
    high = top // D  # ⌊(s0 + wP)/D⌋
    steps = np.concatenate([low[:, None], np.where(low + 1 <= high, low + 1, -1)[:, None]], axis=1).ravel()
    candidates = m0 + np.array(sorted(set(steps[steps >= 0].tolist())), dtype=np.int64)
    candidates = candidates[candidates < stop]
    if candidates.size:
        hit = np.flatnonzero(collides(candidates))
        if hit.size:
            return int(candidates[hit[0]])
    return answer_if_none


def run_starts(length: int, dtype: str) -> np.ndarray:
    """First position of every run of consecutive positions in [0, length) that ``round_to`` maps to
    the same ``dtype`` value (float16 positions from 65520 on form one run: they overflow to inf).
    Sorted int64, starting with 0.  For a p-bit significand the representable integers are
    0 … 2^p and, in [2^k, 2^(k+1)), every 2^(k−p+1)-th integer; the boundary between neighbours
    v < w is at ⌊(v+w)/2⌋ or one past it (ties to even), decided by rounding that position.
    """
    p = SIGNIFICAND_BITS[dtype]
    if length <= 1 << p:
        values = np.arange(length + 1, dtype=np.int64)
    else:
        top = max(p, (length - 1).bit_length())
        parts = [np.arange(1 << p, dtype=np.int64)]
        parts += [np.arange(1 << k, 1 << (k + 1), 1 << (k - p + 1), dtype=np.int64) for k in range(p, top)]
        parts.append(np.array([1 << top], dtype=np.int64))
        values = np.concatenate(parts)
    middle = (values[:-1] + values[1:]) // 2
    below = round_to(values[:-1].astype(np.float64), dtype)
    starts = np.where(round_to(middle.astype(np.float64), dtype) == below, middle + 1, middle)
    starts = np.concatenate([[0], starts[starts < length]])
    rounded = round_to(starts.astype(np.float64), dtype)
    keep = np.concatenate([[True], rounded[1:] != rounded[:-1]])
    return starts[keep]


# The runs of both half precisions for every position below 2^24 (the float32 limit of exact
# positions), computed once: run_starts(length) is the part of this below length.
_RUN_TABLE_LENGTH = 1 << 24
_RUN_TABLE = {dtype: run_starts(_RUN_TABLE_LENGTH, dtype) for dtype in ("bfloat16", "float16")}


def runs_below(length: int, dtype: str) -> np.ndarray:
    """``run_starts(length, dtype)`` for a half precision, read from the precomputed table."""
    if length > _RUN_TABLE_LENGTH:
        return run_starts(length, dtype)
    table = _RUN_TABLE[dtype]
    return table[: int(np.searchsorted(table, length))]


# ---- per-column error maxima, exact, without np.cos at every position ---------------------------
#
# |computed |cos a − cos x| − exact value|: np.cos is within 1 ulp (it is the C library's cos here),
# so this is at most 2·2^-52 + 2^-53 ≈ 5.6e-16; 4e-15 leaves a margin of 7.
_COS_SLACK = 4e-15
_CHUNK = 1 << 15  # positions per block of rows (≈ 256 KB per float64 temporary)


def error_envelopes(length: int, inv_freqs: Iterable[float], columns: int, dtypes: tuple[str, ...] = DTYPES) -> list[dict[str, dict[str, Any]]]:
    """Per-column largest angle error |φ̃(m) − m·θ| and score error |cos φ̃(m) − cos(m·θ)| over
    positions 0 … length−1, for each θ in ``inv_freqs``, split into the columns of
    ``rope.block_partition(length, columns)``.

    The values are exactly those of the direct computation (``angles_in`` on every position, then
    ``abs`` and a max per column, NaN ignored; m·θ and cos in float64 as numpy computes them), but
    np.cos, the expensive part, runs only on the few positions that can hold a column's maximum:

    * float32 angle error: computed at every position (a few cheap array operations); 0 without
      computing when θ is a power of two that float32 holds (every product m·θ, m < 2^24, is exact).
    * bfloat16 / float16 angle error: φ̃ is constant on each run of positions that round to the
      same value (``run_starts``), and c − fl(m·θ) is monotone in m, so within a run and a column
      the largest |error| is at one of the two ends: two evaluations per (run ∩ column).
    * score errors: sin(mθ) and cos(mθ) are approximated for every position from one cos/sin per
      column start a and per offset k (angle-addition formula, one small matrix product, error
      ε ≤ 2^-50·max(mθ) + 1e-14), giving A(m) with |A(m) − score error(m)| ≤ β: for
      bfloat16/float16 A = |C − cos(mθ)≈| with C = cos φ̃ of the position's run (exact: one np.cos
      per run) and β = ε + slack; for float32, with e = φ̃ − mθ (exact) and
      cos(x+e) − cos x = −2 sin(e/2) sin(x + e/2), A = |e|·|sin(mθ)≈ + (e/2)·cos(mθ)≈| and
      β = E³/6 + E⁴/48 + E·ε·(1 + E/2) + slack, E the column's largest |e| (a column with E = 0 has
      φ̃ = mθ throughout: score error 0).  Only positions with A ≥ max(A) − 2β can reach the
      column's maximum; the exact formula is evaluated there (with C, so only cos(mθ) is new).

    Returns one dict per θ, keyed by dtype: ``angle`` and ``score`` ((C,) float64 column maxima,
    inf/NaN as the direct computation gives them), ``largest_angle`` (largest finite angle error or
    None), ``largest_score`` (largest score error, NaN ignored, or None), ``overflow_from`` (first
    position whose angle is not finite, or None).  Memory: O(columns + runs + 2^15) floats.
    """
    thetas = [float(t) for t in inv_freqs]
    col_start, col_size = block_partition(length, columns)
    ncol = len(col_start)
    width = int(col_size[0])
    k = np.arange(width, dtype=np.float64)
    run_dtypes = [dtype for dtype in dtypes if dtype != "float32"]
    runs = {dtype: _Runs(length, col_start, dtype) for dtype in run_dtypes}
    # Blocks of whole columns of equal width: all full columns, then the last one if it is shorter.
    rows_per_chunk = max(1, _CHUNK // width)
    full = ncol if col_size[-1] == width else ncol - 1
    blocks = [(r0, min(full, r0 + rows_per_chunk), width) for r0 in range(0, full, rows_per_chunk)]
    if full < ncol:
        blocks.append((ncol - 1, ncol, int(col_size[-1])))

    n = len(thetas)
    theta32 = [np.float32(t) for t in thetas]
    # float32 products m·θ32 are exact, so e = 0, when θ32 = θ is a power of two and m < 2^24
    # (θ_0 = b^0 = 1 for every base).
    exact32 = [float(t32) == t and math.frexp(t)[0] == 0.5 and length <= 1 << 24 for t, t32 in zip(thetas, theta32, strict=True)]
    ck_sk = [np.stack([np.cos(k * t), np.sin(k * t)]) for t in thetas]  # (2, width) each
    angle32, score32 = np.empty((n, ncol)), np.full((n, ncol), np.nan)
    half = {dtype: [run.angle_envelope(t) for t in thetas] for dtype, run in runs.items()}  # (envelope, cos per run, live until)
    for dtype in run_dtypes:
        for envelope, _, _ in half[dtype]:
            envelope["score"] = np.full(ncol, np.nan)
    for r0, r1, w in blocks:
        rows = r1 - r0
        p0 = int(col_start[r0])
        a = col_start[r0:r1].astype(np.float64)
        m = a[:, None] + k[None, :w]  # exact integers
        m32 = m.astype(np.float32) if "float32" in dtypes else None
        spread = {dtype: run.spread(p0, rows * w) for dtype, run in runs.items()}
        for t, theta in enumerate(thetas):
            x = m * theta
            # |approximation − sin or cos of fl(m·θ)|: the arguments fl(aθ) + fl(kθ) and fl(mθ) differ
            # by ≤ 2^-52·mθ; cos/sin ≤ 1 ulp each, products and sum ≤ 3 roundings.
            eps = 2.0**-50 * float(x[-1, -1]) + 1e-14
            a_angle = a * theta
            sa, ca = np.sin(a_angle), np.cos(a_angle)
            coef = np.empty((2 * rows, 2))
            coef[:rows, 0], coef[:rows, 1] = 2 * sa, 2 * ca  # 2 sin(a+k) = 2 sin a cos k + 2 cos a sin k
            coef[rows:, 0], coef[rows:, 1] = ca, -sa  # cos(a+k) = cos a cos k − sin a sin k
            both = coef @ ck_sk[t][:, :w]
            sin2_x, cos_x = both[:rows], both[rows:]
            if m32 is not None and exact32[t]:
                angle32[t, r0:r1] = 0.0
            elif m32 is not None:
                _float32_block(m32, x, theta, theta32[t], eps, sin2_x, cos_x, w, angle32[t, r0:r1], score32[t, r0:r1])
            for dtype in run_dtypes:
                envelope, cos_run, live_until = half[dtype][t]
                # Rows past the first run whose angle is not finite (float16 from 65520 on) have a
                # NaN score error at every position: their maximum stays NaN.
                live = min(rows, int(np.searchsorted(a, live_until, side="left")))
                if live == 0:
                    continue
                c = spread[dtype](cos_run)[: live * w].reshape(live, w)  # C at every position
                approx = c - cos_x[:live]
                np.abs(approx, out=approx)
                threshold = np.fmax.reduce(approx, axis=1) - 2 * (eps + _COS_SLACK)
                flat = np.flatnonzero(approx >= threshold[:, None])
                with np.errstate(invalid="ignore"):
                    value = np.abs(c.ravel()[flat] - np.cos(x.ravel()[flat]))
                _row_max(flat, w, value, envelope["score"][r0 : r0 + live])

    results: list[dict[str, dict[str, Any]]] = []
    for t in range(n):
        out: dict[str, dict[str, Any]] = {}
        for dtype in run_dtypes:
            envelope = half[dtype][t][0]
            score = envelope["score"]
            envelope["largest_score"] = float(np.nanmax(score)) if np.isfinite(score).any() else None
            out[dtype] = envelope
        if "float32" in dtypes:
            score = score32[t]
            score[angle32[t] == 0] = 0.0
            out["float32"] = {
                "angle": angle32[t],
                "largest_angle": float(angle32[t].max()),
                "overflow_from": None,
                "score": score,
                "largest_score": float(np.nanmax(score)) if np.isfinite(score).any() else None,
            }
        results.append(out)
    return results


def _row_max(flat: np.ndarray, width: int, value: np.ndarray, out: np.ndarray) -> None:
    """out[row] = largest value (NaN ignored) among the candidates ``flat`` (flat indices into a
    (rows, width) block, increasing) of that row; rows without a candidate are left as they are."""
    if not flat.size:
        return
    row = flat // width
    first = np.flatnonzero(np.concatenate([[True], row[1:] != row[:-1]]))
    out[row[first]] = np.fmax.reduceat(value, first)


def _float32_block(
    m32: npt.NDArray[np.float32],
    x: npt.NDArray[np.float64],
    theta: float,
    theta32: np.float32,
    eps: float,
    sin2_x: np.ndarray,
    cos_x: np.ndarray,
    width: int,
    angle_out: np.ndarray,
    score_out: np.ndarray,
) -> None:
    """Column maxima of the float32 angle and score errors on one block of rows (see error_envelopes)."""
    angle = (m32 * theta32).astype(np.float64)  # φ̃ exactly as angles_in gives it
    e = angle - x  # exact (Sterbenz): the float32 angle is within a factor 2 of m·θ
    E = np.maximum(e.max(axis=1), -e.min(axis=1))
    angle_out[:] = E
    beta = E**3 / 6 + E**4 / 48 + E * eps * (1 + E / 2) + 1e-15 * E + _COS_SLACK
    # 2·A ≤ E·(2·|sin x| + E + 3ε) and |sin x| ≤ x: when that is within the tolerance on every row
    # (errors below np.cos's own resolution), every position is a candidate: evaluate directly.
    if np.all(E * (2 * np.minimum(1.0, x[:, -1]) + E + 3 * eps) <= 4 * beta):
        score_out[:] = np.fmax.reduce(np.abs(np.cos(angle) - np.cos(x)), axis=1)
        return
    approx = e * cos_x  # |e·(2 sin x + e cos x)| = 2·A(m)
    approx += sin2_x
    approx *= e
    np.abs(approx, out=approx)
    threshold = approx.max(axis=1) - 4 * beta
    threshold[E == 0] = np.inf  # φ̃ = m·θ on the whole column: score error exactly 0
    flat = np.flatnonzero(approx >= threshold[:, None])
    if 4 * flat.size > approx.size:
        # Errors below np.cos's own resolution: nearly every position can hold the maximum.
        score_out[:] = np.fmax.reduce(np.abs(np.cos(angle) - np.cos(x)), axis=1)
    else:
        _row_max(flat, width, np.abs(np.cos(angle.ravel()[flat]) - np.cos(x.ravel()[flat])), score_out)


class _Runs:
    """The runs of one half precision over positions 0 … length−1 and their pieces (run ∩ column)."""

    def __init__(self, length: int, col_start: np.ndarray, dtype: str) -> None:
        self.dtype = dtype
        self.length = length
        self.start = runs_below(length, dtype)
        merged = np.sort(np.concatenate([self.start, col_start]))
        seg = merged[np.concatenate([[True], merged[1:] != merged[:-1]])]
        self.seg = seg
        self.seg_first = seg.astype(np.float64)
        self.seg_last = (np.append(seg[1:], length) - 1).astype(np.float64)
        self.seg_run = np.searchsorted(self.start, seg, side="right") - 1
        self.seg_of_column = np.searchsorted(seg, col_start)

    def spread(self, p0: int, count: int) -> Callable[[np.ndarray], np.ndarray]:
        """A function mapping per-run values to the positions p0 … p0 + count − 1: ``np.repeat`` of
        the runs met (cheap per position, ~100 instructions per run) when they average 16
        positions or more, else a gather by each position's run."""
        i0 = int(np.searchsorted(self.start, p0, side="right")) - 1
        i1 = int(np.searchsorted(self.start, p0 + count, side="left"))
        if count >= 16 * (i1 - i0):
            edges = np.minimum(np.maximum(np.append(self.start[i0:i1], p0 + count), p0), p0 + count)
            lengths = np.diff(edges)
            return lambda per_run: np.repeat(per_run[i0:i1], lengths)
        marks = np.zeros(count, dtype=np.intp)
        marks[self.start[i0 + 1 : i1] - p0] = 1
        marks[0] = i0
        index = np.cumsum(marks, out=marks)
        return lambda per_run: per_run[index]

    def angle_envelope(self, theta: float) -> tuple[dict[str, Any], np.ndarray, int]:
        """Column maxima of |φ̃ − m·θ| (largest at an end of each piece), cos φ̃ of every run, and the
        first position whose angle is not finite (length if none)."""
        run_angle = angles_in(self.start.astype(np.float64), theta, self.dtype)
        with np.errstate(invalid="ignore"):
            cos_run = np.cos(run_angle)
        bad = np.flatnonzero(~np.isfinite(run_angle))
        # Runs are monotone in the position, so every run after the first inf/NaN one is too.
        live_until = int(self.start[bad[0]]) if bad.size else self.length
        value = run_angle[self.seg_run]
        with np.errstate(invalid="ignore"):
            seg_max = np.fmax(np.abs(value - self.seg_first * theta), np.abs(value - self.seg_last * theta))
        finite = np.isfinite(seg_max)
        envelope = {
            "angle": np.fmax.reduceat(seg_max, self.seg_of_column),
            "largest_angle": float(seg_max[finite].max()) if finite.any() else None,
            "overflow_from": int(self.seg[np.argmin(finite)]) if not finite.all() else None,
        }
        return envelope, cos_run, live_until

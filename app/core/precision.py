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

import numpy as np

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

    def collides(m: np.ndarray) -> np.ndarray:
        m = np.asarray(m, dtype=np.float64)
        return angles_in(m, inv_freq, "float32") == angles_in(m + 1, inv_freq, "float32")

    answer_if_none = position_collision if position_collision < limit else None
    stop = min(limit, position_collision)  # candidates m < stop; m = 2^24 is the position collision
    mantissa, exponent = math.frexp(theta)
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


# Bounds used to pick, cheaply, the only positions that can hold a column's largest score error.
# |computed |cos a − cos x| − exact value|: np.cos is within 1 ulp (it is the C library's cos here),
# so this is at most 2·2^-52 + 2^-53 ≈ 5.6e-16; 4e-15 leaves a margin of 7.
_COS_SLACK = 4e-15
_CHUNK = 1 << 15  # positions per block of rows (≈ 256 KB per float64 temporary)


def error_envelopes(length: int, inv_freqs, columns: int, dtypes: tuple[str, ...] = DTYPES) -> list[dict[str, dict]]:
    """Per-column largest angle error |φ̃(m) − m·θ| and score error |cos φ̃(m) − cos(m·θ)| over
    positions 0 … length−1, for each θ in ``inv_freqs``, split into the columns of
    ``rope.block_partition(length, columns)``.

    The values are exactly those of the direct computation (``angles_in`` on every position, then
    ``abs`` and a max per column, NaN ignored; m·θ and cos in float64 as numpy computes them), but
    np.cos, the expensive part, runs only on the few positions that can hold a column's maximum:

    * float32 angle error: computed at every position (a few cheap array operations).
    * bfloat16 / float16 angle error: φ̃ is constant on each run of positions that round to the
      same value (``run_starts``), and c − fl(m·θ) is monotone in m, so within a run and a column
      the largest |error| is at one of the two ends: two evaluations per (run ∩ column).
    * score errors: sin(mθ) and cos(mθ) are approximated for every position from one cos/sin per
      column start a and per offset k (angle-addition formula, error ε ≤ 2^-50·max(mθ) + 1e-14),
      giving A(m) with |A(m) − score error(m)| ≤ β: for bfloat16/float16 A = |cos c − cos(mθ)≈|
      and β = ε + slack; for float32 A = |e|·|sin(mθ)≈| with e = φ̃ − mθ, since
      |cos(x+e) − cos x| = |2 sin(e/2) sin(x + e/2)|, so β = E(E/2 + E²/24 + ε) + slack, E the
      column's largest |e| (a column with E = 0 has φ̃ = mθ throughout: score error 0).  Only
      positions with A ≥ max(A) − 2β can reach the column's maximum; the exact formula is
      evaluated there.

    Returns one dict per θ, keyed by dtype: ``angle`` and ``score`` ((C,) float64 column maxima,
    inf/NaN as the direct computation gives them), ``largest_angle`` (largest finite angle error or
    None), ``largest_score`` (largest score error, NaN ignored, or None), ``overflow_from`` (first
    position whose angle is not finite, or None).  Memory: O(columns + runs + 2^15) floats.
    """
    thetas = [float(t) for t in inv_freqs]
    col_start, col_size = block_partition(length, columns)
    ncol = len(col_start)
    run_dtypes = [dtype for dtype in dtypes if dtype != "float32"]
    starts_of = {dtype: run_starts(length, dtype) for dtype in run_dtypes}
    width = int(col_size[0])
    k = np.arange(width, dtype=np.float64)

    results: list[dict[str, dict]] = []
    pairs = []
    for theta in thetas:
        out: dict[str, dict] = {}
        cos_run, nonfinite_from = {}, {}
        for dtype in run_dtypes:
            starts = starts_of[dtype]
            run_angle = angles_in(starts.astype(np.float64), theta, dtype)
            with np.errstate(invalid="ignore"):
                cos_run[dtype] = np.cos(run_angle)
            bad = np.flatnonzero(~np.isfinite(run_angle))
            # Runs are monotone in the position, so every run after the first inf/NaN one is too.
            nonfinite_from[dtype] = int(starts[bad[0]]) if bad.size else length
            out[dtype] = _run_angle_envelope(starts, col_start, length, theta, dtype)
        k_angle = k * theta
        pairs.append({
            "theta": theta,
            "theta32": np.float32(theta),
            "ck_sk": np.stack([np.cos(k_angle), np.sin(k_angle)]),  # (2, width)
            "cos_run": cos_run,
            "nonfinite_from": nonfinite_from,
            "angle32": np.empty(ncol),
            "score": {dtype: np.full(ncol, np.nan) for dtype in dtypes},
        })
        results.append(out)

    # Groups of rows of equal width: all full columns, then the last one if it is shorter.
    groups = [(0, ncol if col_size[-1] == width else ncol - 1, width)]
    if col_size[-1] != width:
        groups.append((ncol - 1, ncol, int(col_size[-1])))
    rows_per_chunk = max(1, _CHUNK // width)
    for g0, g1, w in groups:
        for r0 in range(g0, g1, rows_per_chunk):
            r1 = min(g1, r0 + rows_per_chunk)
            rows = r1 - r0
            a = col_start[r0:r1].astype(np.float64)
            m = a[:, None] + k[None, :w]  # exact integers
            m32 = m.astype(np.float32) if "float32" in dtypes else None
            p0, p1 = int(col_start[r0]), int(col_start[r1 - 1]) + w
            spans = {}
            for dtype in run_dtypes:
                starts = starts_of[dtype]
                i0 = int(np.searchsorted(starts, p0, side="right")) - 1
                i1 = int(np.searchsorted(starts, p1, side="left"))
                edges = np.minimum(np.maximum(np.append(starts[i0:i1], p1), p0), p1)
                spans[dtype] = (i0, i1, np.diff(edges))
            for pair in pairs:
                theta = pair["theta"]
                x = m * theta
                # |approximation − sin or cos of fl(m·θ)|: the arguments fl(aθ) + fl(kθ) and fl(mθ)
                # differ by ≤ 2^-52·mθ; cos/sin ≤ 1 ulp each, products and sum ≤ 3 roundings.
                eps = 2.0**-50 * float(x[-1, -1]) + 1e-14
                a_angle = a * theta
                sa, ca = np.sin(a_angle), np.cos(a_angle)
                coef = np.empty((2 * rows, 2))
                coef[:rows, 0], coef[:rows, 1] = sa, ca  # sin(a+k) = sin a cos k + cos a sin k
                coef[rows:, 0], coef[rows:, 1] = ca, -sa  # cos(a+k) = cos a cos k − sin a sin k
                both = coef @ pair["ck_sk"][:, :w]
                sin_x, cos_x = both[:rows], both[rows:]
                if m32 is not None:
                    angle = (m32 * pair["theta32"]).astype(np.float64)  # φ̃ exactly as angles_in gives it
                    err = angle - x  # exact (Sterbenz): the float32 angle is within a factor 2 of m·θ
                    np.abs(err, out=err)
                    E = err.max(axis=1)
                    pair["angle32"][r0:r1] = E
                    approx = np.abs(sin_x)
                    approx *= err
                    threshold = approx.max(axis=1) - 2 * (E * (0.5 * E + E * E / 24 + eps) + _COS_SLACK)
                    threshold[E == 0] = np.inf  # φ̃ = m·θ on the whole column: score error exactly 0
                    flat = np.flatnonzero(approx >= threshold[:, None])
                    score = pair["score"]["float32"][r0:r1]
                    if 4 * flat.size > approx.size:
                        # Errors below np.cos's own resolution (tiny θ): nearly every position can hold
                        # the maximum, so evaluate the block directly.
                        score[:] = np.fmax.reduce(np.abs(np.cos(angle) - np.cos(x)), axis=1)
                    else:
                        _exact_row_max(flat, w, a, theta, "float32", score, angle, x)
                for dtype in run_dtypes:
                    # Rows past the first run whose angle is not finite (float16 from 65520 on) have
                    # a NaN score error at every position: their maximum stays NaN.
                    live = min(rows, int(np.searchsorted(a, pair["nonfinite_from"][dtype], side="left")))
                    if live == 0:
                        continue
                    i0, i1, lengths = spans[dtype]
                    approx = np.repeat(pair["cos_run"][dtype][i0:i1], lengths).reshape(rows, w)[:live]
                    approx -= cos_x[:live]
                    np.abs(approx, out=approx)
                    threshold = np.fmax.reduce(approx, axis=1) - 2 * (eps + _COS_SLACK)
                    _exact_row_max(np.flatnonzero(approx >= threshold[:, None]), w, a, theta, dtype, pair["score"][dtype][r0 : r0 + live])

    for pair, out in zip(pairs, results):
        for dtype in dtypes:
            score = pair["score"][dtype]
            entry = out.setdefault(dtype, {})
            if dtype == "float32":
                angle32 = pair["angle32"]
                score[angle32 == 0] = 0.0
                entry.update(angle=angle32, largest_angle=float(angle32.max()), overflow_from=None)
            entry["score"] = score
            entry["largest_score"] = float(np.nanmax(score)) if np.isfinite(score).any() else None
    return results


def _exact_row_max(
    flat: np.ndarray, width: int, row_start: np.ndarray, theta: float, dtype: str, out: np.ndarray,
    angle: np.ndarray | None = None, exact: np.ndarray | None = None,
) -> None:
    """Score error by the direct formula at the candidate positions ``flat`` (indices into a
    (rows, width) block whose row i starts at position row_start[i]); each row's largest value
    (NaN ignored) is written to out[row].  ``angle`` / ``exact``: that block's φ̃ and m·θ, if known."""
    if not flat.size:
        return
    row = flat // width
    if angle is None:
        positions = row_start[row] + (flat - row * width)
        angle, exact = angles_in(positions, theta, dtype), positions * theta
    else:
        angle, exact = angle.ravel()[flat], exact.ravel()[flat]
    with np.errstate(invalid="ignore"):
        value = np.abs(np.cos(angle) - np.cos(exact))
    first = np.flatnonzero(np.concatenate([[True], row[1:] != row[:-1]]))
    out[row[first]] = np.fmax.reduceat(value, first)


def _run_angle_envelope(starts: np.ndarray, col_start: np.ndarray, length: int, theta: float, dtype: str) -> dict:
    """Column maxima of |φ̃(m) − m·θ| for a dtype whose φ̃ is constant on runs (see error_envelopes)."""
    starts = starts[starts < length]
    seg = np.sort(np.concatenate([starts, col_start]))
    seg = seg[np.concatenate([[True], seg[1:] != seg[:-1]])]
    last = np.append(seg[1:], length) - 1
    value = angles_in(starts.astype(np.float64), theta, dtype)[np.searchsorted(starts, seg, side="right") - 1]
    with np.errstate(invalid="ignore"):
        seg_max = np.fmax(np.abs(value - seg.astype(np.float64) * theta), np.abs(value - last.astype(np.float64) * theta))
    angle = np.fmax.reduceat(seg_max, np.searchsorted(seg, col_start))
    finite = np.isfinite(seg_max)
    return {
        "angle": angle,
        "largest_angle": float(seg_max[finite].max()) if finite.any() else None,
        "overflow_from": int(seg[np.argmin(finite)]) if not finite.all() else None,
    }

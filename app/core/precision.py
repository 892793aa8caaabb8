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


def _ulp_exponent_offset(dtype: str) -> int:
    return SIGNIFICAND_BITS[dtype] - 1


def first_collision(inv_freq: float, dtype: str, limit: int) -> int | None:
    """Smallest m in [0, limit) with φ̃(m+1) == φ̃(m): two neighbouring positions get the same
    angle on this pair.  None if there is none below ``limit``.

    Exact, without scanning every position: φ̃ is non-decreasing in m, and
    φ̃(m) = φ̃(m+1) needs |round(x) − x| + |round(x+θ) − (x+θ)| ≥ θ, so the unit in the last place at
    (m+1)θ must be at least θ (or the rounded positions collide, which happens first at
    m = 2^p for a p-bit significand).  We start at the first binade where that can happen and scan
    forward in vectorised chunks until the first equality.
    """
    if dtype == "float64":
        # ulp(mθ) ≥ θ needs m ≥ 2^52: far beyond any context length.
        return None
    p = SIGNIFICAND_BITS[dtype]
    theta = float(round_to(np.float64(np.float32(inv_freq)), dtype))
    position_collision = 2 ** p  # round(2^p + 1) == 2^p (ties to even)
    if theta == 0.0:
        return 0 if limit > 0 else None
    if math.frexp(theta)[0] == 0.5 and theta >= np.finfo(np.float32).tiny:
        # A power of two: every product round(m)·θ is exact, so only the positions collide.
        return position_collision if position_collision < limit else None
    # First exponent e with ulp = 2^(e−p+1) ≥ θ; products below 2^e cannot collide.
    e = int(np.ceil(np.log2(theta))) + p - 1
    start = max(0, int(np.floor(2.0 ** e / theta)) - 2)
    stop = min(limit, position_collision)
    if start >= stop:
        return position_collision if position_collision < limit else None
    chunk = 1 << 20
    m0 = start
    while m0 < stop:
        m1 = min(stop, m0 + chunk)
        m = np.arange(m0, m1 + 1, dtype=np.float64)
        phi = angles_in(m, inv_freq, dtype)
        same = np.flatnonzero(phi[1:] == phi[:-1])
        if same.size:
            found = m0 + int(same[0])
            return found if found < limit else None
        m0 = m1
    return position_collision if position_collision < limit else None

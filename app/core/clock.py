"""The clock with many hands: wrapped angles, one hand's aliasing, and whether the clock separates positions.

Hand j of the RoPE clock sits at angle m·θ_j at position m (Su et al. 2021, RoFormer eq. 15).  An
angle only matters modulo 2π, so two positions m and n look alike to hand j when the *wrapped*
offset angle wrap((n − m)·θ_j) is small, where wrap(x) = x − 2π·round(x/2π) ∈ [−π, π].

Everything here depends on positions only through the offset Δ = n − m, which is what keeps the
"is every position distinguishable?" question linear in the context length instead of quadratic.
"""

from __future__ import annotations

import numpy as np

TWO_PI = 2.0 * np.pi


def wrap_signed(angle: np.ndarray | float) -> np.ndarray:
    """x − 2π·round(x / 2π): the angle brought into [−π, π].  Same shape as the input."""
    angle = np.asarray(angle, dtype=np.float64)
    return angle - TWO_PI * np.round(angle / TWO_PI)


def wrap_positive(angle: np.ndarray | float) -> np.ndarray:
    """The angle brought into [0, 2π) (where a hand points on its dial).  Same shape as the input."""
    return np.remainder(np.asarray(angle, dtype=np.float64), TWO_PI)


def hand_angles(positions: np.ndarray, theta: float) -> np.ndarray:
    """Where one hand of speed θ points at each position: wrap_positive(p·θ).  Shape ``(P,)``."""
    return wrap_positive(np.asarray(positions, dtype=np.float64) * float(theta))


def closest_return(theta: float, count: int) -> dict[str, float | int] | None:
    """Among positions 0 … count−1 on one hand, the offset Δ ≥ 1 whose angle lands nearest to position 0.

    Returns ``delta`` (the smallest such Δ on ties), ``gap`` = wrap_signed(Δ·θ) in radians (signed:
    negative when position Δ stops just short of a full turn) and ``step`` = wrap_signed(θ), the gap
    between consecutive positions; None when count < 2.  Cost O(count).
    """
    if count < 2:
        return None
    deltas = np.arange(1, count, dtype=np.float64)
    gaps = wrap_signed(deltas * float(theta))
    where = int(np.argmin(np.abs(gaps)))
    return {"delta": where + 1, "gap": float(gaps[where]), "step": float(wrap_signed(float(theta)))}


def near_returns(theta: float, count: int, exact: float = 1e-9) -> list[dict[str, float | int]]:
    """The offsets Δ in [2, count) at which one hand comes back closer to its start than ever before.

    A record is a Δ with |wrap(Δ·θ)| smaller than at every Δ' in [1, Δ) (for θ = 1 these are
    6, 19, 25, 44, …: the denominators of good rational approximations of 2π).  Stops at the first
    record closer than ``exact`` (an exact period, e.g. θ = 2π/12).  Returns ``delta`` and ``gap``
    (signed, radians) for each record, in increasing Δ.  Cost O(count).
    """
    if count < 3:
        return []
    deltas = np.arange(1, count, dtype=np.float64)
    gaps = wrap_signed(deltas * float(theta))
    size = np.abs(gaps)
    best_before = np.minimum.accumulate(np.concatenate([[np.inf], size[:-1]]))
    records = np.nonzero(size < best_before)[0]
    out = []
    for index in records:
        if index == 0:  # Δ = 1 is trivially a record
            continue
        out.append({"delta": int(index + 1), "gap": float(gaps[index])})
        if size[index] < exact:
            break
    return out


def _separation_at(delta: float, inv_freq: np.ndarray) -> tuple[float, int]:
    gaps = np.abs(wrap_signed(delta * inv_freq))
    hand = int(np.argmax(gaps))
    return float(gaps[hand]), hand


def min_separation(inv_freq: np.ndarray, length: int) -> dict[str, float | int] | None:
    """How well the whole clock tells positions 0 … L−1 apart.

    sep(Δ) = max_j |wrap(Δ·θ_j)| is how far apart, on the hand that differs most, two positions Δ
    apart are; it depends only on Δ.  Returns ``separation`` = min over Δ in [1, L) of sep(Δ) (radians;
    0 would mean two positions share every hand's angle), the ``delta`` attaining it (smallest on ties)
    and the ``hand`` j whose angle differs most there; None when L < 2.

    Exact, and far below O(L·r/2) work in practice: hands are scanned fastest first while keeping
    only the offsets whose running max over the hands seen so far is still ≤ the best complete sep
    found (a running max can only grow, so a discarded offset can never be the minimum).
    """
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    if length < 2 or len(inv_freq) == 0:
        return None
    deltas = np.arange(1, length, dtype=np.float64)
    # A first complete value from the smallest offsets, where slow hands cannot be near a turn.
    best = min(_separation_at(delta, inv_freq)[0] for delta in deltas[:64])
    lower = np.zeros(len(deltas))
    for theta in inv_freq[np.argsort(-inv_freq, kind="stable")]:
        lower = np.maximum(lower, np.abs(wrap_signed(deltas * theta)))
        candidate = int(np.argmin(lower))
        best = min(best, _separation_at(deltas[candidate], inv_freq)[0])
        keep = lower <= best
        deltas, lower = deltas[keep], lower[keep]
    where = int(np.argmin(lower))
    separation, hand = _separation_at(deltas[where], inv_freq)
    return {"separation": separation, "delta": int(deltas[where]), "hand": hand}

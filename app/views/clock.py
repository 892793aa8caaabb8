"""A clock with many hands: d/2 rotating pairs, their periods, one hand's aliasing, and whether the whole
clock still tells every position in a context apart."""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from app.core.clock import closest_return, hand_angles, min_separation, wrap_signed
from app.core.frequencies import inverse_frequencies, turns_within, wavelengths
from app.web.answers import Answer, Echo, Floats, Ints, doc
from app.web.fields import DEFAULTS, Base
from app.web.params import UI, Display, Params
from app.web.views import View, register

MAX_CONTEXT = 262144
MAX_POSITION = 1_000_000

ClockHeadDim = Annotated[
    int,
    Field(ge=2, le=256, multiple_of=2, description="Dimension of one attention head (even, at most 256 here): d/2 hands."),
    UI("Head dimension d", step=2),
]
HandSpeed = Annotated[float, Field(gt=0, le=math.pi, allow_inf_nan=False)]


class ClockParams(Params):
    head_dim: ClockHeadDim = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    context_len: Annotated[
        int,
        Field(ge=2, le=MAX_CONTEXT, description="Context length L: which hands finish a turn within it, and whether all L positions get distinct angle tuples."),
        UI("Context length L", kind="log", unit="tokens"),
    ] = 32768
    alias_count: Annotated[
        int,
        Field(ge=2, le=256, description="Number N of positions 0 … N−1 placed on the two chosen hands."),
        UI("Positions on the two hands N"),
    ] = 16
    fast_theta: Annotated[
        HandSpeed,
        Field(description="Speed of the fast hand in the aliasing view, radians per token (0 < θ ≤ π)."),
        UI("Fast hand θ", unit="rad per token", step=0.01),
    ] = 1.0
    slow_theta: Annotated[
        HandSpeed,
        Field(description="Speed of the slow hand in the aliasing view, radians per token (0 < θ ≤ π)."),
        UI("Slow hand θ", unit="rad per token", step=0.01),
    ] = 0.1
    second_base: Annotated[
        float,
        Field(gt=1, le=1e9, allow_inf_nan=False, description="A second base b₂ whose slowest hands are shown beside those of base b."),
        UI("Second base b₂", kind="log", help="Its slowest hands are drawn beside those of b."),
    ] = 500000.0


class ClockDisplay(Display):
    position: Annotated[
        int,
        Field(ge=0, le=MAX_POSITION, description="Position m shown on the clock (hand j points at m·θ_j)."),
        UI("Position m", kind="slider", help="Play, Step and this slider move the clock; angles are m·θⱼ mod 2π."),
    ] = 0
    speed: Annotated[
        float,
        Field(ge=0.25, le=10000, allow_inf_nan=False, description="Animation speed in tokens per second."),
        UI("Speed", kind="log", unit="tokens per second"),
    ] = 2.0


def _hand_view(theta: float, count: int, partner: int | None) -> dict[str, Any]:
    """Positions 0 … N−1 on one hand: where they land, the closest return, and the gap for a given Δ."""
    positions = np.arange(count)
    closest = closest_return(theta, count)
    assert closest is not None  # count ≥ 2 (alias_count's bound)
    span = (count - 1) * theta
    result = {
        "theta": theta,
        "period": float(wavelengths(np.asarray(theta))),
        "angles": hand_angles(positions, theta),
        "closest": closest,
        "step": closest["step"],
        "span": span,
        "in_order": bool(span < 2.0 * math.pi),
    }
    if partner is not None:
        result["partner_gap"] = float(wrap_signed(partner * theta))
    return result


SLOW_HANDS = 3


def slow_hands(head_dim: int, base: float, context_len: int, count: int = SLOW_HANDS) -> dict[str, Any]:
    """The ``count`` slowest hands of base b (pairs d/2 − count … d/2 − 1, slowest last): θ_j,
    period 2π/θ_j and turns within L."""
    inv_freq = inverse_frequencies(head_dim, base)
    pairs = np.arange(max(0, len(inv_freq) - count), len(inv_freq))
    theta = inv_freq[pairs]
    return {
        "base": base,
        "pairs": pairs,
        "inv_freq": theta,
        "period": wavelengths(theta),
        "turns_in_context": turns_within(context_len, theta),
    }


class ClockDistinct(Answer):
    """The closest two positions come on all hands at once, within the context."""

    separation: float
    delta: int
    hand: int
    degrees: float
    all_distinct: bool


class ClockClosest(Answer):
    """The offset at which one hand comes closest to where it started."""

    delta: int
    gap: float
    step: float


class ClockHand(Answer):
    """One hand over the positions of the aliasing demonstration."""

    theta: float
    period: float | None = doc("2π/θ in positions (null when θ is so small that it overflows).")
    angles: Floats
    closest: ClockClosest
    step: float
    span: float
    in_order: bool
    partner_gap: float | None = doc("Slow hand only: its gap at the fast hand's closest return.", optional=True)


class ClockAlias(Answer):
    """How a fast hand alone confuses positions that a slow hand separates."""

    count: int
    positions: Ints
    fast: ClockHand
    slow: ClockHand


class ClockSlowHands(Answer):
    """The slowest hands under one base."""

    base: float
    pairs: Ints
    inv_freq: Floats
    period: list[float | None] = doc("2π/θ_j (null where it overflows).")
    turns_in_context: Floats


class ClockAnswer(Answer, echoes=ClockParams):
    """RoPE's pairs as clock hands: each one's speed and period, and when positions look alike."""

    head_dim: Echo
    base: Echo
    context_len: Echo
    alias_count: Echo
    fast_theta: Echo
    slow_theta: Echo
    second_base: Echo
    hands: int = doc("Number of hands (pairs) drawn.")
    pair: Ints = doc("Pair index j.")
    inv_freq: Floats = doc("θ_j in radians per position.")
    period: list[float | None] = doc("2π/θ_j: positions per full turn (null where it overflows).")
    turns_in_context: Floats = doc("Full turns of each hand over the context.")
    completes_turn: list[bool] = doc("Whether each hand turns at least once within the context.")
    hands_full_turn: int = doc("How many hands turn at least once within the context.")
    distinct: ClockDistinct
    slowest_alone_distinct: bool = doc("Whether the slowest hand alone tells every position in the context apart.")
    alias: ClockAlias
    slow_hands: list[ClockSlowHands] = doc("The slowest hands under base and second_base.")


def compute_clock(params: ClockParams) -> dict[str, Any]:
    inv_freq = inverse_frequencies(params.head_dim, params.base)
    period = wavelengths(inv_freq)
    turns = turns_within(params.context_len, inv_freq)
    full = period <= params.context_len
    distinct = min_separation(inv_freq, params.context_len)
    assert distinct is not None  # context_len ≥ 2 and head_dim ≥ 2 (their bounds)
    fast = _hand_view(params.fast_theta, params.alias_count, None)
    slow = _hand_view(params.slow_theta, params.alias_count, fast["closest"]["delta"])
    return {
        **params.model_dump(),
        "hands": len(inv_freq),
        "pair": np.arange(len(inv_freq)),
        "inv_freq": inv_freq,
        "period": period,
        "turns_in_context": turns,
        "completes_turn": full,
        "hands_full_turn": int(full.sum()),
        "distinct": {
            **distinct,
            "degrees": math.degrees(distinct["separation"]),
            "all_distinct": bool(distinct["separation"] > 1e-9),
        },
        "slowest_alone_distinct": bool((params.context_len - 1) * inv_freq[-1] < 2.0 * math.pi),
        "alias": {"count": params.alias_count, "positions": np.arange(params.alias_count), "fast": fast, "slow": slow},
        "slow_hands": [
            slow_hands(params.head_dim, params.base, params.context_len),
            slow_hands(params.head_dim, params.second_base, params.context_len),
        ],
    }


def clock_csv(data: dict[str, Any]):
    header = ["pair j", "theta_j (rad/token)", "period 2pi/theta_j (tokens)", "turns within L", "completes a turn within L"]
    rows = zip(data["pair"], data["inv_freq"], data["period"], data["turns_in_context"], data["completes_turn"], strict=True)
    return header, [[int(j), float(t), float(p), float(n), bool(c)] for j, t, p, n, c in rows]


register(
    View(
        name="clock",
        title="A clock with many hands",
        short_title="Clock",
        summary="d/2 hands turning at geometric speeds: fast hands alias, slow hands keep the order.",
        section="Rotary",
        order=40,
        api_path="/api/rope/clock",
        answer=ClockAnswer,
        params=ClockParams,
        display=ClockDisplay,
        compute=compute_clock,
        formulas=(
            r"\varphi_j(m) = m\,\theta_j \bmod 2\pi,\quad \theta_j = b^{-2j/d},\quad \text{period } \lambda_j = \frac{2\pi}{\theta_j}",
            r"\operatorname{wrap}(x) = x - 2\pi \operatorname{round}\!\left(\frac{x}{2\pi}\right)",
            r"\operatorname{sep}(L) = \min_{1 \le \Delta < L}\ \max_j \left|\operatorname{wrap}(\Delta\,\theta_j)\right|",
        ),
        csv=clock_csv,
        api_description=(
            "The RoPE clock: θ_j, period 2π/θ_j (tokens per turn) and turns within `context_len` for each hand, "
            "with `distinct.separation` = min over offsets Δ in [1, L) of max_j |wrap(Δ·θ_j)| (0 would mean two "
            "positions share every hand's angle; computed exactly).  `alias` places positions 0 … N−1 on two "
            "hands of speeds `fast_theta` and `slow_theta`: their angles, the offset that returns closest to "
            "position 0 (`closest.delta`, `closest.gap` in radians) and the gap of consecutive positions.  "
            "`slow_hands` gives the three slowest hands of `base` and of `second_base` side by side.  "
            "Hand j points at m·θ_j mod 2π at position m; the page animates that in the browser."
        ),
        examples=("head_dim=16&base=10000&context_len=4096", "head_dim=8&base=10&context_len=5000"),
    )
)

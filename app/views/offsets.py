"""Score against offset: s(Δ) up to long ranges for several bases, constant vs random content, p-RoPE."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.decimate import column_envelope
from app.core.frequencies import wavelengths
from app.core.offsets import kept_pairs, log_columns, mean_and_std, prope_ladder, record_returns
from app.core.rope import as_complex, block_partition
from app.core.scores import content_vectors
from app.settings import MAX_CURVE_COLUMNS
from app.web.answers import Answer, Echo, Floats, Ints, doc
from app.web.fields import DEFAULTS, HeadDim, Seed
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_OFFSET = 262_144
# Work per request: offsets × pairs × bases × curves (one per seed with random content).  2^26 is
# 131072 offsets × 64 pairs × 2 bases × 4 seeds; the costliest requests within it take 20-30 ms of
# one core on the busy 2-core machine (app.core.offsets: N·r/2 multiply-adds per curve).
BUDGET = 2**26

BaseValue = Annotated[float, Field(gt=1, le=1e9, allow_inf_nan=False)]


class OffsetsParams(Params):
    head_dim: HeadDim = DEFAULTS["head_dim"]
    bases: Annotated[
        tuple[BaseValue, ...],
        Field(min_length=1, max_length=4, description="One to four RoPE bases b (rope_theta) drawn on top of each other."),
        UI("Bases b", kind="list", help="Up to 4, comma-separated, e.g. 10000, 500000."),
    ] = (10000.0, 500000.0)
    max_offset: Annotated[
        int,
        Field(ge=16, le=MAX_OFFSET, description="Largest offset Δ; every Δ in 0 … max_offset is computed."),
        UI("Largest offset", kind="log", unit="tokens"),
        Bound(le=f"{BUDGET} // (head_dim // 2 * len(bases))", why=f"max_offset × head_dim/2 × number of bases is at most {BUDGET}"),
    ] = 131072
    content: Annotated[
        Literal["constant", "random"],
        Field(
            description="'constant': q = k = (1, …, 1), the RoFormer long-range-decay picture. 'random': "
            "`seeds` independent standard-normal q, k draws; the curve is their mean with a ±1 standard deviation band."
        ),
        UI("Content"),
    ] = "constant"
    seed: Seed = 0
    seeds: Annotated[
        int,
        Field(ge=1, le=64, description="Number of random (q, k) draws, seeds seed … seed + seeds − 1 (random content only)."),
        UI("Random draws"),
        Bound(
            le=f"{BUDGET} // (max_offset * (head_dim // 2) * len(bases))",
            when="content == 'random'",
            why=f"max_offset × head_dim/2 × number of bases × draws is at most {BUDGET}",
        ),
    ] = 4
    drop_percent: Annotated[
        float,
        Field(
            ge=0,
            le=100,
            allow_inf_nan=False,
            description="p-RoPE (Barbero et al. 2024): the lowest-frequency x% of the pairs stop rotating (θ_j = 0). "
            "The first int((1 − x/100)·d // 2) pairs keep their θ_j, as transformers' 'proportional' rope_type computes.",
        ),
        UI("p-RoPE: drop lowest frequencies", unit="%", step=1),
    ] = 0.0
    hand: Annotated[
        int,
        Field(ge=0, le=511, description="Pair j whose near-returns are marked (θ_j of the first base)."),
        UI("Mark returns of hand j"),
        Bound(le="head_dim // 2 - 1", why="the head has head_dim/2 = {head_dim // 2} pairs, numbered from 0"),
    ] = 0
    columns: Annotated[
        int,
        Field(ge=50, le=MAX_CURVE_COLUMNS, description="Pixel columns: each column reports the min and max of the curve over its offsets."),
        UI("Pixel columns"),
    ] = 800
    spacing: Annotated[
        Literal["log", "linear"],
        Field(description="Column widths for a logarithmic offset axis (from Δ = 1) or a linear one (from Δ = 0)."),
        UI("Offset axis"),
    ] = "log"


def _weights(params: OffsetsParams) -> np.ndarray:
    """w_j = conj(z_q,j)·z_k,j for each content draw: ``(S, d/2)`` complex."""
    if params.content == "constant":
        draws = [content_vectors("constant", 0, params.head_dim, 0)]
    else:
        draws = [content_vectors("repeated", 0, params.head_dim, params.seed + i) for i in range(params.seeds)]
    return np.array([np.conj(as_complex(q, params.head_dim, "interleaved")) * as_complex(k, params.head_dim, "interleaved") for q, k in draws])


NEAR_OFFSETS = 20


def _range_summary(mean: np.ndarray, std: np.ndarray | None, start: int, stop: int) -> dict[str, Any]:
    """Root-mean-square of the (mean) curve and of the spread over the offsets start … stop−1."""
    return {
        "from": start,
        "to": stop - 1,
        "rms": float(np.sqrt(np.mean(mean[start:stop] ** 2))),
        "max_abs": float(np.max(np.abs(mean[start:stop]))),
        "rms_std": float(np.sqrt(np.mean(std[start:stop] ** 2))) if std is not None else None,
    }


class OffsetsRange(Answer):
    """The score's size over a range of offsets."""

    from_: int = Field(alias="from", description="First offset of the range.")
    to: int = doc("Last offset of the range.")
    rms: float
    max_abs: float
    rms_std: float | None = doc("Spread of rms over the seeds (null with one seed).")


class OffsetsMinimum(Answer):
    """The lowest score and where it is."""

    delta: int
    value: float


class OffsetsCurve(Answer):
    """The score against the offset under one base (min/max per plotted column)."""

    base: float
    s0: float = doc("The score at offset 0.")
    low: Floats = doc("Smallest score in each column.")
    high: Floats = doc("Largest score in each column.")
    band_low: Floats | None = doc("Lower edge of the band over seeds (null with one seed).")
    band_high: Floats | None = doc("Upper edge of the band over seeds (null with one seed).")
    near: OffsetsRange
    far: OffsetsRange
    min: OffsetsMinimum
    tail_max_abs: float
    std0: float | None = doc("Spread of the offset-0 score over seeds (random content only).", optional=True)


class OffsetsMark(Answer):
    """An offset at which the chosen hand comes back near its start."""

    delta: int
    gap: float


class OffsetsReturns(Answer):
    """Where the chosen hand returns near its start."""

    hand: int
    theta: float
    period: float | None = doc("2π/θ of the hand (null when it overflows).")
    marks: list[OffsetsMark]


class OffsetsAnswer(Answer, echoes=OffsetsParams):
    """The RoPE score of one query and key against their offset, under one or more bases."""

    head_dim: Echo
    bases: Echo
    max_offset: Echo
    content: Echo
    seed: Echo
    seeds: Echo
    drop_percent: Echo
    hand: Echo
    columns: Echo
    spacing: Echo
    pairs: int = doc("Pairs in the head.")
    kept_pairs: int = doc("Pairs left after dropping the fastest ones.")
    dropped_pairs: int = doc("Fastest pairs left out (drop_percent of them).")
    scale: float = doc("The scores are divided by it (the offset-0 score of the first base).")
    total_points: int = doc("Offsets evaluated.")
    column_start: Ints = doc("First offset of each plotted column.")
    column_stop: Ints = doc("One past the last offset of each column.")
    points_per_column: Ints = doc("Offsets in each column.")
    max_points_per_column: int = doc("The most offsets one column holds.")
    x: Floats = doc("Horizontal position of each column (its middle offset).")
    curves: list[OffsetsCurve] = doc("One per base, in the order of `bases`.")
    returns: OffsetsReturns


def compute_offsets(params: OffsetsParams) -> dict[str, Any]:
    count = params.max_offset + 1
    scale = 1.0 / math.sqrt(params.head_dim)
    if params.spacing == "log":
        starts, sizes = log_columns(1, count, params.columns)
    else:
        starts, sizes = block_partition(count, params.columns)  # the columns minmax_envelope uses
    stops = starts + sizes
    first = int(starts[0])
    offsets = starts - first  # column starts as indices into the curve from Δ = first on
    weights = _weights(params) * scale  # 1/√d folded into the weights
    curves = []
    # Offsets the page's sentence compares: Δ = 1 … 20 and the last tenth of the range.
    near = (1, min(NEAR_OFFSETS + 1, count))
    far = (max(1, count - count // 10), count)
    buffer = np.empty(count + 4 * math.isqrt(count) + 8)  # one curve with its padding, reused for every base
    for base in params.bases:
        inv_freq = prope_ladder(params.head_dim, base, params.drop_percent)
        # Every offset is evaluated (the min and max of each column are exact); the mean over random
        # draws is the curve of the mean weights and the spread comes from the centred draws.
        mean, std = mean_and_std(weights, inv_freq, count, buffer)
        shown = mean[first:]
        curve: dict[str, Any] = {"base": base, "s0": float(mean[0])}
        curve["low"], curve["high"] = column_envelope(shown, offsets)
        if params.content == "random":
            if std is None:
                std = np.zeros(count)
            curve["band_low"] = column_envelope(shown - std[first:], offsets)[0]
            curve["band_high"] = column_envelope(shown + std[first:], offsets)[1]
            curve["std0"] = float(std[0])
        else:
            curve["band_low"] = curve["band_high"] = None
        tail = mean[max(1, count - count // 10) :]
        curve["near"] = _range_summary(mean, std, *near)
        curve["far"] = _range_summary(mean, std, *far)
        lowest = int(np.argmin(mean[1:])) + 1
        curve["min"] = {"delta": lowest, "value": float(mean[lowest])}
        curve["tail_max_abs"] = float(max(tail.max(), -tail.min()))
        curves.append(curve)

    theta = float(prope_ladder(params.head_dim, params.bases[0], params.drop_percent)[params.hand])
    centres = np.sqrt(starts * (stops - 1.0)) if params.spacing == "log" else (starts + stops - 1) / 2.0
    kept = kept_pairs(params.head_dim, params.drop_percent)
    return {
        **params.model_dump(),
        "pairs": params.head_dim // 2,
        "kept_pairs": kept,
        "dropped_pairs": params.head_dim // 2 - kept,
        "scale": scale,
        "total_points": count - first,
        "column_start": starts,
        "column_stop": stops,
        "points_per_column": sizes,
        "max_points_per_column": int(sizes.max()),
        "x": centres,
        "curves": curves,
        "returns": {
            "hand": params.hand,
            "theta": theta,
            "period": float(wavelengths(np.asarray(theta))) if theta > 0 else None,
            "marks": record_returns(theta, count) if theta > 0 else [],
        },
    }


def offsets_csv(data: dict[str, Any]):
    header = ["delta_start", "delta_stop (exclusive)", "points"]
    for curve in data["curves"]:
        base = f"{curve['base']:g}"
        header += [f"min s (base {base})", f"max s (base {base})"]
        if curve["band_low"] is not None:
            header += [f"min of mean-std (base {base})", f"max of mean+std (base {base})"]
    rows = []
    for i, (start, stop, size) in enumerate(zip(data["column_start"], data["column_stop"], data["points_per_column"], strict=True)):
        row: list[Any] = [int(start), int(stop), int(size)]
        for curve in data["curves"]:
            row += [float(curve["low"][i]), float(curve["high"][i])]
            if curve["band_low"] is not None:
                row += [float(curve["band_low"][i]), float(curve["band_high"][i])]
        rows.append(row)
    return header, rows


register(
    View(
        name="offsets",
        title="Score against offset",
        short_title="Score vs offset",
        summary="s(Δ) out to 131072 tokens: decay for constant content, none for random content, and p-RoPE.",
        section="Rotary",
        order=60,
        api_path="/api/rope/offsets",
        answer=OffsetsAnswer,
        params=OffsetsParams,
        compute=compute_offsets,
        formulas=(
            r"s(\Delta) = \frac{1}{\sqrt{d}} \sum_{j} \operatorname{Re}\!\left(\overline{z_{q,j}}\, z_{k,j}\, e^{i\Delta\theta_j}\right),"
            r"\quad z_{x,j} = x_{2j} + i\,x_{2j+1}",
            r"\text{constant } q = k = \mathbf{1}: \quad s(\Delta) = \frac{2}{\sqrt{d}} \sum_j \cos(\Delta\theta_j)",
            r"\text{p-RoPE: } \theta_j = 0 \text{ for } j \ge \lfloor p\,d/2 \rfloor,\ p = 1 - x/100",
        ),
        csv=offsets_csv,
        api_description=(
            "s(Δ) = ⟨Θ_m q, Θ_{m+Δ} k⟩/√d (interleaved pairs) at every offset Δ in 0 … max_offset, for each base, "
            "reduced to pixel columns: `low`/`high` are the exact min and max of the curve over the offsets of each "
            "column (`column_start` … `column_stop` − 1, `points_per_column` of them; log columns start at Δ = 1, "
            "s(0) is `s0`).  With random content the curve is the mean over `seeds` draws and `band_low`/`band_high` "
            "are the column min of mean − std and max of mean + std.  `returns.marks` lists the offsets where hand "
            "`hand` comes back closer to its start than ever before."
        ),
        examples=("bases=10000&bases=500000&max_offset=131072", "content=random&seeds=16&max_offset=8192", "drop_percent=25&spacing=linear&max_offset=4096"),
    )
)

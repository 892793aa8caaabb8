"""Every family on one offset axis: what position contributes to the score of a key Δ = n − m
positions from the query, and the same as score/bias matrices side by side."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from pydantic import Field

from app.core.decimate import minmax_envelope
from app.core.frequencies import inverse_frequencies
from app.core.relative import alibi_bias, alibi_penalty, alibi_slopes, shaw_clipped_offsets, t5_bias_matrix, t5_bucket
from app.core.scores import content_vectors, score_matrix
from app.core.sinusoidal import sinusoidal_table
from app.settings import MAX_CURVE_COLUMNS
from app.views.relative import (
    EXISTING_HEAD,
    Bidirectional,
    MaxDistance,
    MaxRelativePosition,
    NumBuckets,
    penalty_distances,
    t5_bucket_bias,
)
from app.web.fields import Base, Seed
from app.web.params import UI, Params
from app.web.views import View, register

FAMILIES: tuple[str, ...] = ("rope", "sinusoidal", "t5", "alibi", "shaw", "nope")
SECOND_ANCHOR = 97  # the sinusoid's dot products are also taken from position M + 97


class CompareParams(Params):
    max_offset: Annotated[
        int,
        Field(ge=1, le=2048, description="Offsets Δ = key − query from −max_offset to max_offset."),
        UI("Offsets shown ±", kind="log"),
    ] = 128
    head_dim: Annotated[
        int,
        Field(ge=2, le=128, multiple_of=2, description="Head dimension d for RoPE and model dimension for the sinusoid (even)."),
        UI("Dimension d (RoPE, sinusoid)", step=2),
    ] = 64
    base: Base = 10000.0
    num_heads: Annotated[
        int, Field(ge=1, le=64, description="ALiBi heads (one slope each)."), UI("Heads (ALiBi)")
    ] = 8
    head: Annotated[
        int,
        Field(ge=0, le=63, description="ALiBi head drawn in the heatmap (0-based, < num_heads)."),
        UI("Head in heatmap (ALiBi)"),
        EXISTING_HEAD,
    ] = 0
    bidirectional: Bidirectional = True
    num_buckets: NumBuckets = 32
    max_distance: MaxDistance = 128
    max_relative_position: MaxRelativePosition = 16
    seed: Seed = 0
    seq_len: Annotated[
        int, Field(ge=1, le=64, description="Positions in each heatmap."), UI("Heatmap positions")
    ] = 24


def _curve(values: np.ndarray, offsets: np.ndarray) -> dict[str, Any]:
    """A curve over the offsets, reduced to ≤ MAX_CURVE_COLUMNS columns by a min/max envelope."""
    envelope = minmax_envelope(values, MAX_CURVE_COLUMNS)
    start, stop = envelope["start"], envelope["stop"]
    return {"x_low": offsets[start], "x_high": offsets[stop - 1], "low": envelope["low"], "high": envelope["high"]}


def causal_nope(length: int) -> dict[str, Any]:
    """A causal decoder without position (NoPE) can still tell where a token is.

    Give every position the same content, so every score is the same number (0 here); the causal
    mask still removes the keys after the query, so softmax row m spreads its weight evenly over
    keys 0 … m: a_mn = 1/(m + 1) for n ≤ m (Haviv et al. 2022, "Transformer Language Models
    without Positional Encodings Still Learn Positional Information").  A value only the first
    token carries (v_0 = 1, v_n = 0 otherwise, like a beginning-of-sequence marker) then comes out
    as out_m = Σ_n a_mn v_n = 1/(m + 1), from which m = 1/out_m − 1 is read back.  Computed with
    the ordinary masked softmax, not the closed form.  Shapes: ``weights`` (L, L) with NaN above
    the diagonal, ``output`` and ``recovered`` (L,).
    """
    scores = np.zeros((length, length))
    future = np.triu(np.ones((length, length), dtype=bool), k=1)
    scores[future] = -np.inf
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = shifted / shifted.sum(axis=1, keepdims=True)
    values = np.zeros(length)
    values[0] = 1.0
    output = weights @ values
    recovered = 1.0 / output - 1.0
    positions = np.arange(length)
    return {
        "weights": np.where(future, np.nan, weights),
        "output": output,
        "recovered": recovered,
        "largest_recovery_error": float(np.max(np.abs(recovered - positions))),
        "rounded_back": bool(np.array_equal(np.rint(recovered), positions)),
    }


def compute_compare(params: CompareParams) -> dict[str, Any]:
    d, M, L = params.head_dim, params.max_offset, params.seq_len
    offsets = np.arange(-M, M + 1)
    inv_freq = inverse_frequencies(d, params.base)

    # RoPE, q = k = (1, …, 1): each pair contributes Re(conj(1+i)(1+i)e^{iΔθ_j}) = 2cos(Δθ_j)
    rope = 2.0 * np.cos(np.multiply.outer(offsets, inv_freq)).sum(axis=1) / np.sqrt(d)
    # PE(p)·PE(p + Δ) from the table rows themselves, at two starting points p (it must not depend on p):
    # one table over positions 0 … 2M + SECOND_ANCHOR serves both p = M and p = M + SECOND_ANCHOR
    table = sinusoidal_table(np.arange(2 * M + SECOND_ANCHOR + 1), d, params.base, "interleaved")
    anchors = (M, M + SECOND_ANCHOR)
    dots = [table[p - M : p + M + 1] @ table[p] for p in anchors]
    sinusoid = dots[0]
    bucket_bias = t5_bucket_bias(params.num_buckets, params.seed)
    buckets = t5_bucket(offsets, params.num_buckets, params.max_distance, params.bidirectional)
    t5 = bucket_bias[buckets]
    shaw = shaw_clipped_offsets(offsets, params.max_relative_position).astype(np.float64)
    nope = np.zeros(len(offsets))

    slopes = alibi_slopes(params.num_heads)
    distances = penalty_distances(M)
    alibi_offsets = -distances[::-1]
    alibi = alibi_penalty(slopes, distances)[:, ::-1]  # over Δ = −distance, ascending

    positions = np.arange(L)
    q, k = content_vectors("constant", L, d, params.seed)
    table = sinusoidal_table(positions, d, params.base, "interleaved")
    heatmaps = {
        "rope": score_matrix(q, k, inv_freq, "interleaved", L, L)["scores"],
        "sinusoidal": table @ table.T,
        "t5": t5_bias_matrix(L, bucket_bias, params.num_buckets, params.max_distance, params.bidirectional),
        "alibi": alibi_bias(slopes[params.head : params.head + 1], L, "paper")[0],
        "shaw": shaw_clipped_offsets(positions[None, :] - positions[:, None], params.max_relative_position),
        "nope": np.zeros((L, L)),
    }
    return {
        **params.model_dump(),
        "offsets_count": len(offsets),
        "decimated": len(offsets) > MAX_CURVE_COLUMNS,
        "families": list(FAMILIES),
        "curves": {
            "rope": _curve(rope, offsets),
            "sinusoidal": _curve(sinusoid, offsets),
            "t5": _curve(t5, offsets),
            "shaw": _curve(shaw, offsets),
            "nope": _curve(nope, offsets),
        },
        "alibi_offsets": alibi_offsets,
        "alibi_slopes": slopes,
        "alibi_penalty": alibi,
        "rope_at_zero": float(rope[M]),
        "sinusoid_at_zero": float(sinusoid[M]),
        "sinusoid_anchors": list(anchors),
        "sinusoid_anchor_difference": float(np.max(np.abs(dots[0] - dots[1]))),
        "t5_far_bucket_left": int(buckets[0]),
        "t5_far_bucket_right": int(buckets[-1]),
        "heatmaps": heatmaps,
        "nope_causal": causal_nope(L),
    }


def compare_csv(data: dict[str, Any]):
    """The offset curves as plotted: one row per column (low and high differ only when decimated)."""
    header = ["offset_from", "offset_to"]
    for family in ("rope", "sinusoidal", "t5", "shaw", "nope"):
        header += [f"{family}_low", f"{family}_high"]
    curves = data["curves"]
    rows = []
    for c in range(len(curves["rope"]["low"])):
        row: list[Any] = [int(curves["rope"]["x_low"][c]), int(curves["rope"]["x_high"][c])]
        for family in ("rope", "sinusoidal", "t5", "shaw", "nope"):
            row += [curves[family]["low"][c], curves[family]["high"][c]]
        rows.append(row)
    return header, rows


register(
    View(
        name="compare",
        title="All families compared",
        summary="Every scheme on one offset axis: what position adds to a score as the key moves away.",
        short_title="Compare",
        section="Other families",
        order=140,
        api_path="/api/compare",
        params=CompareParams,
        compute=compute_compare,
        formulas=(
            r"\text{RoPE: } \frac{\langle R_m \mathbf{1}, R_{m+\Delta}\mathbf{1}\rangle}{\sqrt d} = \frac{2}{\sqrt d}\sum_j \cos(\Delta\theta_j)",
            r"\text{sinusoid: } PE(p)\cdot PE(p+\Delta)",
            r"\text{T5: } b_{\mathrm{bucket}(\Delta)} \qquad \text{ALiBi: } -m_h\,|\Delta|,\ \Delta \le 0 \qquad "
            r"\text{Shaw: } a_{\mathrm{clip}(\Delta,\,-k,\,k)} \qquad \text{NoPE: } 0",
        ),
        csv=compare_csv,
        api_description=(
            "For offsets Δ = key − query in −max_offset … max_offset: RoPE's score for constant content (q = k = 1, "
            "divided by √d), the sinusoidal dot product PE(p)·PE(p+Δ) (computed from the table rows at two starting "
            "points p; their difference is reported), T5's bias b[bucket(Δ)] with seeded per-bucket values, Shaw's "
            "clipped offset clip(Δ, −k, k), and NoPE's 0, each as a min/max envelope of at most 2000 columns "
            "(`low` = `high` when every column is one offset).  ALiBi's penalty −m_h·|Δ| for past keys is given per head "
            "at up to 64 offsets (it is linear).  `heatmaps` holds each family's seq_len × seq_len score or bias matrix."
        ),
        examples=("max_offset=1000&base=500000", "num_heads=12&head=11&bidirectional=false"),
    )
)

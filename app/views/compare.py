"""Every family on one offset axis: what position contributes to the score of a key Δ = n − m
positions from the query, and the same as score/bias matrices side by side."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from pydantic import Field

from app.core.attention import causal_nope
from app.core.decimate import minmax_envelope
from app.core.frequencies import angles, inverse_frequencies
from app.core.learned import diagonal_statistics
from app.core.relative import alibi_bias, alibi_penalty, alibi_slopes, shaw_clipped_offsets, t5_bias_matrix, t5_bucket
from app.core.rope import ones_score
from app.core.scores import content_vectors, score_matrix
from app.core.sinusoidal import sinusoidal_table
from app.core.transformer_xl import position_bias, stand_in_weights
from app.settings import MAX_CURVE_COLUMNS
from app.views.learned import TABLES
from app.views.relative import (
    EXISTING_HEAD,
    Bidirectional,
    MaxDistance,
    MaxRelativePosition,
    NumBuckets,
    penalty_distances,
    t5_bucket_bias,
)
from app.web.answers import Answer, Echo, Floats, Ints, MaskedMatrix, Matrix, doc
from app.web.fields import DEFAULTS, Base, Seed
from app.web.params import UI, Params, per_process
from app.web.views import View, register

FAMILIES: tuple[str, ...] = ("rope", "sinusoidal", "t5", "alibi", "shaw", "nope", "learned", "transformer_xl")
CURVES: tuple[str, ...] = ("rope", "sinusoidal", "t5", "shaw", "nope", "learned", "transformer_xl")
LEARNED = "all-minilm-l6-v2"  # the trained table shipped with the app
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
    ] = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
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


@per_process
def learned_profile() -> dict[str, np.ndarray]:
    """P_p·P_(p+Δ) of the shipped trained table, mean over p, for Δ = 0 … max_len − 1."""
    return diagonal_statistics(TABLES[LEARNED].positions, normalise=False)


def learned_curve(offsets: np.ndarray) -> np.ndarray:
    """The mean dot product at each offset Δ (symmetric in Δ); NaN where |Δ| ≥ max_len: no two rows are that far apart."""
    mean = learned_profile()["mean"]
    distance = np.abs(offsets)
    values = np.full(len(offsets), np.nan)
    inside = distance < len(mean)
    values[inside] = mean[distance[inside]]
    return values


class CompareCurve(Answer):
    """One family's score against the offset: min and max per column."""

    x_low: Ints = doc("First offset of each column.")
    x_high: Ints = doc("Last offset of each column.")
    low: list[float | None] = doc("Smallest value per column; null where the family has no value (beyond a learned table).")
    high: list[float | None]


class CompareCurves(Answer):
    """The curve of each family."""

    rope: CompareCurve
    sinusoidal: CompareCurve
    t5: CompareCurve
    shaw: CompareCurve
    nope: CompareCurve
    learned: CompareCurve
    transformer_xl: CompareCurve


class CompareHeatmaps(Answer):
    """Each family's query × key matrix over the first positions; null where masked."""

    rope: MaskedMatrix
    sinusoidal: MaskedMatrix
    t5: MaskedMatrix
    alibi: MaskedMatrix
    shaw: list[Ints] = doc("Shaw's relative index.")
    nope: MaskedMatrix
    learned: MaskedMatrix
    transformer_xl: MaskedMatrix


class NoPECausal(Answer):
    """How a causal mask alone lets a model recover positions (NoPE)."""

    weights: MaskedMatrix
    output: Floats
    recovered: Floats
    largest_recovery_error: float
    rounded_back: bool


class CompareAnswer(Answer, echoes=CompareParams):
    """Every family's score against the offset, on one axis, and their matrices."""

    max_offset: Echo
    head_dim: Echo
    base: Echo
    num_heads: Echo
    head: Echo
    bidirectional: Echo
    num_buckets: Echo
    max_distance: Echo
    max_relative_position: Echo
    seed: Echo
    seq_len: Echo
    offsets_count: int = doc("Offsets evaluated.")
    decimated: bool = doc("Whether columns hold more than one offset.")
    families: list[str] = doc("The families drawn, in order.")
    curves: CompareCurves
    learned_model: str = doc("The learned table used.")
    learned_max_len: int = doc("Its rows.")
    alibi_offsets: Ints = doc("Distances of the ALiBi penalties.")
    alibi_slopes: Floats = doc("Each head's slope.")
    alibi_penalty: Matrix = doc("−slope × distance, one row per head.")
    rope_at_zero: float = doc("RoPE's score at offset 0.")
    sinusoid_at_zero: float = doc("The sinusoid dot product at offset 0.")
    sinusoid_anchors: Ints = doc("Two anchor positions with the same offset.")
    sinusoid_anchor_difference: float = doc("How much their dot products differ (0: offset alone decides).")
    t5_far_bucket_left: int = doc("T5's bucket at −max_offset.")
    t5_far_bucket_right: int = doc("T5's bucket at +max_offset.")
    heatmaps: CompareHeatmaps
    nope_causal: NoPECausal


def compute_compare(params: CompareParams) -> dict[str, Any]:
    d, M, L = params.head_dim, params.max_offset, params.seq_len
    offsets = np.arange(-M, M + 1)
    inv_freq = inverse_frequencies(d, params.base)

    rope = ones_score(angles(offsets, inv_freq))  # q = k = (1, …, 1)
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
    learned = learned_curve(offsets)
    # Transformer-XL's position-only term (d) = vᵀ W_kR R_(i−j) with the stand-ins of /transformer-xl
    # (d_model = head_dim); it exists for past keys only (i − j = −Δ ≥ 0)
    xl = stand_in_weights(d, 1, params.seed)
    transformer_xl = np.full(len(offsets), np.nan)
    past = offsets <= 0
    transformer_xl[past] = position_bias(-offsets[past], xl["W_kR"], xl["v"])

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
        "learned": (lambda rows: rows @ rows.T)(TABLES[LEARNED].positions[:L].astype(np.float64)),
        "transformer_xl": _causal(position_bias(np.arange(L), xl["W_kR"], xl["v"])[np.abs(positions[:, None] - positions[None, :])], positions),
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
            "learned": _curve(learned, offsets),
            "transformer_xl": _curve(transformer_xl, offsets),
        },
        "learned_model": LEARNED,
        "learned_max_len": TABLES[LEARNED].max_len,
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


def _causal(matrix: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The matrix with keys after their query (j > i) set to NaN."""
    out = np.array(matrix, dtype=np.float64)
    out[positions[None, :] > positions[:, None]] = np.nan
    return out


def compare_csv(data: dict[str, Any]):
    """The offset curves as plotted: one row per column (low and high differ only when decimated)."""
    header = ["offset_from", "offset_to"]
    for family in CURVES:
        header += [f"{family}_low", f"{family}_high"]
    curves = data["curves"]
    rows = []
    for c in range(len(curves["rope"]["low"])):
        row: list[Any] = [int(curves["rope"]["x_low"][c]), int(curves["rope"]["x_high"][c])]
        for family in CURVES:
            # no value (the learned table past its last row, Transformer-XL for later keys): an empty cell
            row += ["" if v is None or v != v else v for v in (curves[family]["low"][c], curves[family]["high"][c])]
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
        answer=CompareAnswer,
        params=CompareParams,
        compute=compute_compare,
        formulas=(
            r"\text{RoPE: } \frac{\langle R_m \mathbf{1}, R_{m+\Delta}\mathbf{1}\rangle}{\sqrt d} = \frac{2}{\sqrt d}\sum_j \cos(\Delta\theta_j)",
            r"\text{sinusoid: } PE(p)\cdot PE(p+\Delta)",
            r"\text{T5: } b_{\mathrm{bucket}(\Delta)} \qquad \text{ALiBi: } -m_h\,|\Delta|,\ \Delta \le 0 \qquad "
            r"\text{Shaw: } a_{\mathrm{clip}(\Delta,\,-k,\,k)} \qquad \text{NoPE: } 0",
            r"\text{learned: } \overline{P_p\cdot P_{p+\Delta}}^{\,p} \qquad \text{Transformer-XL (d): } v^{\top} W_{k,R} R_{-\Delta},\ \Delta \le 0",
        ),
        csv=compare_csv,
        api_description=(
            "For offsets Δ = key − query in −max_offset … max_offset: RoPE's score for constant content (q = k = 1, "
            "divided by √d), the sinusoidal dot product PE(p)·PE(p+Δ) (computed from the table rows at two starting "
            "points p; their difference is reported), T5's bias b[bucket(Δ)] with seeded per-bucket values, Shaw's "
            "clipped offset clip(Δ, −k, k), NoPE's 0, the trained all-MiniLM-L6-v2 table's P_p·P_(p+Δ) averaged over p "
            "(null for |Δ| ≥ 512: the table has no rows that far apart) and Transformer-XL's position term (d) "
            "vᵀ W_kR R_(−Δ) with the seeded stand-ins of /transformer-xl (d_model = head_dim; past keys only), each as a min/max envelope of at most 2000 columns "
            "(`low` = `high` when every column is one offset).  ALiBi's penalty −m_h·|Δ| for past keys is given per head "
            "at up to 64 offsets (it is linear).  `heatmaps` holds each family's seq_len × seq_len score or bias matrix."
        ),
        examples=("max_offset=1000&base=500000", "num_heads=12&head=11&bidirectional=false"),
    )
)

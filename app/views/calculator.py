"""Context-extension calculator: the numbers behind each recipe from head dim, base, L and T."""

from __future__ import annotations

import math

import numpy as np
from typing import Annotated, Any

from pydantic import Field

from app.core import men_table
from app.core.calculator import dynamic_ntk_base, llama3_band_counts, margin_curve, men_base_bound, men_bound_source, men_live_limit
from app.core.rope import block_partition
from app.core.scaling import get_mscale, longrope_attention, ntk_base
from app.web.fields import Base, HeadDim
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_LENGTH = 1 << 24
# B_m is drawn for distances below this (and below T).
MEN_LIMIT = 131072
# Work per request, in (distance, pair) evaluations of B_m: one plotted curve, one bound search.
# Larger bounds come from app/core/men_table.py (scripts/men_table.py) or are not given.
CURVE_WORK = 1 << 24
LIVE_WORK = 1 << 20


class CalculatorParams(Params):
    head_dim: HeadDim = 128
    base: Base = 10000.0
    original_max_position_embeddings: Annotated[
        int, Field(ge=2, le=MAX_LENGTH, description="Training length L."), UI("Training length L", kind="log", unit="tokens")
    ] = 4096
    seq_len: Annotated[
        int, Field(ge=2, le=MAX_LENGTH, description="Target length T."), UI("Target length T", kind="log", unit="tokens")
    ] = 32768
    low_freq_factor: Annotated[
        float, Field(gt=0, le=1e4, allow_inf_nan=False, description="Llama 3.1 low_freq_factor."), UI("low_freq_factor", kind="number", step=0.5)
    ] = 1.0
    high_freq_factor: Annotated[
        float, Field(gt=0, le=1e4, allow_inf_nan=False, description="Llama 3.1 high_freq_factor (greater than low_freq_factor)."),
        UI("high_freq_factor", kind="number", step=0.5),
        Bound(gt="low_freq_factor", why="above low_freq_factor = {low_freq_factor}"),
    ] = 4.0


def _men(head_dim: int, length: int) -> tuple[dict | None, str | None]:
    source = men_bound_source(head_dim, length, LIVE_WORK)
    return (men_base_bound(head_dim, length) if source else None), source


def compute_calculator(params: CalculatorParams) -> dict[str, Any]:
    d = params.head_dim
    b = params.base
    L = params.original_max_position_embeddings
    T = params.seq_len
    s = T / L
    exponent = d / (d - 2) if d > 2 else None
    bands = llama3_band_counts(d, b, L, params.low_freq_factor, params.high_freq_factor)
    men, men_source = _men(d, T)
    men_train, men_train_source = _men(d, L)
    shown = min(T, MEN_LIMIT, CURVE_WORK // (d // 2))
    curves = []
    # B_m at every m < shown, reduced to the min and max of each of at most 800 columns.
    envelope_start, _ = block_partition(shown, 800)
    for label, base in (("base b", b), ("smallest base for T", men["base"] if men else None)):
        if base is None:
            continue
        margin = margin_curve(base, d, shown)
        curves.append({"label": label, "base": base, "low": np.fmin.reduceat(margin, envelope_start), "high": np.fmax.reduceat(margin, envelope_start)})
    tabulated = sorted(n for (dim, n) in men_table.BOUNDS if dim == d)
    return {
        **params.model_dump(),
        "margin": {"start": envelope_start, "length": shown, "curves": curves},
        "scale": s,
        "exponent": exponent,
        "ntk_base": ntk_base(b, s, d) if exponent else None,
        "dynamic_base": dynamic_ntk_base(b, s, d, T, L) if exponent and s >= 1 else None,
        "dynamic_alpha": s * max(T, L) / L - (s - 1),
        "yarn_attention": get_mscale(s),
        "yarn_logits": get_mscale(s) ** 2,
        "longrope_attention": longrope_attention(s, L),
        "critical_pair": (d / 2) * math.log(L / (2 * math.pi)) / math.log(b),
        "llama3": bands,
        "men_base": men["base"] if men else None,
        "men_first_negative_below": men["first_negative_below"] if men else None,
        "men_base_train": men_train["base"] if men_train else None,
        "men_grid_ratio": (men or men_train or {"grid_ratio": None})["grid_ratio"],
        "men_limit": MEN_LIMIT,
        "men_ok": (b >= men["base"]) if men and men["base"] else None,
        # Where each bound came from: "table" (app/core/men_table.py, precomputed by
        # scripts/men_table.py), "live" (searched for this request) or null (not given: too costly).
        "men_source": men_source,
        "men_train_source": men_train_source,
        # For this head dim: bounds are searched live for lengths up to men_live_limit and
        # tabulated for the lengths in men_table_lengths.
        "men_live_limit": men_live_limit(d, LIVE_WORK),
        "men_table_lengths": tabulated,
    }


register(
    View(
        name="calculator",
        title="Context-extension calculator",
        short_title="Calculator",
        summary="NTK and dynamic bases, YaRN and LongRoPE temperatures, Llama 3.1 bands and the smallest base for a context.",
        section="Context extension",
        order=230,
        api_path="/api/rope/calculator",
        params=CalculatorParams,
        compute=compute_calculator,
        formulas=(
            r"s = T/L,\qquad r = d",
            r"B_m(b) = \sum_{i=0}^{d/2-1}\cos\!\left(m\,b^{-2i/d}\right),\qquad b_{\min}(T) = \min\{\,b : B_m(b) \ge 0\ \ \forall\, m < T\,\}",
        ),
        api_description=(
            "From head dim d, base b, training length L and target length T (s = T/L): the NTK-aware base, the "
            "dynamic-NTK base at length T (with max_position_embeddings = L), the YaRN and LongRoPE attention "
            "factors, Llama 3.1's band edges and pair counts, and the smallest base for which Men et al. (2024)'s "
            "B_m = Σ cos(m θ_i) stays ≥ 0 for every m < T: searched for this request when T·d/2 is small enough "
            "(men_source \"live\"), read from a table precomputed by the same search for common head dims and "
            "T = 2^10 … 2^20 (\"table\"), or not given (null).  B_m is drawn for m < min(T, 131072, 2^24/(d/2))."
        ),
        examples=("head_dim=128&base=500000&original_max_position_embeddings=8192&seq_len=131072",),
    )
)

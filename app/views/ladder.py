"""The frequency ladder: θ_j = b^(−2j/r) and wavelengths 2π/θ_j against the pair index."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from app.core.frequencies import inverse_frequencies, rotary_dim, turns_within, wavelengths
from app.web.fields import Base, HeadDim, PartialRotaryFactor
from app.web.params import UI, Params
from app.web.views import View, register


class LadderParams(Params):
    head_dim: HeadDim = 64
    base: Base = 10000.0
    partial_rotary_factor: PartialRotaryFactor = 1.0
    context_len: Annotated[
        int,
        Field(ge=1, le=10_000_000, description="Context length L to compare each wavelength with."),
        UI("Context length L", kind="log", unit="tokens"),
    ] = 4096

    @field_validator("partial_rotary_factor")
    @classmethod
    def _even_rotary_dim(cls, value: float, info: ValidationInfo) -> float:
        head_dim = info.data.get("head_dim")
        if head_dim is not None:
            rotary_dim(head_dim, value)  # raises ValueError naming the rule
        return value


def compute_ladder(params: LadderParams) -> dict[str, Any]:
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    inv_freq = inverse_frequencies(r, params.base)
    wavelength = wavelengths(inv_freq)
    turns = turns_within(params.context_len, inv_freq)
    full = wavelength <= params.context_len
    return {
        "head_dim": params.head_dim,
        "base": params.base,
        "partial_rotary_factor": params.partial_rotary_factor,
        "rotary_dim": r,
        "context_len": params.context_len,
        "pair": np.arange(r // 2),
        "inv_freq": inv_freq,
        "wavelength": wavelength,
        "degrees_per_token": np.degrees(inv_freq),
        "turns_in_context": turns,
        "pairs_with_full_turn": int(full.sum()),
        "first_pair_without_full_turn": int(np.argmin(full)) if not full.all() else None,
    }


def ladder_csv(data: dict[str, Any]):
    header = ["pair", "inv_freq", "wavelength", "degrees_per_token", "turns_in_context"]
    rows = zip(data["pair"], data["inv_freq"], data["wavelength"], data["degrees_per_token"], data["turns_in_context"])
    return header, [list(row) for row in rows]


register(
    View(
        name="ladder",
        title="The frequency ladder",
        summary="Every rotating pair gets its own speed, from one radian per token down to a crawl.",
        section="Foundations",
        order=10,
        api_path="/api/rope/frequencies",
        params=LadderParams,
        compute=compute_ladder,
        formulas=(
            r"\theta_j = b^{-2j/r},\quad j = 0,1,\ldots,\tfrac{r}{2}-1",
            r"\lambda_j = \frac{2\pi}{\theta_j}",
            r"\text{turns within } L = \frac{L\,\theta_j}{2\pi}",
        ),
        csv=ladder_csv,
        api_description=(
            "Inverse frequencies θ_j (radians per token) and wavelengths 2π/θ_j (tokens per turn) of the "
            "RoPE ladder, with how many full turns each pair makes within `context_len` tokens. "
            "`r = int(head_dim · partial_rotary_factor)` pairs are rotated."
        ),
        examples=("head_dim=128&base=500000", "head_dim=64&partial_rotary_factor=0.25&context_len=2048"),
    )
)

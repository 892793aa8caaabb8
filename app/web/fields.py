"""The shared vocabulary: one annotated type per concept, reused by every parameters model.

URL = API = code: ``head_dim``, ``base``, ``seq_len``, ``pairing``, ``seed``, ``content`` …
Defaults are set where a model uses a type, so each view can choose its own.  A rule that ties
two of these fields together is a mixin here (:class:`EvenRotaryDim`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from app.core.frequencies import rotary_dim
from app.web.params import UI, Params

HeadDim = Annotated[
    int,
    Field(ge=2, le=1024, multiple_of=2, description="Dimension of one attention head's queries and keys (even)."),
    UI("Head dimension d", step=2),
]
Base = Annotated[
    float,
    Field(gt=1, le=1e9, allow_inf_nan=False, description="RoPE / sinusoid base b (rope_theta): θ_j = b^(−2j/d)."),
    UI("Base b", kind="log", help="10 000 in the original papers; Llama 3 uses 500 000."),
]
PartialRotaryFactor = Annotated[
    float,
    Field(
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="Fraction of the head dimension that rotates (GPT-NeoX rotary_pct); int(head_dim·factor) must be even.",
    ),
    UI("Rotary fraction", step=0.05, help="GPT-NeoX rotates 25% of each head; most models rotate all of it."),
]


class EvenRotaryDim(Params):
    """Mixin for models with ``head_dim`` then ``partial_rotary_factor``: int(head_dim·factor) must
    be even and at least 2, else a 422 on ``partial_rotary_factor``."""

    @field_validator("partial_rotary_factor", check_fields=False)
    @classmethod
    def _even_rotary_dim(cls, value: float, info: ValidationInfo) -> float:
        head_dim = info.data.get("head_dim")
        if head_dim is not None:
            rotary_dim(head_dim, value)  # raises ValueError naming the rule
        return value

Pairing = Annotated[
    Literal["interleaved", "half"],
    Field(description="Which dimensions form a rotating pair: (2j, 2j+1) 'interleaved' or (j, j+r/2) 'half'."),
    UI("Pairing"),
]
Seed = Annotated[
    int,
    Field(ge=0, le=2**32 - 1, description="Seed of the random content (numpy default_rng)."),
    UI("Seed", kind="number"),
]
Content = Annotated[
    Literal["repeated", "constant", "random"],
    Field(
        description="Query/key content before rotation: one seeded vector at every position ('repeated'), "
        "all ones ('constant'), or independent seeded vectors per position ('random')."
    ),
    UI("Content"),
]

"""The shared vocabulary: one annotated type per concept, reused by every parameters model.

URL = API = code: ``head_dim``, ``base``, ``seq_len``, ``pairing``, ``seed``, ``content`` …
A rule that ties one of these to another field travels with its type (``PartialRotaryFactor``
reads ``head_dim``).  The names that describe a model's RoPE have one default on every endpoint
(:data:`DEFAULTS`); sizes of what a lesson shows (``seq_len``, ``dim``, ``max_offset`` …) are the
lesson's own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from app.web.params import UI
from app.web.rules import Require

# One default per name for a model's RoPE settings, on every endpoint that takes them: a query means
# the same everywhere, so a link made for one lesson draws the same head on another (issue: /spectrum's
# preset links gave 32 pairs on /api/rope/frequencies).  The method fields' defaults follow
# (app/views/_rope_scaling.py METHOD_FIELD_DEFAULTS); tests/api/test_contract.py holds every view to both.
# rope_type 'default' is what transformers reads when a config has no scaling.
DEFAULTS: dict[str, Any] = {
    "head_dim": 64,
    "base": 10000.0,
    "partial_rotary_factor": 1.0,
    "rope_type": "default",
    "factor": 8.0,
    "original_max_position_embeddings": 4096,
    "max_position_embeddings": 4096,
}

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
RotaryFraction = Annotated[
    float,
    Field(
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="Fraction of the head dimension that rotates (GPT-NeoX rotary_pct); int(head_dim·factor) must be even.",
    ),
    UI("Rotary fraction", step=0.05, help="GPT-NeoX rotates 25% of each head; most models rotate all of it."),
]
# For models with a head_dim field: the rotary dimension r = int(head_dim · factor), as transformers
# computes it, must give whole pairs.
PartialRotaryFactor = Annotated[
    RotaryFraction,
    Require(
        "int(head_dim * partial_rotary_factor) % 2 == 0 and int(head_dim * partial_rotary_factor) >= 2",
        "the rotary dimension int(head_dim × partial_rotary_factor) = {int(head_dim * partial_rotary_factor)} "
        "must be even and at least 2",
    ),
]


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

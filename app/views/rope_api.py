"""RoPE operations without a page of their own: rotating given vectors (POST), a route of the
rotation view (app/views/rotation.py).

The score matrix `GET /api/rope/scores` is the JSON twin of the "scores" view (app/views/scores.py).
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field
from starlette.responses import Response

from app.core.frequencies import inverse_frequencies, rotary_dim
from app.core.rope import rotate
from app.web.answers import Answer, Echo, Floats, Matrix, doc
from app.web.fields import Base, Pairing, RotaryFraction
from app.web.params import Params
from app.web.responses import JSONBytes, dumps
from app.web.rules import Bound, Require
from app.web.views import route

# strict: a JSON body is typed, so true/false or "1" where a number belongs is refused, not coerced.
Component = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-1e6, le=1e6)]
Position = Annotated[int, Field(strict=True, ge=0, le=1_048_576)]
# len(positions) × len(q): q_rot and k_rot hold this many numbers each (≈ 1.3 MB of JSON apiece).
MAX_ROTATED_VALUES = 65536


class RotateBody(Params):
    # fail_fast: a 256 KB body of bad values is one error per list, not 50,000 (250 ms of CPU).
    q: Annotated[
        tuple[Component, ...],
        Field(min_length=2, max_length=1024, fail_fast=True, description="Query vector (even length)."),
        Require("len(q) % 2 == 0", "length must be even (got {len(q)})"),
    ]
    k: Annotated[
        tuple[Component, ...],
        Field(min_length=2, max_length=1024, fail_fast=True, description="Key vector, same length as q."),
        Require("len(k) == len(q)", "length must equal the length of q ({len(q)}), got {len(k)}"),
    ]
    positions: Annotated[
        tuple[Position, ...],
        Field(
            min_length=1,
            max_length=256,
            fail_fast=True,
            description=f"Positions at which to rotate q and k; len(positions) × len(q) ≤ {MAX_ROTATED_VALUES}.",
        ),
        Bound(le=f"{MAX_ROTATED_VALUES} // len(q)", length=True, why=f"len(positions) × len(q) is at most {MAX_ROTATED_VALUES}"),
    ]
    base: Annotated[Base, Field(strict=True)] = 10000.0
    pairing: Pairing = "interleaved"
    partial_rotary_factor: Annotated[
        RotaryFraction,
        Field(strict=True),
        Require(
            "int(len(q) * partial_rotary_factor) % 2 == 0 and int(len(q) * partial_rotary_factor) >= 2",
            "the rotary dimension int(len(q) × partial_rotary_factor) = {int(len(q) * partial_rotary_factor)} must be "
            "even and at least 2",
        ),
    ] = 1.0


class RotateAnswer(Answer, echoes=RotateBody):
    """q and k rotated to every position, and the inner products of every pair of them."""

    positions: Echo
    base: Echo
    pairing: Echo
    rotary_dim: int = doc("Dimensions that rotate (int(len(q) × partial_rotary_factor)).")
    inv_freq: Floats = doc("θ_j of each rotated pair.")
    q_rot: Matrix = doc("q rotated to each position, one row per position.")
    k_rot: Matrix = doc("k rotated to each position.")
    dot: Matrix = doc("dot[m][n] = ⟨R(positions[m]) q, R(positions[n]) k⟩, without 1/√d.")


@route(
    "/api/rope/rotate",
    methods=("POST",),
    models=(RotateBody,),
    answer=RotateAnswer,
    response_description="The rotated vectors and their inner products.",
    summary="Rotate a query and a key",
    description=(
        "Rotates `q` and `k` to every position in `positions` and returns the rotated vectors (one row per "
        "position) and `dot[m][n] = ⟨R(positions[m]) q, R(positions[n]) k⟩`, the raw inner product without "
        "1/√d.  Example body: `{\"q\": [1, 0], \"k\": [1, 0], \"positions\": [0, 2, 5, 7]}`."
    ),
)
def rotate_vectors(body: RotateBody) -> Response:
    d = len(body.q)
    inv_freq = inverse_frequencies(rotary_dim(d, body.partial_rotary_factor), body.base)
    positions = np.asarray(body.positions)
    q_rot = rotate(np.asarray(body.q), positions, inv_freq, body.pairing)
    k_rot = rotate(np.asarray(body.k), positions, inv_freq, body.pairing)
    result = {
        "positions": positions,
        "base": body.base,
        "pairing": body.pairing,
        "rotary_dim": 2 * len(inv_freq),
        "inv_freq": inv_freq,
        "q_rot": q_rot,
        "k_rot": k_rot,
        "dot": q_rot @ k_rot.T,
    }
    return JSONBytes(dumps(result))



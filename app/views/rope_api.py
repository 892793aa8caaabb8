"""RoPE operations without a page of their own: rotating given vectors, and score matrices."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Query
from pydantic import Field, ValidationInfo, field_validator
from starlette.requests import Request
from starlette.responses import Response

from app.core.frequencies import inverse_frequencies, rotary_dim
from app.core.rope import rotate
from app.core.scores import content_vectors, score_matrix
from app.settings import MAX_HEATMAP_CELLS
from app.web import errors
from app.web.fields import Base, Content, HeadDim, Pairing, PartialRotaryFactor, Seed
from app.web.params import UI, Params
from app.web.responses import JSONBytes, cached_json, dumps, etag_for

router = APIRouter(tags=["Rotary"])

Component = Annotated[float, Field(allow_inf_nan=False, ge=-1e6, le=1e6)]
Position = Annotated[int, Field(ge=0, le=1_048_576)]
MAX_RANDOM_LEN = 4096


class RotateBody(Params):
    q: Annotated[tuple[Component, ...], Field(min_length=2, max_length=1024, description="Query vector (even length).")]
    k: Annotated[tuple[Component, ...], Field(min_length=2, max_length=1024, description="Key vector, same length as q.")]
    positions: Annotated[
        tuple[Position, ...], Field(min_length=1, max_length=256, description="Positions at which to rotate q and k.")
    ]
    base: Base = 10000.0
    pairing: Pairing = "interleaved"
    partial_rotary_factor: PartialRotaryFactor = 1.0

    @field_validator("q")
    @classmethod
    def _even(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if len(value) % 2:
            raise ValueError(f"length must be even (got {len(value)})")
        return value

    @field_validator("k")
    @classmethod
    def _same_length(cls, value: tuple[float, ...], info: ValidationInfo) -> tuple[float, ...]:
        q = info.data.get("q")
        if q is not None and len(q) != len(value):
            raise ValueError(f"length must equal the length of q ({len(q)}), got {len(value)}")
        return value

    @field_validator("partial_rotary_factor")
    @classmethod
    def _even_rotary_dim(cls, value: float, info: ValidationInfo) -> float:
        q = info.data.get("q")
        if q is not None:
            rotary_dim(len(q), value)
        return value


@router.post(
    "/api/rope/rotate",
    summary="Rotate a query and a key",
    description=(
        "Rotates `q` and `k` to every position in `positions` and returns the rotated vectors (one row per "
        "position) and `dot[m][n] = ⟨R(positions[m]) q, R(positions[n]) k⟩`, the raw inner product without "
        "1/√d.  Example body: `{\"q\": [1, 0], \"k\": [1, 0], \"positions\": [0, 2, 5, 7]}`."
    ),
    response_class=JSONBytes,
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


errors.MODELS_BY_PATH["/api/rope/rotate"] = [RotateBody]


class ScoresParams(Params):
    content: Content = "repeated"
    seq_len: Annotated[
        int,
        Field(
            ge=1,
            le=131072,
            description=f"Number of positions L (at most {MAX_RANDOM_LEN} with random content). Above "
            f"{MAX_HEATMAP_CELLS} the matrix is averaged over blocks of consecutive positions.",
        ),
        UI("Sequence length L", kind="log"),
    ] = 64
    head_dim: HeadDim = 64
    base: Base = 10000.0
    pairing: Pairing = "interleaved"
    seed: Seed = 0
    causal: Annotated[bool, Field(description="Mask keys after the query (null in the matrix)."), UI("Causal mask")] = False

    @field_validator("seq_len")
    @classmethod
    def _random_is_bounded(cls, value: int, info: ValidationInfo) -> int:
        if info.data.get("content") == "random" and value > MAX_RANDOM_LEN:
            raise ValueError(f"with random content seq_len must be at most {MAX_RANDOM_LEN} (got {value})")
        return value


def compute_scores(params: ScoresParams) -> dict[str, Any]:
    inv_freq = inverse_frequencies(params.head_dim, params.base)
    q, k = content_vectors(params.content, params.seq_len, params.head_dim, params.seed)
    reduced = score_matrix(q, k, inv_freq, params.pairing, params.seq_len, MAX_HEATMAP_CELLS, params.causal)
    return {
        **params.model_dump(),
        "block": int(reduced["sizes"][0]),
        "starts": reduced["starts"],
        "sizes": reduced["sizes"],
        "scores": reduced["scores"],
    }


@lru_cache(maxsize=64)
def _scores_body(params: ScoresParams) -> tuple[bytes, str]:
    body = dumps(compute_scores(params))
    return body, etag_for(body)


@router.get(
    "/api/rope/scores",
    summary="Score matrix s_mn",
    description=(
        "s_mn = ⟨R_m q_m, R_n k_n⟩/√d for positions 0..L−1.  `scores[a][c]` is the mean over the positions "
        "of query block a and key block c (`starts`, `sizes`; blocks of one position when L ≤ 512, i.e. the "
        "exact matrix).  Masked cells are null.  Example: `/api/rope/scores?seq_len=32&head_dim=8&content=constant`."
    ),
    response_class=Response,
    responses={200: {"content": {"application/json": {}}, "description": "The score matrix."}},
)
def scores(request: Request, params: Annotated[ScoresParams, Query()]) -> Response:
    body, etag = _scores_body(params)
    return cached_json(request, body, etag)


errors.MODELS_BY_PATH["/api/rope/scores"] = [ScoresParams]

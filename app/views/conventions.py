"""Interleaved vs half pairing: the same rotation up to a fixed permutation, and what breaks without it."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.frequencies import inverse_frequencies, rotary_dim
from app.core.rope import interleaved_to_half, pair_index, rotate
from app.core.scores import content_vectors
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.fields import DEFAULTS, Base, PartialRotaryFactor, Seed
from app.web.params import UI, Params
from app.web.views import View, register

MAX_LEN = 64


class ConventionsParams(Params):
    head_dim: Annotated[
        int,
        Field(ge=2, le=128, multiple_of=2, description="Dimension of one attention head (even, at most 128 here so the wiring stays readable)."),
        UI("Head dimension d", step=2),
    ] = DEFAULTS["head_dim"]
    partial_rotary_factor: PartialRotaryFactor = DEFAULTS["partial_rotary_factor"]
    base: Base = DEFAULTS["base"]
    seq_len: Annotated[
        int, Field(ge=2, le=MAX_LEN, description="Positions 0 … L−1 of the three score matrices."), UI("Positions L")
    ] = 16
    content: Annotated[
        Literal["repeated", "random"],
        Field(description="One seeded q and k at every position ('repeated') or new seeded vectors at each position ('random')."),
        UI("Content"),
    ] = "repeated"
    seed: Seed = 0


def full_permutation(head_dim: int, rotary: int) -> np.ndarray:
    """P on the rotary slice, identity on the dimensions that do not rotate.  Shape ``(d,)``."""
    return np.concatenate([interleaved_to_half(rotary), np.arange(rotary, head_dim)])


def _scores(q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, pairing: str, length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    positions = np.arange(length)
    rotated_q = rotate(q, positions, inv_freq, pairing)
    rotated_k = rotate(k, positions, inv_freq, pairing)
    return rotated_q @ rotated_k.T / math.sqrt(q.shape[-1]), rotated_q, rotated_k


class ConventionScores(Answer):
    """The same scores under the two pairings."""

    interleaved: Matrix = doc("Pairs (2j, 2j+1).")
    half_permuted: Matrix = doc("Pairs (j, j + r/2) with q and k permuted to match.")
    half_raw: Matrix = doc("Pairs (j, j + r/2) applied to the unpermuted vectors.")


class ConventionsAnswer(Answer, echoes=ConventionsParams):
    """GPT-J's interleaved pairs against GPT-NeoX's half split: the permutation that makes them agree."""

    head_dim: Echo
    partial_rotary_factor: Echo
    base: Echo
    seq_len: Echo
    content: Echo
    seed: Echo
    rotary_dim: int
    pairs: Ints
    inv_freq: Floats
    interleaved_pairs: list[Ints] = doc("The two dimensions of each pair, interleaved.")
    half_pairs: list[Ints] = doc("The two dimensions of each pair, half split.")
    permutation: Ints = doc("Dimension order taking the interleaved layout to the half one.")
    q: Floats = doc("The query before rotation.")
    k: Floats = doc("The key before rotation.")
    scores: ConventionScores
    scale: float = doc("Largest |score|, the yardstick of the differences.")
    max_diff_permuted: float = doc("Largest |interleaved − half_permuted| (0 to rounding).")
    max_diff_raw: float = doc("Largest |interleaved − half_raw|.")
    max_diff_vectors: float = doc("Largest difference between the rotated vectors of the two conventions after the permutation.")


def compute_conventions(params: ConventionsParams) -> dict[str, Any]:
    d = params.head_dim
    r = rotary_dim(d, params.partial_rotary_factor)
    inv_freq = inverse_frequencies(r, params.base)
    perm = full_permutation(d, r)
    q, k = content_vectors(params.content, params.seq_len, d, params.seed)

    interleaved, q_inter, _ = _scores(q, k, inv_freq, "interleaved", params.seq_len)
    half_permuted, q_half, _ = _scores(q[..., perm], k[..., perm], inv_freq, "half", params.seq_len)
    half_raw, _, _ = _scores(q, k, inv_freq, "half", params.seq_len)
    a_inter, b_inter = pair_index(r, "interleaved")
    a_half, b_half = pair_index(r, "half")
    return {
        **params.model_dump(),
        "rotary_dim": r,
        "pairs": np.arange(r // 2),
        "inv_freq": inv_freq,
        "interleaved_pairs": np.stack([a_inter, b_inter], axis=1),
        "half_pairs": np.stack([a_half, b_half], axis=1),
        "permutation": perm,
        "q": q if q.ndim == 1 else q[0],
        "k": k if k.ndim == 1 else k[0],
        "scores": {"interleaved": interleaved, "half_permuted": half_permuted, "half_raw": half_raw},
        "scale": float(np.max(np.abs(interleaved))),
        "max_diff_permuted": float(np.max(np.abs(interleaved - half_permuted))),
        "max_diff_raw": float(np.max(np.abs(interleaved - half_raw))),
        # rotate_half(P q) = P · rotate_interleaved(q), position by position.
        "max_diff_vectors": float(np.max(np.abs(q_half - q_inter[:, perm]))),
    }


def conventions_csv(data: dict[str, Any]):
    header = ["pair j", "theta_j", "interleaved dims", "half dims", "half position of interleaved dim 2j", "half position of 2j+1"]
    inverse = np.argsort(data["permutation"])
    rows = []
    for j, theta, inter, half in zip(data["pairs"], data["inv_freq"], data["interleaved_pairs"], data["half_pairs"], strict=True):
        rows.append([int(j), float(theta), f"({inter[0]}, {inter[1]})", f"({half[0]}, {half[1]})", int(inverse[inter[0]]), int(inverse[inter[1]])])
    return header, rows


register(
    View(
        name="conventions",
        title="Interleaved or half: two pairings",
        short_title="Pairings",
        summary="GPT-J pairs neighbours, GPT-NeoX pairs halves: the same rotation after a permutation, a bug without it.",
        section="Rotary",
        order=70,
        api_path="/api/rope/conventions",
        answer=ConventionsAnswer,
        params=ConventionsParams,
        compute=compute_conventions,
        formulas=(
            r"\text{interleaved: pair } j = (2j,\ 2j+1) \qquad \text{half: pair } j = (j,\ j + r/2)",
            r"P = [0, 2, 4, \ldots, r-2,\ 1, 3, 5, \ldots, r-1]",
            r"\operatorname{rot}_{\text{half}}(x_P) = \operatorname{rot}_{\text{interleaved}}(x)_P"
            r"\ \Rightarrow\ \langle \operatorname{rot}_{\text{half}}(q_P), \operatorname{rot}_{\text{half}}(k_P)\rangle"
            r" = \langle \operatorname{rot}_{\text{interleaved}}(q), \operatorname{rot}_{\text{interleaved}}(k)\rangle",
        ),
        csv=conventions_csv,
        api_description=(
            "The two RoPE pairings for seeded q, k: which dimensions form each pair, the permutation `permutation` "
            "(P on the rotary slice, identity beyond it) with x[P] laid out for the half convention, and three "
            "L×L score matrices s_mn/√d: interleaved on (q, k), half on (q[P], k[P]) and half on the raw (q, k).  "
            "`max_diff_permuted` (rounding only) and `max_diff_raw` (a real difference) compare them with the "
            "interleaved matrix; `max_diff_vectors` checks rotate_half(q[P]) = rotate_interleaved(q)[P]."
        ),
        examples=("head_dim=8&seq_len=16", "head_dim=64&partial_rotary_factor=0.25&content=random"),
    )
)

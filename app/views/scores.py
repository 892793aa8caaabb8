"""The score matrix s_mn: Toeplitz for repeated content, checked numerically, with the notes' what-ifs."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.frequencies import inverse_frequencies
from app.core.scores import content_vectors, diagonal_spread, score_matrix, theta_identity_errors
from app.settings import MAX_HEATMAP_CELLS
from app.web.answers import Answer, Echo, Floats, Ints, MaskedMatrix, doc
from app.web.csv_format import Columns
from app.web.fields import DEFAULTS, Base, Content, Pairing, Seed
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_SEQ_LEN = 131072
MAX_RANDOM_LEN = 4096
# Random content draws and rotates 2 × seq_len × head_dim numbers per request: ~10 ms per 2^18
# normals here, so this keeps the largest request (with its CSV) within ~50 ms of CPU.
MAX_RANDOM_CELLS = 2048 * 64
MAX_HEAD_DIM = 256

ScoresHeadDim = Annotated[
    int,
    Field(
        ge=2,
        le=MAX_HEAD_DIM,
        multiple_of=2,
        description=f"Dimension of one attention head's queries and keys (even, at most {MAX_HEAD_DIM} here: the "
        "page checks Θ_mᵀΘ_n = Θ_{n−m} with explicit d×d matrices).",
    ),
    UI("Head dimension d", step=2),
]


class ScoresParams(Params):
    content: Content = "repeated"
    seq_len: Annotated[
        int,
        Field(
            ge=1,
            le=MAX_SEQ_LEN,
            description=f"Number of positions L (at most {MAX_RANDOM_LEN} with random content). Above "
            f"{MAX_HEATMAP_CELLS} the matrix is averaged over blocks of consecutive positions.",
        ),
        UI("Sequence length L", kind="log"),
        Bound(le=str(MAX_RANDOM_LEN), when="content == 'random'", why="random content is drawn at every position"),
    ] = 64
    head_dim: Annotated[
        ScoresHeadDim,
        Bound(
            le=f"{MAX_RANDOM_CELLS} // seq_len",
            when="content == 'random'",
            why=f"with random content seq_len × head_dim is at most {MAX_RANDOM_CELLS}",
        ),
    ] = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    pairing: Pairing = "interleaved"
    seed: Seed = 0
    causal: Annotated[bool, Field(description="Mask keys after the query (null in the matrix)."), UI("Causal mask")] = False
    theta_override: Annotated[
        Literal["none", "zero", "pi"],
        Field(
            description="What-if: 'none' uses the ladder θ_j = base^(−2j/d); 'zero' sets every θ_j = 0 (no rotation, "
            "position vanishes); 'pi' sets every θ_j = π (each step flips every pair: alternating signs)."
        ),
        UI("What if every θⱼ were…", help="none: the real ladder · zero: θ = 0 · pi: θ = π"),
    ] = "none"


def ladder(params: ScoresParams) -> np.ndarray:
    """θ_j for the current settings, after the what-if override."""
    inv_freq = inverse_frequencies(params.head_dim, params.base)
    if params.theta_override == "zero":
        return np.zeros_like(inv_freq)
    if params.theta_override == "pi":
        return np.full_like(inv_freq, math.pi)
    return inv_freq


def identity_pairs(seq_len: int) -> list[tuple[int, int]]:
    """A few (m, n) position pairs inside the matrix: both far corners and a pair in the middle."""
    last = seq_len - 1
    pairs = [(0, last), (last, 0), (last // 3, (2 * last) // 3)]
    return list(dict.fromkeys(pairs))


class ScoresToeplitz(Answer):
    """How far the score matrix is from depending on the offset n − m alone."""

    spread: float = doc("Largest spread of the scores along one diagonal.")
    offset: int = doc("The diagonal (n − m) where it is largest.")
    scale: float = doc("Largest |score|, the yardstick of spread.")


class ScoresIdentity(Answer):
    """RoPE's identity R(m)ᵀR(n) = R(n − m) checked at one pair of positions."""

    m: int
    n: int
    shift_error: float
    orthogonality_error: float


class ScoresAnswer(Answer, echoes=ScoresParams):
    """The RoPE attention-score matrix of one head, in blocks of positions when it is large."""

    content: Echo
    seq_len: Echo
    head_dim: Echo
    base: Echo
    pairing: Echo
    seed: Echo
    causal: Echo
    theta_override: Echo
    block: int = doc("Positions per block (1: every position has its own row and column).")
    starts: Ints = doc("First position of each block.")
    sizes: Ints = doc("Positions in each block.")
    scores: MaskedMatrix = doc("scores[a][b]: the mean score of query block a on key block b; null where the causal mask hides it.")
    inv_freq: Floats = doc("θ_j of each pair (radians per position).")
    full_blocks: int = doc("Blocks holding `block` positions (the last may hold fewer).")
    toeplitz: ScoresToeplitz
    toeplitz_relative: float = doc("toeplitz.spread / toeplitz.scale.")
    identity: list[ScoresIdentity] = doc("The identity checked at a few pairs of positions.")
    identity_max_error: float = doc("Largest shift error over them.")
    orthogonality_max_error: float = doc("Largest |RᵀR − I| over them.")
    score_min: float | None = doc("Smallest score shown (null if every cell is masked).")
    score_max: float | None = doc("Largest score shown (null if every cell is masked).")
    content_dot: float | None = doc("q·k before rotation when one vector is used at every position; null for random content.")
    masked_cells: int = doc("Cells hidden by the causal mask.")
    cells: int = doc("Cells in the matrix.")


def compute_scores(params: ScoresParams) -> dict[str, Any]:
    inv_freq = ladder(params)
    q, k = content_vectors(params.content, params.seq_len, params.head_dim, params.seed)
    reduced = score_matrix(q, k, inv_freq, params.pairing, params.seq_len, MAX_HEATMAP_CELLS, params.causal)
    scores, starts, sizes = reduced["scores"], reduced["starts"], reduced["sizes"]
    full_blocks = int(np.sum(sizes == sizes[0]))
    # The readout checks the identity numerically, so it measures the matrix rotated position by
    # position, not the one drawn from s(n − m) (Toeplitz by construction).
    checked = scores
    if np.ndim(q) == 1 and sizes[0] == 1:
        checked = score_matrix(
            q, k, inv_freq, params.pairing, params.seq_len, MAX_HEATMAP_CELLS, params.causal, explicit=True
        )["scores"]
    toeplitz = diagonal_spread(checked[:full_blocks, :full_blocks])
    finite = scores[np.isfinite(scores)]
    identity = theta_identity_errors(inv_freq, params.pairing, params.head_dim, identity_pairs(params.seq_len))
    return {
        **params.model_dump(),
        "block": int(sizes[0]),
        "starts": starts,
        "sizes": sizes,
        "scores": scores,
        "inv_freq": inv_freq,
        "full_blocks": full_blocks,
        "toeplitz": toeplitz,
        "toeplitz_relative": (
            toeplitz["spread"] / toeplitz["scale"] if toeplitz["spread"] is not None and toeplitz["scale"] else None
        ),
        "identity": identity,
        "identity_max_error": max(item["shift_error"] for item in identity),
        "orthogonality_max_error": max(item["orthogonality_error"] for item in identity),
        "score_min": float(finite.min()) if finite.size else None,
        "score_max": float(finite.max()) if finite.size else None,
        # q·k/√d for one repeated q and k: the whole matrix when θ = 0, ± it when θ = π.
        "content_dot": float(q @ k) / math.sqrt(params.head_dim) if np.ndim(q) == 1 else None,
        # Cells (or blocks) the causal mask hides: those with key after query, null in `scores`.
        "masked_cells": int(np.isnan(scores).sum()),
        "cells": int(scores.size),
    }


def scores_csv(data: dict[str, Any]):
    header = ["query block start \\ key block start", *[int(start) for start in data["starts"]]]
    return header, Columns(data["starts"], data["scores"])


register(
    View(
        name="scores",
        title="The score matrix",
        short_title="Score matrix",
        summary="Every query against every key: for one repeated token the diagonals are constant (Toeplitz).",
        section="Rotary",
        order=50,
        api_path="/api/rope/scores",
        answer=ScoresAnswer,
        params=ScoresParams,
        compute=compute_scores,
        formulas=(
            r"s_{mn} = \frac{\langle \Theta_m q_m,\, \Theta_n k_n \rangle}{\sqrt{d}}",
            r"\Theta_m^\top \Theta_n = \Theta_{n-m} \;\Rightarrow\; s_{mn} = \frac{q^\top \Theta_{n-m}\, k}{\sqrt{d}}"
            r"\ \text{ when } q_m = q,\ k_n = k",
            r"\text{block mean: } \bar s_{AC} = \frac{1}{|A|\,|C|} \sum_{m \in A} \sum_{n \in C} s_{mn}",
        ),
        csv=scores_csv,
        api_description=(
            "s_mn = ⟨Θ_m q_m, Θ_n k_n⟩/√d for positions 0..L−1.  `scores[a][c]` is the mean over the positions "
            "of query block a and key block c (`starts`, `sizes`; blocks of one position when L ≤ 512, i.e. the "
            "exact matrix).  For repeated or constant content with L ≤ 512 the cells are s(n − m) = qᵀΘ_{n−m}k/√d "
            "from the 2L − 1 offsets (Toeplitz exactly).  Masked cells are null.  `toeplitz.spread` is the "
            "largest max − min along any diagonal of the full-size blocks of the matrix computed position by "
            "position (rotate q_m and k_n, then take every inner product; 0 for a Toeplitz matrix); `identity` checks Θ_mᵀΘ_n = Θ_{n−m} "
            "with explicit d×d matrices for a few (m, n).  `theta_override` replaces every θ_j by 0 or π."
        ),
        examples=("seq_len=32&head_dim=8&content=constant", "seq_len=131072&causal=true", "theta_override=pi&seq_len=16"),
    )
)

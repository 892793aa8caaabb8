"""Transformer-XL's relative attention: the four terms of A_ij with seeded stand-in weights, and
which of them depend on i − j only or on j only."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.transformer_xl import (
    constancy,
    position_bias,
    relative_inverse_frequencies,
    score_terms,
    stand_in_weights,
)
from app.web.answers import Answer, Echo, Floats, Ints, MaskedMatrix, Matrix, doc
from app.web.csv_format import Columns
from app.web.fields import Seed
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_KEYS = 256
MAX_QUERIES = 128
TERMS = ("a", "b", "c", "d")


class TransformerXLParams(Params):
    query_len: Annotated[
        int,
        Field(ge=1, le=MAX_QUERIES, description="Queries: the current segment, the last query_len of the key positions."),
        UI("Queries (segment)"),
    ] = 8
    key_len: Annotated[
        int,
        Field(ge=1, le=MAX_KEYS, description="Keys: the cached memory followed by the segment, positions 0 … key_len − 1."),
        UI("Keys (memory + segment)"),
        Bound(ge="query_len", why="the queries are the last query_len keys"),
    ] = 24
    d_model: Annotated[
        int,
        Field(ge=2, le=256, multiple_of=2, description="Width of the embeddings, of R and of the one head shown (even: R pairs sines with cosines)."),
        UI("d_model", step=2),
    ] = 32
    seed: Seed = 0
    content: Annotated[
        Literal["random", "repeated"],
        Field(description="Token embeddings: a different seeded vector per position ('random') or one vector repeated ('repeated')."),
        UI("Tokens", help="repeated: every term then depends on i − j at most"),
    ] = "random"


class XLStructure(Answer):
    """How much a term varies along diagonals, columns and rows (0: constant along them)."""

    diagonal: float
    column: float
    row: float


class TransformerXLAnswer(Answer, echoes=TransformerXLParams):
    """Transformer-XL's relative attention score split into its four terms."""

    query_len: Echo
    key_len: Echo
    d_model: Echo
    seed: Echo
    content: Echo
    convention: str = doc("Which offset convention the sinusoids R use.")
    query_positions: Ints
    key_positions: Ints
    offsets: Ints = doc("The offsets R is evaluated at.")
    inv_freq: Floats
    R: Matrix = doc("Sinusoidal embedding of each offset.")
    offset_matrix: list[Ints] = doc("The offset of query i and key j.")
    terms: dict[str, MaskedMatrix] = doc(
        "The four terms of the score and their sum, one row per query, keyed 'a' (content–content), 'b' "
        "(content–position), 'c' (global content bias u), 'd' (global position bias v) and 'sum'; null where masked."
    )
    scale: float = doc("1/√d_model.")
    structure: dict[str, XLStructure] = doc("How each term (keyed as in `terms`) varies.")
    position_bias: Floats = doc("(d) per offset: v · W_R R.")
    content_bias: Floats = doc("(c) per key: u · W_k x.")
    u: Floats = doc("The global content bias u.")
    v: Floats = doc("The global position bias v.")


def compute_transformer_xl(params: TransformerXLParams) -> dict[str, Any]:
    weights = stand_in_weights(params.d_model, params.key_len, params.seed, params.content)
    found = score_terms(
        weights["embeddings"], weights["W_q"], weights["W_kE"], weights["W_kR"], weights["u"], weights["v"], params.query_len
    )
    offsets = np.arange(params.key_len)
    content_bias = (weights["embeddings"] @ weights["W_kE"].T) @ weights["u"]  # term (c) for each key
    return {
        **params.model_dump(),
        "convention": "i = key_len − query_len + row (queries are the last query_len keys); offsets i − j ≥ 0; later keys null",
        "query_positions": found["query_positions"],
        "key_positions": np.arange(params.key_len),
        "offsets": offsets,
        "inv_freq": relative_inverse_frequencies(params.d_model),
        "R": found["R"],
        "offset_matrix": found["offsets"],
        "terms": {name: found[name] for name in (*TERMS, "sum")},
        "scale": 1.0 / np.sqrt(params.d_model),
        "structure": {name: constancy(found[name]) for name in (*TERMS, "sum")},
        "position_bias": position_bias(offsets, weights["W_kR"], weights["v"]),
        "content_bias": content_bias,
        "u": weights["u"],
        "v": weights["v"],
    }


def transformer_xl_csv(data: dict[str, Any]):
    """One row per query–key pair (later keys are left out: no term exists there)."""
    q = np.asarray(data["query_positions"], dtype=np.int64)
    keys = np.asarray(data["key_positions"], dtype=np.int64)
    i, j = np.meshgrid(q, keys, indexing="ij")
    keep = (i - j) >= 0
    terms = data["terms"]
    values = [np.asarray(terms[name], dtype=np.float64)[keep] for name in (*TERMS, "sum")]
    header = ["query_position", "key_position", "offset", "a", "b", "c", "d", "sum"]
    return header, Columns(i[keep], j[keep], (i - j)[keep], *values)


register(
    View(
        name="transformer-xl",
        title="Transformer-XL's four terms",
        summary="Content and position split into four score terms: one depends on both tokens, one on the key alone, one on the distance alone.",
        short_title="Transformer-XL",
        section="Other families",
        order=125,
        api_path="/api/relative/transformer-xl",
        answer=TransformerXLAnswer,
        params=TransformerXLParams,
        compute=compute_transformer_xl,
        formulas=(
            r"A_{ij} = \underbrace{E_i^{\top} W_q^{\top} W_{k,E} E_j}_{(a)} + \underbrace{E_i^{\top} W_q^{\top} W_{k,R} R_{i-j}}_{(b)}"
            r" + \underbrace{u^{\top} W_{k,E} E_j}_{(c)} + \underbrace{v^{\top} W_{k,R} R_{i-j}}_{(d)}",
            r"R_k = \big[\sin(k\,\omega_0), \dots, \sin(k\,\omega_{d/2-1}), \cos(k\,\omega_0), \dots, \cos(k\,\omega_{d/2-1})\big],\quad \omega_i = 10000^{-2i/d}",
        ),
        csv=transformer_xl_csv,
        api_description=(
            "The four terms of Transformer-XL's score A_ij (Dai et al. 2019) for one head with seeded stand-in weights "
            "(W_q, W_kE, W_kR with variance 1/d, u, v and the embeddings standard normal; d_head = d_model): `terms` holds "
            "`a` (content·content), `b` (content·position), `c` (u·content), `d` (v·position) and their `sum`, each "
            "query_len × key_len, unscaled (the model multiplies the sum by `scale` = 1/√d_head).  The queries are the last "
            "query_len of the key_len positions (memory then segment); only offsets i − j ≥ 0 exist, later keys are null.  "
            "`offsets` 0 … key_len − 1 and `R` (one row per offset, [sin(k·inv_freq), cos(k·inv_freq)]) as the original "
            "code's PositionalEmbedding builds it; `structure` gives each term's largest spread along diagonals, down "
            "columns and along rows (0: it does not vary that way)."
        ),
        examples=("query_len=4&key_len=12&d_model=16&seed=3", "content=repeated"),
    )
)

"""Relative position: Shaw et al.'s clipped index, T5's log buckets and ALiBi's linear biases.

The page's JSON twin is ``/api/relative`` (all three at once).  The three operations users
script against, ``/api/relative/t5``, ``/api/relative/alibi`` and ``/api/relative/shaw``, are
extra GET routes on this module's ``router`` with their own bounded parameter models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.relative import (
    alibi_bias,
    alibi_penalty,
    alibi_slopes,
    shaw_index_matrix,
    shaw_key_term,
    t5_bias_matrix,
    t5_bucket,
    t5_bucket_ranges,
    t5_exact_limit,
)
from app.web.answers import Answer, Echo, Floats, Ints, MaskedMatrix, Matrix, doc
from app.web.csv_format import Columns
from app.web.params import UI, Params
from app.web.routing import api_operation
from app.web.rules import Bound, Require
from app.web.views import View, register

MAX_LEN = 256  # query/key lengths: one heatmap cell per position
MAX_SHAW_DIM = 32
MAX_OFFSET = 8192
MAX_HEADS = 256
MAX_BIAS_CELLS = 256 * 256  # num_heads × seq_len² in one ALiBi response
PENALTY_POINTS = 64

# ---- shared field types (one name per concept: page, twin and the three operations) -----------

QueryLen = Annotated[
    int,
    Field(ge=1, le=MAX_LEN, description="Number of query positions; they are the last query_len of the key_len positions."),
    UI("Queries (Shaw)"),
]
KeyLen = Annotated[
    int,
    Field(ge=1, le=MAX_LEN, description="Number of key positions (at least query_len)."),
    UI("Keys (Shaw)"),
    Bound(ge="query_len", why="the queries are the last query_len keys"),
]
MaxRelativePosition = Annotated[
    int,
    Field(ge=0, le=MAX_LEN, description="Clipping window k: offsets beyond ±k share the vector of ±k."),
    UI("Window k (Shaw)"),
]
Bidirectional = Annotated[
    bool,
    Field(description="T5 encoder (true: separate buckets for keys after the query) or decoder (false: causal)."),
    UI("Bidirectional (T5)"),
]
NumBuckets = Annotated[
    int,
    Field(ge=2, le=256, description="Number of T5 buckets: at least 4 when bidirectional, 2 when causal."),
    UI("Buckets (T5)"),
    Bound(ge="4", when="bidirectional", why="half of the buckets go to each side"),
]
MaxDistance = Annotated[
    int,
    Field(ge=2, le=1_000_000, description="Distance at which T5's logarithmic buckets end; farther offsets share the last bucket."),
    UI("Max distance (T5)", kind="log"),
    Bound(
        gt="(num_buckets // 2 if bidirectional else num_buckets) // 2",
        why="the logarithmic buckets start at max_exact = num_buckets/4 (bidirectional) or num_buckets/2",
    ),
]
# The ALiBi head shown must exist (after num_heads in every model that has it).
EXISTING_HEAD = Bound(le="num_heads - 1", why="heads are numbered from 0 below num_heads")
MaxOffset = Annotated[
    int,
    Field(ge=1, le=MAX_OFFSET, description="Offsets −max_offset … max_offset are listed (key minus query)."),
    UI("Offsets shown ±", kind="log"),
]
NumHeads = Annotated[
    int,
    Field(ge=1, le=MAX_HEADS, description="Number of attention heads; ALiBi gives each a slope."),
    UI("Heads (ALiBi)", kind="log"),
]
AlibiForm = Annotated[
    Literal["paper", "bloom"],
    Field(
        description="'paper': −m·(i − j) for key j ≤ query i. 'bloom': m·j, as fairseq/BLOOM add it; each row differs "
        "from the paper's by the constant m·i, which the softmax ignores. Future keys are masked (null)."
    ),
    UI("ALiBi bias form"),
]


class T5Params(Params):
    bidirectional: Bidirectional = True
    num_buckets: NumBuckets = 32
    max_distance: MaxDistance = 128
    max_offset: MaxOffset = 160


class ShawParams(Params):
    query_len: QueryLen = 12
    key_len: KeyLen = 16
    max_relative_position: MaxRelativePosition = 4



class AlibiParams(Params):
    num_heads: NumHeads = 8
    seq_len: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_LEN,
            description="If given, also return the bias matrices (num_heads × seq_len × seq_len, at most 65536 cells).",
        ),
        Require(
            f"num_heads * seq_len * seq_len <= {MAX_BIAS_CELLS}",
            f"num_heads × seq_len² must be at most {MAX_BIAS_CELLS} (got {{num_heads}} × {{seq_len}}²)",
        ),
    ] = None
    form: AlibiForm = "paper"


# ---- the page and its twin ---------------------------------------------------------------------


class RelativeParams(Params):
    query_len: QueryLen = 12
    key_len: KeyLen = 16
    max_relative_position: MaxRelativePosition = 4
    shaw_dim: Annotated[
        int,
        Field(ge=1, le=MAX_SHAW_DIM, description="Size d of Shaw's stand-in query and relative-key vectors."),
        UI("Vector size d (Shaw)"),
    ] = 8
    bidirectional: Bidirectional = True
    num_buckets: NumBuckets = 32
    max_distance: MaxDistance = 128
    max_offset: MaxOffset = 160
    seq_len: Annotated[
        int,
        Field(ge=1, le=256, description="Positions in the T5 and ALiBi bias heatmaps (queries = keys = 0 … seq_len−1)."),
        UI("Heatmap positions (T5, ALiBi)"),
    ] = 32
    seed: Annotated[
        int,
        Field(
            ge=0,
            le=2**32 - 1,
            description="Seed of the stand-in values: T5's per-bucket biases and Shaw's query and relative-key vectors (standard normal).",
        ),
        UI("Seed (stand-in values)", kind="number"),
    ] = 0
    num_heads: NumHeads = 8
    head: Annotated[
        int,
        Field(ge=0, le=MAX_HEADS - 1, description="Which head's ALiBi bias matrix to show (0-based, < num_heads)."),
        UI("Head shown (ALiBi)"),
        EXISTING_HEAD,
    ] = 0
    form: AlibiForm = "paper"



def t5_part(bidirectional: bool, num_buckets: int, max_distance: int, max_offset: int) -> dict[str, Any]:
    offsets = np.arange(-max_offset, max_offset + 1)
    return {
        "bidirectional": bidirectional,
        "num_buckets": num_buckets,
        "max_distance": max_distance,
        "max_offset": max_offset,
        "max_exact": t5_exact_limit(num_buckets, bidirectional),
        "relative_position": offsets,
        "bucket": t5_bucket(offsets, num_buckets, max_distance, bidirectional),
    }


def shaw_part(query_len: int, key_len: int, max_relative_position: int) -> dict[str, Any]:
    return {
        "query_len": query_len,
        "key_len": key_len,
        "max_relative_position": max_relative_position,
        "query_positions": np.arange(key_len - query_len, key_len),
        "key_positions": np.arange(key_len),
        "index_matrix": shaw_index_matrix(query_len, key_len, max_relative_position),
    }


def shaw_stand_ins(query_len: int, max_relative_position: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in query vectors ``(query_len, d)`` and relative-key table ``(2k+1, d)`` for Shaw's term:
    standard normals from default_rng([seed, 5]), queries first (a trained model learns both)."""
    rng = np.random.default_rng([seed, 5])
    return rng.standard_normal((query_len, dim)), rng.standard_normal((2 * max_relative_position + 1, dim))


def shaw_term_part(query_len: int, key_len: int, max_relative_position: int, dim: int, seed: int) -> dict[str, Any]:
    queries, table = shaw_stand_ins(query_len, max_relative_position, dim, seed)
    return {
        "dim": dim,
        "seed": seed,
        "queries": queries,
        "table": table,
        "term": shaw_key_term(queries, table, key_len, max_relative_position),
    }


def t5_bucket_bias(num_buckets: int, seed: int) -> np.ndarray:
    """Stand-in learned scalars, one per bucket: standard normals from default_rng([seed, 4])."""
    return np.random.default_rng([seed, 4]).standard_normal(num_buckets)


def penalty_distances(longest: int) -> np.ndarray:
    """At most PENALTY_POINTS integer distances 0 … longest (the penalty is linear, so these draw it exactly)."""
    return np.unique(np.round(np.linspace(0, longest, min(longest + 1, PENALTY_POINTS))).astype(np.int64))


class ShawAnswer(Answer, echoes=ShawParams):
    """Shaw et al.'s clipped relative index of every query and key."""

    query_len: Echo
    key_len: Echo
    max_relative_position: Echo
    query_positions: Ints = doc("Position of each query: the last query_len of the key_len positions.")
    key_positions: Ints
    index_matrix: list[Ints] = doc("clip(j − i, −k, k) + k for query i and key j: which of the 2k+1 relative vectors is used.")


class ShawStandIn(Answer):
    """Seeded stand-in queries and relative vectors, and the score term they give."""

    dim: int
    seed: int
    queries: Matrix
    table: Matrix = doc("The 2k+1 relative vectors.")
    term: Matrix = doc("q_i · a_{index_matrix[i][j]}.")


class ShawPart(ShawAnswer):
    """Shaw et al.'s index with a stand-in score term."""

    stand_in: ShawStandIn


class T5Answer(Answer, echoes=T5Params):
    """T5's bucket of every offset, as Hugging Face's T5Attention computes it."""

    bidirectional: Echo
    num_buckets: Echo
    max_distance: Echo
    max_offset: Echo
    max_exact: int = doc("Distances below it get a bucket each.")
    relative_position: Ints = doc("Offsets key − query, −max_offset … max_offset.")
    bucket: Ints = doc("The bucket of each offset.")


class T5BucketRange(Answer):
    """The offsets one bucket holds."""

    bucket: int
    low: int | None = doc("Smallest offset in it (null for an empty bucket).")
    high: int | None = doc("Largest offset in it (null for an empty bucket).")
    count: int


class T5Part(T5Answer):
    """T5's buckets with a seeded stand-in bias per bucket."""

    bucket_bias: Floats = doc("The stand-in learned bias of each bucket.")
    bias: Floats = doc("The bias of each offset.")
    bucket_ranges: list[T5BucketRange]
    seq_len: int
    bias_matrix: Matrix = doc("bias[bucket(j − i)] for query i and key j.")
    seed: int


class AlibiAnswer(Answer, echoes=AlibiParams):
    """ALiBi's slope per head (and bias matrices with seq_len)."""

    num_heads: Echo
    slopes: Floats = doc("Slope of each head, as the paper's get_slopes gives it.")
    form: Echo
    seq_len: Echo
    bias: list[MaskedMatrix] | None = doc("bias[h][i][j] for query i and key j; null above the diagonal (masked). With seq_len only.", optional=True)


class AlibiPart(Answer):
    """ALiBi's slopes, one head's bias matrix and every head's penalty against distance."""

    num_heads: int
    slopes: Floats
    slope_exponents: Floats = doc("log2 of each slope.")
    head: int
    head_slope: float = doc("The chosen head's slope: the bias falls by this per token of distance.")
    form: str
    seq_len: int
    bias_matrix: MaskedMatrix = doc("The chosen head's bias; null where the causal mask hides it.")
    distances: Ints
    penalty: Matrix = doc("−slope × distance, one row per head.")


class RelativeAnswer(Answer):
    """Relative position schemes side by side: Shaw's clipped index, T5's buckets, ALiBi's slopes."""

    shaw: ShawPart
    t5: T5Part
    alibi: AlibiPart


def compute_relative(params: RelativeParams) -> dict[str, Any]:
    t5 = t5_part(params.bidirectional, params.num_buckets, params.max_distance, params.max_offset)
    bucket_bias = t5_bucket_bias(params.num_buckets, params.seed)
    t5["bucket_bias"] = bucket_bias
    t5["bias"] = bucket_bias[t5["bucket"]]
    t5["bucket_ranges"] = t5_bucket_ranges(params.num_buckets, params.max_distance, params.bidirectional, params.max_offset)
    t5["seq_len"] = params.seq_len
    t5["bias_matrix"] = t5_bias_matrix(params.seq_len, bucket_bias, params.num_buckets, params.max_distance, params.bidirectional)
    t5["seed"] = params.seed

    slopes = alibi_slopes(params.num_heads)
    distances = penalty_distances(params.max_offset)
    alibi = {
        "num_heads": params.num_heads,
        "slopes": slopes,
        "slope_exponents": np.log2(slopes),
        "head": params.head,
        "head_slope": float(slopes[params.head]),
        "form": params.form,
        "seq_len": params.seq_len,
        "bias_matrix": alibi_bias(slopes[params.head : params.head + 1], params.seq_len, params.form)[0],
        "distances": distances,
        "penalty": alibi_penalty(slopes, distances),
    }
    shaw = shaw_part(params.query_len, params.key_len, params.max_relative_position)
    shaw["stand_in"] = shaw_term_part(params.query_len, params.key_len, params.max_relative_position, params.shaw_dim, params.seed)
    return {
        "shaw": shaw,
        "t5": t5,
        "alibi": alibi,
    }


def relative_csv(data: dict[str, Any]):
    """Per offset: Shaw's clipped index, T5's bucket and bias, and the ALiBi penalty of the head shown.

    One ALiBi column (the page's head), not one per head: 256 heads × 16385 offsets would make a
    42 MB file of numbers that are each a slope times the offset (the slopes are in the JSON twin).
    """
    t5, alibi, shaw = data["t5"], data["alibi"], data["shaw"]
    k = shaw["max_relative_position"]
    head = int(alibi["head"])
    slope = float(alibi["slopes"][head])
    header = ["offset", "shaw_index", "t5_bucket", "t5_bias", f"alibi_head{head}"]
    offsets = np.asarray(t5["relative_position"], dtype=np.int64)
    # ALiBi penalises only keys at or before the query: later offsets are left empty.
    alibi_column = np.ma.masked_array(slope * offsets.astype(np.float64), mask=offsets > 0)
    return header, Columns(
        offsets,
        np.clip(offsets, -k, k) + k,
        np.asarray(t5["bucket"], dtype=np.int64),
        np.asarray(t5["bias"], dtype=np.float64),
        alibi_column,
    )


# ---- the three operations users script against -----------------------------------------------------

def _alibi_part(params: AlibiParams) -> dict[str, Any]:
    slopes = alibi_slopes(params.num_heads)
    result: dict[str, Any] = {"num_heads": params.num_heads, "slopes": slopes, "form": params.form, "seq_len": params.seq_len}
    if params.seq_len is not None:
        result["bias"] = alibi_bias(slopes, params.seq_len, params.form)
    return result


T5_ROUTE = api_operation(
    "/api/relative/t5",
    T5Params,
    lambda params: t5_part(params.bidirectional, params.num_buckets, params.max_distance, params.max_offset),
    name="t5_buckets",
    summary="T5 relative position buckets",
    description=(
        "The bucket of every offset `relative_position` = key − query in −max_offset … max_offset, as Hugging Face's "
        "`T5Attention._relative_position_bucket` computes it (float32 logarithm).  Distances below `max_exact` "
        "(num_buckets/4 bidirectional, num_buckets/2 causal) get a bucket each; farther ones share logarithmically "
        "wider buckets up to `max_distance`.\n\nExamples:\n\n- `/api/relative/t5?num_buckets=32&max_distance=128"
        "&bidirectional=true&max_offset=300`\n- `/api/relative/t5?bidirectional=false&max_offset=150`"
    ),
    response_description="Offsets and their buckets.",
    answer=T5Answer,
)

ALIBI_ROUTE = api_operation(
    "/api/relative/alibi",
    AlibiParams,
    _alibi_part,
    name="alibi",
    summary="ALiBi slopes and bias matrices",
    description=(
        "`slopes`: the slope of each head as the ALiBi paper's `get_slopes` gives it (2^(−8h/n) for n a power of two; "
        "otherwise the slopes of the largest power of two below n followed by every other slope of twice that).  "
        "With `seq_len`, also `bias[h][i][j]` for query i and key j (null for j > i, which the causal mask hides).\n\n"
        "Examples:\n\n- `/api/relative/alibi?num_heads=12`\n- `/api/relative/alibi?num_heads=4&seq_len=6&form=bloom`"
    ),
    response_description="Slopes (and bias matrices).",
    answer=AlibiAnswer,
)

SHAW_ROUTE = api_operation(
    "/api/relative/shaw",
    ShawParams,
    lambda params: shaw_part(params.query_len, params.key_len, params.max_relative_position),
    name="shaw",
    summary="Shaw et al. clipped relative index",
    description=(
        "`index_matrix[i][j]` = clip(j − i', −k, k) + k with k = `max_relative_position`, for key position j and the "
        "query at position i' = key_len − query_len + i: as in tensor2tensor, the queries are the last `query_len` "
        "of the `key_len` positions.  Each index picks one of the 2k+1 learned relative vectors.\n\nExamples:\n\n"
        "- `/api/relative/shaw?query_len=5&key_len=5&max_relative_position=2`\n"
        "- `/api/relative/shaw?query_len=1&key_len=8&max_relative_position=3`"
    ),
    response_description="The index matrix.",
    answer=ShawAnswer,
)


register(
    View(
        name="relative",
        title="Relative encodings",
        summary="Shaw's clipped offsets, T5's log buckets and ALiBi's straight-line penalties: position as a function of distance.",
        short_title="Relative",
        section="Other families",
        order=120,
        api_path="/api/relative",
        answer=RelativeAnswer,
        routes=(T5_ROUTE, ALIBI_ROUTE, SHAW_ROUTE),
        params=RelativeParams,
        compute=compute_relative,
        formulas=(
            r"\text{Shaw: } e_{ij} = \frac{q_i \cdot (k_j + a^K_{\mathrm{clip}(j-i,\,-k,\,k)})}{\sqrt{d}}",
            r"\text{T5: } s_{ij} = q_i \cdot k_j + b_{\mathrm{bucket}(j-i)}",
            r"\text{bucket}(n) = \begin{cases} n & n < E \\ \min\!\left(B-1,\ E + \left\lfloor \frac{\ln(n/E)}{\ln(D/E)}(B-E) \right\rfloor\right) & n \ge E \end{cases}",
            r"\text{ALiBi: } s_{ij} = q_i \cdot k_j - m_h\,(i-j),\quad m_h = 2^{-8h/H}",
        ),
        csv=relative_csv,
        api_description=(
            "All three relative schemes at once: `shaw` (the clipped index matrix, and in `stand_in` the relative term "
            "q_i·a^K_(clip(j−i))/√d of the logit for seeded stand-in queries and relative-key vectors), `t5` (bucket and seeded "
            "stand-in bias of every offset key − query, the bucket ranges, and the bias matrix over `seq_len` "
            "positions), `alibi` (slopes, one head's bias matrix with future keys null, and every head's penalty "
            "at a few distances).  The separate operations `/api/relative/t5`, `/api/relative/alibi` and "
            "`/api/relative/shaw` return each part on its own."
        ),
        examples=("num_heads=12&head=9", "bidirectional=false&num_buckets=32&max_distance=128", "query_len=4&key_len=10&max_relative_position=3"),
    )
)

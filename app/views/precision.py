"""Precision of RoPE angles: float32, bfloat16 and float16 against float64, up to the target length."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Annotated, Any

import numpy as np
import orjson
from pydantic import Field

from app.core import precision
from app.core.frequencies import inverse_frequencies, rotary_dim
from app.core.rope import block_partition
from app.web.answers import Answer, Echo, Ints, doc
from app.web.fields import DEFAULTS, Base, HeadDim, PartialRotaryFactor
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

# Work budget: positions × pairs.  The per-column maxima are exact at every position, at about
# 20-45 ns per (position, pair) on this 2-core machine (the most for the slowest pairs, θ ≈ 1e-9):
# 2^19 keeps every request near 25 ms of CPU even when the machine is busy.
MAX_POSITION_PAIRS = 1 << 19
MAX_POSITIONS = MAX_POSITION_PAIRS
COLUMNS = 600
COLLISION_LIMIT = (1 << 24) + 1


# Llama 3's head (128 dims, 64 pairs): the fastest pair, two between and the slowest.
DEFAULT_PAIRS = (0, 16, 40, 63)


def default_pairs(data: dict[str, Any]) -> tuple[int, ...]:
    """The pairs examined when none are given: :data:`DEFAULT_PAIRS` when they fit this head and
    length, else the same places on this head's P = r/2 pairs (0, P/4, 5P/8, P−1), as many as
    seq_len allows.  A default never breaks a rule, whatever head_dim and seq_len say."""
    head_dim = data.get("head_dim", DEFAULTS["head_dim"])
    fraction = data.get("partial_rotary_factor", DEFAULTS["partial_rotary_factor"])
    seq_len = data.get("seq_len", 131072)
    pairs = max(1, int(head_dim * fraction) // 2)
    room = max(1, MAX_POSITION_PAIRS // max(seq_len, 1))
    if max(DEFAULT_PAIRS) < pairs and len(DEFAULT_PAIRS) <= room:
        return DEFAULT_PAIRS
    spread = dict.fromkeys((0, pairs // 4, 5 * pairs // 8, pairs - 1))  # in order, without repeats
    return tuple(spread)[:room]


class PrecisionParams(Params):
    head_dim: HeadDim = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    partial_rotary_factor: PartialRotaryFactor = DEFAULTS["partial_rotary_factor"]
    seq_len: Annotated[
        int,
        Field(
            ge=2,
            le=MAX_POSITIONS,
            description="Target length: positions 0 … seq_len−1 are examined.  seq_len × (number of pairs) may be "
            "at most 524288: up to 131072 positions with 4 pairs, 524288 with one.",
        ),
        UI("Target length", kind="log", unit="tokens"),
    ] = 131072
    pairs: Annotated[
        tuple[Annotated[int, Field(ge=0, le=511)], ...],
        Field(
            min_length=1,
            max_length=4,
            description="Pair indices to examine (at most 4, each below r/2, and at most 524288 / seq_len of them). "
            "Repeat the name for several: pairs=0&pairs=63.  Not given: 0, 16, 40 and 63 when they fit, else the same "
            "places on this head's P = r/2 pairs (0, P/4, 5P/8, P−1), as many as seq_len allows.",
            default_factory=default_pairs,
        ),
        UI("Pairs", kind="list", help="Up to 4 pair indices, comma-separated; 0 is the fastest pair."),
        Bound(le="int(head_dim * partial_rotary_factor) // 2 - 1", each=True, why="pairs are numbered from 0 below r/2"),
        Bound(
            le=f"{MAX_POSITION_PAIRS} // seq_len",
            length=True,
            why=f"seq_len × number of pairs is at most {MAX_POSITION_PAIRS}",
        ),
    ]


class PrecisionErrors(Answer):
    """One pair's angle and score errors in one dtype, per column of positions."""

    angle_error_max: list[float | None] = doc("Largest |angle error| per column (float32 values); null where the angle overflows.")
    score_error_max: list[float | None] = doc("Largest |score error| per column; null where it is not a number.")
    largest_angle_error: float | None = doc("Largest finite angle error (null if none is finite).")
    largest_score_error: float | None = doc("Largest score error (null if none is a number).")
    first_collision: int | None = doc("First position m whose angle equals that of m + 1 in this dtype (null if none within the search).")
    collision_within_target: bool = doc("Whether first_collision is below seq_len.")
    overflow_from: int | None = doc("First position whose angle is not finite (float16), or null.")


class PrecisionCurve(Answer):
    """One pair's errors in every dtype."""

    pair: int
    inv_freq: float = doc("θ_j in float64.")
    inv_freq_float32: float = doc("θ_j rounded to float32.")
    dtypes: dict[str, PrecisionErrors] = doc("Keyed by dtype (the values of `dtypes`).")


class PrecisionAnswer(Answer, echoes=PrecisionParams):
    """How far RoPE's angles drift from exact when positions and angles are kept in low precision."""

    head_dim: Echo
    base: Echo
    rotary_dim: int
    seq_len: Echo
    pairs: Echo
    dtypes: list[str] = doc("The dtypes compared.")
    column_start: Ints = doc("First position of each column.")
    column_stop: Ints = doc("One past the last position of each column.")
    curves: list[PrecisionCurve] = doc("One per entry of `pairs`.")


# One pair's errors depend on its θ_j, the length and the columns only, not on the head or the
# other pairs: θ_0 = 1 on every head and base, and a head or base moved by the page keeps some of
# the others (P/4 pairs on every head with P divisible by 4 have θ = base^(-1/4)).  Each is kept,
# for the last ENVELOPE_CACHE (length, columns, θ) asked, as read-only arrays (about 30 KB each),
# so a move computes only the pairs whose θ it has not seen.
ENVELOPE_CACHE = 64
_envelopes_lock = threading.Lock()
_envelopes: OrderedDict[tuple[int, int, float], tuple[dict[str, dict[str, Any]], dict[str, int | None]]] = OrderedDict()


def _frozen(errors: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    for entry in errors.values():
        for value in entry.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
    return errors


def pair_errors(length: int, thetas: list[float], columns: int) -> list[tuple[dict[str, dict[str, Any]], dict[str, int | None]]]:
    """For each θ: ``precision.error_envelopes`` of it (keyed by dtype) and its first collision per
    dtype (``precision.first_collision`` below COLLISION_LIMIT), from the cache where it holds them;
    the missing θ are computed together, in one call (outside the lock: requests run in threads)."""
    keys = [(length, columns, theta) for theta in thetas]
    with _envelopes_lock:
        found = {key: _envelopes[key] for key in keys if key in _envelopes}
    missing = [key for key in dict.fromkeys(keys) if key not in found]
    if missing:
        computed = precision.error_envelopes(length, [key[2] for key in missing], columns)
        for key, errors in zip(missing, computed, strict=True):
            collisions = {dtype: precision.first_collision(key[2], dtype, COLLISION_LIMIT) for dtype in precision.DTYPES}
            found[key] = (_frozen(errors), collisions)
    with _envelopes_lock:
        for key in keys:
            _envelopes[key] = found[key]
            _envelopes.move_to_end(key)
        while len(_envelopes) > ENVELOPE_CACHE:
            _envelopes.popitem(last=False)
    return [found[key] for key in keys]


def compute_precision(params: PrecisionParams) -> dict[str, Any]:
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    theta = inverse_frequencies(r, params.base)
    columns = min(COLUMNS, params.seq_len)
    # Per-column maxima over every position, exact, without np.cos on every position (see the
    # docstring of error_envelopes); a θ listed twice, or met in an earlier answer, is computed once.
    found = pair_errors(params.seq_len, [float(theta[j]) for j in params.pairs], columns)
    curves = []
    for j, (errors, collisions) in zip(params.pairs, found, strict=True):
        entry: dict[str, Any] = {"pair": j, "inv_freq": float(theta[j]), "inv_freq_float32": float(np.float32(theta[j])), "dtypes": {}}
        for dtype in precision.DTYPES:
            e = errors[dtype]
            collision = collisions[dtype]
            entry["dtypes"][dtype] = {
                "angle_error_max": e["angle"].astype(np.float32),
                "score_error_max": e["score"].astype(np.float32),
                "largest_angle_error": e["largest_angle"],
                "largest_score_error": e["largest_score"],
                "first_collision": collision,
                "collision_within_target": collision is not None and collision < params.seq_len,
                "overflow_from": e["overflow_from"],
            }
        curves.append(entry)
    starts, sizes = block_partition(params.seq_len, columns)
    return {
        "head_dim": params.head_dim,
        "base": params.base,
        "rotary_dim": r,
        "seq_len": params.seq_len,
        "pairs": list(params.pairs),
        "dtypes": list(precision.DTYPES),
        "column_start": starts,
        "column_stop": starts + sizes,
        "curves": curves,
    }


def precision_csv(data: dict[str, Any]):
    """Errors are float32 in the JSON; the CSV writes the same shortest float32 digits (orjson's
    float32 output, as in the JSON; empty for NaN/inf)."""
    header = ["column_start", "column_stop"]
    columns = []
    for curve in data["curves"]:
        for dtype in data["dtypes"]:
            for kind in ("angle_error_max", "score_error_max"):
                header.append(f"pair{curve['pair']}_{dtype}_{kind}")
                values = orjson.loads(orjson.dumps(np.asarray(curve["dtypes"][dtype][kind], dtype=np.float32), option=orjson.OPT_SERIALIZE_NUMPY))
                columns.append(["" if v is None else v for v in values])
    starts = [int(v) for v in data["column_start"]]
    lasts = [int(v) - 1 for v in data["column_stop"]]
    return header, [[start, last, *row] for start, last, *row in zip(starts, lasts, *columns, strict=True)]


register(
    View(
        name="precision",
        title="Precision of long-context angles",
        short_title="Precision",
        summary="float32, bfloat16 and float16 angles drift from the exact m·θ; at long range neighbours can collide.",
        section="Context extension",
        order=220,
        api_path="/api/rope/precision",
        answer=PrecisionAnswer,
        params=PrecisionParams,
        compute=compute_precision,
        formulas=(
            r"\tilde\varphi(m) = \operatorname{rd}\!\big(\operatorname{rd}(m)\cdot\operatorname{rd}(\theta_j)\big),\qquad \varphi(m) = m\,\theta_j",
            r"\text{angle error} = |\tilde\varphi(m) - \varphi(m)|,\qquad \text{score error} = |\cos\tilde\varphi(m) - \cos\varphi(m)|",
            r"m^\ast = \min\{m : \tilde\varphi(m+1) = \tilde\varphi(m)\}",
        ),
        csv=precision_csv,
        api_description=(
            "For each chosen pair and each of float32, bfloat16 and float16: the largest angle error and score "
            "error within each of at most 600 columns of positions (min/max envelope, so no spike is lost), and the "
            "first position m where positions m and m+1 get the same angle in that precision (searched up to 2^24). "
            "The maxima are exact over every position; to bound the work, seq_len × number of pairs is at most 2^19."
        ),
        examples=("head_dim=128&base=500000&seq_len=131072&pairs=0&pairs=63", "base=10000&seq_len=8192&pairs=0"),
    )
)

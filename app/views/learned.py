"""A real learned position table (all-MiniLM-L6-v2's, or one the server was given) beside a
sinusoid of the same shape: its rows, the cosine similarity between positions, the principal
components of the rows, and the cliff at max_len."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
import orjson
from pydantic import Field, model_validator

from app.core.decimate import minmax_envelope
from app.core.learned import (
    cosine_similarity,
    diagonal_statistics,
    pc_rotation,
    principal_components,
    row_norms,
    sinusoid_like,
    sinusoid_offset_similarity,
    sinusoid_similarity,
)
from app.settings import MAX_CURVE_COLUMNS, MAX_HEATMAP_CELLS
from app.trained.learned_tables import DEFAULT_TABLE, LearnedTable, configured_tables
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.csv_format import Columns
from app.web.params import UI, Params, per_process
from app.web.responses import dumps
from app.web.rules import Bound
from app.web.views import View, register

SINUSOID_BASE = 10000.0
COMPONENTS = 16  # explained variance is reported for this many principal components
MAX_BEYOND = 8192

TABLES: dict[str, LearnedTable] = {table.name: table for table in configured_tables()}
NAMES = tuple(TABLES)


def _per_table(attribute: str) -> str:
    """A rule expression giving the chosen table's ``attribute`` (e.g. ``max_len``), so the limits
    that depend on the table are declared like every other cross-field rule."""
    tables = list(TABLES.values())
    expression = str(getattr(tables[-1], attribute))
    for table in reversed(tables[:-1]):
        expression = f"{getattr(table, attribute)} if model == '{table.name}' else ({expression})"
    return f"({expression})"


MAX_LEN = _per_table("max_len")
LONGEST = max(table.max_len for table in TABLES.values())
WIDEST = max(table.dim for table in TABLES.values())
DIM = _per_table("dim")
WINDOW = MAX_HEATMAP_CELLS

Model = Annotated[
    Literal[NAMES],  # type: ignore[valid-type]  # the names come from the shipped tables; pydantic checks them
    Field(
        description="Which learned table: 'all-minilm-l6-v2' ships with the app; the server's --learned-table and "
        "--hf-cache options add others.",
        # an enum even when only one table is configured, so the page draws a menu
        json_schema_extra={"enum": list(NAMES)},
    ),
    UI("Table"),
]


# Defaults that a table may be too small for: each is lowered to the chosen table's last row or
# column when the request does not give it, so a table of 48 × 10 opens on its whole self.
SHAPE_DEFAULTS = {"last_position": ("max_len", 63), "last_column": ("dim", 63), "position": ("max_len", 100)}


class LearnedParams(Params):
    model: Model = DEFAULT_TABLE

    @model_validator(mode="before")
    @classmethod
    def _defaults_that_fit(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        table = TABLES.get(data.get("model", DEFAULT_TABLE)) if isinstance(data.get("model", DEFAULT_TABLE), str) else None
        if table is None:
            return data
        missing = {name: min(default, getattr(table, size) - 1) for name, (size, default) in SHAPE_DEFAULTS.items() if name not in data}
        return {**data, **missing} if missing else data
    first_position: Annotated[
        int,
        Field(ge=0, le=LONGEST - 1, description="First position (table row) in the table and similarity heatmaps."),
        UI("First position shown"),
        Bound(le=f"{MAX_LEN} - 1", why=f"the table has rows for positions 0 … {{{MAX_LEN} - 1}}"),
    ] = 0
    last_position: Annotated[
        int,
        Field(
            ge=0,
            le=LONGEST - 1,
            description=f"Last position in the table and similarity heatmaps (at most {WINDOW} positions from first_position).",
        ),
        UI("Last position shown"),
        Bound(ge="first_position", why="the window runs from first_position to last_position"),
        Bound(le=f"{MAX_LEN} - 1", why=f"the table has rows for positions 0 … {{{MAX_LEN} - 1}}"),
        Bound(le=f"first_position + {WINDOW - 1}", why=f"a heatmap shows at most {WINDOW} positions"),
    ] = 63
    first_column: Annotated[
        int,
        Field(ge=0, le=WIDEST - 1, description="First column (feature) of the table heatmap."),
        UI("First column shown"),
        Bound(le=f"{DIM} - 1", why=f"the table has columns 0 … {{{DIM} - 1}}"),
    ] = 0
    last_column: Annotated[
        int,
        Field(
            ge=0,
            le=WIDEST - 1,
            description=f"Last column of the table heatmap (at most {WINDOW} columns from first_column). Similarities "
            "and principal components always use every column.",
        ),
        UI("Last column shown"),
        Bound(ge="first_column", why="the window runs from first_column to last_column"),
        Bound(le=f"{DIM} - 1", why=f"the table has columns 0 … {{{DIM} - 1}}"),
        Bound(le=f"first_column + {WINDOW - 1}", why=f"a heatmap shows at most {WINDOW} columns"),
    ] = 63
    position: Annotated[
        int,
        Field(
            ge=0,
            le=1_000_000,
            description="The position compared with every other one on the cliff plot. It must have a row: a learned "
            "table has nothing for a position ≥ max_len, and asking for one is refused.",
        ),
        UI("Position p", kind="number"),
        Bound(
            le=f"{MAX_LEN} - 1",
            why=f"this table has {{{MAX_LEN}}} rows, for positions 0 … {{{MAX_LEN} - 1}}; a learned table holds no vector "
            "for a later position",
        ),
    ] = 100
    beyond: Annotated[
        int,
        Field(ge=0, le=MAX_BEYOND, description="How many positions past the table's end the cliff plot continues (the sinusoid goes on)."),
        UI("Positions past the end", kind="log"),
    ] = 128


@per_process
def table_statistics(name: str) -> dict[str, Any]:
    """What depends on the whole table only: computed once per process."""
    rows = TABLES[name].positions
    pca = principal_components(rows, COMPONENTS)
    return {
        "pca": pca,
        "rotation": pc_rotation(pca),
        "norms": row_norms(rows),
        "by_offset": diagonal_statistics(rows, normalise=True),
    }


def warm_statistics() -> None:
    """Compute every table's whole-table statistics now, before this worker takes traffic (the
    module is imported by the app factory): no request pays for them, and their cost is bounded by
    app.trained.learned_tables.MAX_VALUES, checked when the table was loaded."""
    for table in TABLES.values():
        table_statistics(table.name)
        sinusoid_statistics(table.max_len, table.dim)
        if table.dim % 2 == 0:
            sinusoid_by_distance(table.dim, table.max_len + MAX_BEYOND)


@per_process
def sinusoid_by_distance(dim: int, longest: int) -> np.ndarray:
    """cos(PE_p, PE_(p+Δ)) for Δ = 0 … longest − 1 (even dim), once per width: the cliff plot looks it up."""
    return sinusoid_offset_similarity(np.arange(longest), dim, SINUSOID_BASE)


@per_process
def sinusoid_statistics(max_len: int, dim: int) -> dict[str, Any]:
    table = sinusoid_like(max_len, dim, SINUSOID_BASE)
    return {"pca": principal_components(table, COMPONENTS), "norms": row_norms(table)}


def _cliff(curves: dict[str, np.ndarray], x: np.ndarray) -> dict[str, Any]:
    """Curves over the positions x, sharing one axis: every value when they fit the pixel budget
    (``low``), else a min/max envelope per column (``low``, ``high``, column ranges ``x_low``/``x_high``)."""
    if len(x) <= MAX_CURVE_COLUMNS:
        return {"decimated": False, "x": x, **{name: {"low": values} for name, values in curves.items()}}
    out: dict[str, Any] = {"decimated": True}
    for name, values in curves.items():
        envelope = minmax_envelope(values, MAX_CURVE_COLUMNS)
        out["x_low"], out["x_high"] = x[envelope["start"]], x[envelope["stop"] - 1]
        out[name] = {"low": envelope["low"], "high": envelope["high"]}
    out["x"] = (out["x_low"] + out["x_high"]) / 2
    return out


def _pca_part(pca: dict[str, np.ndarray], first: int, last: int) -> dict[str, Any]:
    """The explained variance of the whole table, and the coordinates of the positions shown."""
    ratio = pca["explained_variance_ratio"]
    coordinates = pca["coordinates"][first : last + 1]
    return {
        "pc1": coordinates[:, 0],
        "pc2": coordinates[:, 1] if coordinates.shape[1] > 1 else np.zeros(len(coordinates)),
        "explained_variance_ratio": ratio[:COMPONENTS],
        "cumulative": np.cumsum(ratio)[:COMPONENTS],
    }


class LearnedTableInfo(Answer):
    """The learned table read: where from, its shape and checksum."""

    name: str
    title: str
    tensor: str
    origin: str = doc("'shipped', or where a server operator's own table was read from.")
    file: str
    shape: Ints
    dtype: str
    first_position_row: int
    max_len: int
    dim: int
    sha256: str
    license: str
    source: dict[str, Any] = doc("Provenance: model, package, files and the model's config.")


class LearnedPca(Answer):
    """The first two principal components of a table and its explained variance."""

    pc1: Floats = doc("Coordinate of each position shown on the first component.")
    pc2: Floats
    explained_variance_ratio: Floats = doc("Of the whole table, per component.")
    cumulative: Floats


class LearnedPcas(Answer):
    """Principal components of the learned table and of a sinusoid table of the same shape."""

    learned: LearnedPca
    sinusoid: LearnedPca


class LearnedByOffset(Answer):
    """Row similarity against the offset |p − q|."""

    offsets: Ints
    learned_mean: Floats
    learned_low: Floats
    learned_high: Floats
    sinusoid: Floats


class LearnedNeighbours(Answer):
    """Mean similarity of neighbouring rows."""

    learned: float
    sinusoid: float


class LearnedCurve(Answer):
    """Values over the cliff's positions: every value (`low`), or per-column min (`low`) and max (`high`)."""

    low: list[float | None] = doc("null beyond the learned table.")
    high: list[float | None] | None = doc("Per-column maximum, when decimated.", optional=True)


class LearnedCliff(Answer):
    """What happens past the table's last row."""

    decimated: bool
    x: Floats = doc("Position of each value (the middle of each column when decimated).")
    x_low: Ints | None = doc("First position of each column, when decimated.", optional=True)
    x_high: Ints | None = doc("Last position of each column, when decimated.", optional=True)
    learned: LearnedCurve
    sinusoid: LearnedCurve
    learned_norm: LearnedCurve


class LearnedAnswer(Answer, echoes=LearnedParams):
    """A published learned position table: its rows, their similarities, principal components and edge."""

    model: Echo
    models: list[str] = doc("Every table that can be chosen.")
    info: LearnedTableInfo
    max_len: int = doc("Rows of the table.")
    dim: int = doc("Columns of the table.")
    first_position: Echo
    last_position: Echo
    first_column: Echo
    last_column: Echo
    positions: Ints
    columns: Ints = doc("The column indices shown.")
    table: Matrix = doc("The rows and columns shown.")
    similarity: Matrix = doc("Cosine similarity between the rows shown.")
    sinusoid_similarity: Matrix | None = doc("The same for a sinusoid table of the same width; null for an even width (it is Toeplitz: see by_offset.sinusoid).")
    sinusoid_base: float = doc("Base of the sinusoid table compared.")
    pca: LearnedPcas
    by_offset: LearnedByOffset
    neighbour_similarity: LearnedNeighbours
    pc12_period: float | None = doc("Positions per turn in the plane of the first two components (null unless the walk turns steadily).")
    pc12_turns: float | None = doc("Turns in that plane over the table (null with pc12_period).")
    pc12_steady_share: float = doc("Share of the positions turning at the steady rate.")
    position: Echo
    beyond: Echo
    first_missing_position: int = doc("The first position past the table.")
    cliff: LearnedCliff
    sinusoid_norm: float = doc("Norm of every sinusoid row (they all have the same).")
    row: Floats = doc("The table's row at `position`.")


def compute_learned(params: LearnedParams) -> dict[str, Any]:
    table = TABLES[params.model]
    rows = table.positions
    n, d = table.max_len, table.dim
    first, last = params.first_position, params.last_position
    c0, c1 = params.first_column, params.last_column
    window = rows[first : last + 1]
    positions = np.arange(first, last + 1)

    stats = table_statistics(table.name)
    sin_stats = sinusoid_statistics(n, d)

    # The cliff: the chosen row against every position up to `beyond` past the end.
    p = params.position
    extent = np.arange(n + params.beyond)
    learned_cos = np.full(len(extent), np.nan)
    learned_cos[:n] = cosine_similarity(rows[p : p + 1], rows)[0]
    if d % 2 == 0:
        by_distance = sinusoid_by_distance(d, n + MAX_BEYOND)
        sinusoid_cos = by_distance[np.abs(extent - p)]
    else:
        sin_rows = sinusoid_like(len(extent), d, SINUSOID_BASE)
        sinusoid_cos = cosine_similarity(sin_rows[p : p + 1], sin_rows)[0]
    learned_norm = np.full(len(extent), np.nan)
    learned_norm[:n] = stats["norms"]
    curves = {"learned": learned_cos, "sinusoid": sinusoid_cos, "learned_norm": learned_norm}
    if d % 2:  # an odd sinusoid's rows differ in length (its last sine has no cosine)
        curves["sinusoid_norm"] = row_norms(sinusoid_like(len(extent), d, SINUSOID_BASE))

    period, steady = stats["rotation"]
    by_offset = stats["by_offset"]
    offsets = by_offset["offsets"]
    return {
        "model": table.name,
        "models": list(NAMES),
        "info": table.describe(),
        "max_len": n,
        "dim": d,
        "first_position": first,
        "last_position": last,
        "first_column": c0,
        "last_column": c1,
        "positions": positions,
        "columns": np.arange(c0, c1 + 1),
        # the stored values themselves (float32 stays float32: its JSON text is the shortest float32 repr)
        "table": window[:, c0 : c1 + 1],
        "similarity": cosine_similarity(window),
        # Toeplitz for even d: the page lays out by_offset["sinusoid"][|p − q|]; sent whole for odd d only
        "sinusoid_similarity": sinusoid_similarity(positions, d, SINUSOID_BASE) if d % 2 else None,
        "sinusoid_base": SINUSOID_BASE,
        "pca": {"learned": _pca_part(stats["pca"], first, last), "sinusoid": _pca_part(sin_stats["pca"], first, last)},
        "by_offset": {
            "offsets": offsets,
            "learned_mean": by_offset["mean"],
            "learned_low": by_offset["low"],
            "learned_high": by_offset["high"],
            "sinusoid": sinusoid_by_distance(d, n + MAX_BEYOND)[: len(offsets)] if d % 2 == 0 else None,
        },
        "neighbour_similarity": {
            "learned": float(by_offset["mean"][1]),
            "sinusoid": float(sinusoid_by_distance(d, n + MAX_BEYOND)[1]) if d % 2 == 0 else None,
        },
        "pc12_period": period,
        "pc12_turns": (n - 1) / period if period else None,
        "pc12_steady_share": steady,
        "position": p,
        "beyond": params.beyond,
        "first_missing_position": n,
        "cliff": _cliff(curves, extent),
        # every row of an even-d sinusoid has this length
        "sinusoid_norm": float(np.sqrt(d / 2)) if d % 2 == 0 else None,
        "row": rows[p],
    }


def learned_csv(data: dict[str, Any]):
    """The table window as stored: one row per position, one column per feature shown.

    A float32 value is written with the digits the JSON twin gives it (its shortest float32 text),
    not as the longer float64 repr of the same number.
    """
    columns = [int(c) for c in data["columns"]]
    header = ["position", *(f"col{c}" for c in columns)]
    table = data["table"]
    if isinstance(table, np.ndarray) and table.dtype == np.float32:
        table = orjson.loads(dumps(table))
    return header, Columns(np.asarray(data["positions"], dtype=np.int64), np.asarray(table, dtype=np.float64))


register(
    View(
        name="learned",
        title="A real learned table",
        summary="A trained model's position table: rows that only roughly follow their neighbours, and nothing past max_len.",
        short_title="Learned",
        section="Other families",
        order=115,
        api_path="/api/learned",
        answer=LearnedAnswer,
        params=LearnedParams,
        compute=compute_learned,
        formulas=(
            r"x_p \leftarrow x_p + P_p,\quad P \in \mathbb{R}^{L_{\max} \times d},\ p < L_{\max}",
            r"C_{pq} = \frac{P_p \cdot P_q}{\lVert P_p\rVert\,\lVert P_q\rVert}",
            r"P - \bar P = U S V^{\top},\quad \text{PC}_k(p) = (US)_{pk},\quad \text{share}_k = \frac{S_k^2}{\sum_i S_i^2}",
        ),
        csv=learned_csv,
        api_description=(
            "A learned absolute position table as stored in the checkpoint, beside a sinusoid (base 10000, interleaved) of "
            "the same shape.  `table`: the rows first_position … last_position and columns first_column … last_column as "
            "stored (float32), `similarity`: cosine similarity between those positions (all columns); the sinusoid's is "
            "Toeplitz, `by_offset.sinusoid[|p − q|]` (given whole as `sinusoid_similarity` only for an odd width); "
            "`pca`: PC1/PC2 coordinates of the positions shown and the explained variance of the first 16 components "
            "(numpy SVD of the whole table, centred), `by_offset`: mean, min and max cosine similarity of positions Δ "
            "apart, `cliff`: the similarity of `position` to every position up to `beyond` past the end, where the learned "
            "table has nothing (null) and the sinusoid continues, and the rows' lengths (an even-d sinusoid's are all "
            "`sinusoid_norm`); `info`: the tensor's name, shape, dtype, sha256 and licence."
        ),
        examples=("position=300&beyond=512", "first_position=0&last_position=511&first_column=0&last_column=383"),
    )
)

warm_statistics()

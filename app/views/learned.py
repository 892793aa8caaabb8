"""A real learned position table (all-MiniLM-L6-v2's, or one the server was given) beside a
sinusoid of the same shape: its rows, the cosine similarity between positions, the principal
components of the rows, and the cliff at max_len."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.decimate import minmax_envelope
from app.core.learned import (
    cosine_similarity,
    diagonal_statistics,
    principal_components,
    row_norms,
    sinusoid_like,
    sinusoid_offset_similarity,
    sinusoid_similarity,
)
from app.learned_tables import DEFAULT_TABLE, LearnedTable, configured_tables
from app.settings import MAX_CURVE_COLUMNS, MAX_HEATMAP_CELLS
from app.web.csv_format import Columns
from app.web.params import UI, Params, per_process
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
    Literal[NAMES],  # type: ignore[valid-type]
    Field(
        description="Which learned table: 'all-minilm-l6-v2' ships with the app; the server's --learned-table and "
        "--hf-cache options add others.",
        # an enum even when only one table is configured, so the page draws a menu
        json_schema_extra={"enum": list(NAMES)},
    ),
    UI("Table"),
]


class LearnedParams(Params):
    model: Model = DEFAULT_TABLE
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
    ] = 511
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
    ] = 383
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
    ] = 256


@per_process
def table_statistics(name: str) -> dict[str, Any]:
    """What depends on the whole table only: computed once per process."""
    rows = TABLES[name].positions
    pca = principal_components(rows, COMPONENTS)
    return {
        "pca": pca,
        "norms": row_norms(rows),
        "by_offset": diagonal_statistics(rows, normalise=True),
    }


@per_process
def sinusoid_statistics(max_len: int, dim: int) -> dict[str, Any]:
    table = sinusoid_like(max_len, dim, SINUSOID_BASE)
    return {"pca": principal_components(table, COMPONENTS), "norms": row_norms(table)}


def _curve(values: np.ndarray, x: np.ndarray) -> dict[str, Any]:
    envelope = minmax_envelope(values, MAX_CURVE_COLUMNS)
    start, stop = envelope["start"], envelope["stop"]
    return {"x_low": x[start], "x_high": x[stop - 1], "low": envelope["low"], "high": envelope["high"]}


def _pca_part(pca: dict[str, np.ndarray]) -> dict[str, Any]:
    ratio = pca["explained_variance_ratio"]
    return {
        "pc1": pca["coordinates"][:, 0],
        "pc2": pca["coordinates"][:, 1] if pca["coordinates"].shape[1] > 1 else np.zeros(len(pca["coordinates"])),
        "explained_variance_ratio": ratio[:COMPONENTS],
        "cumulative": np.cumsum(ratio)[:COMPONENTS],
    }


def pc_rotation(pca: dict[str, np.ndarray]) -> tuple[float | None, float]:
    """(positions per turn, share of steady steps) of the walk through the PC1/PC2 plane.

    The step from position p to p + 1 turns by the wrapped angle between their (PC1, PC2) points;
    when at least 90% of the steps turn the same way the walk is a steady rotation and its period
    is 2π / |median step|; otherwise the period is None.
    """
    coordinates = pca["coordinates"]
    if coordinates.shape[1] < 2 or len(coordinates) < 3:
        return None, 0.0
    angle = np.arctan2(coordinates[:, 1], coordinates[:, 0])
    step = np.angle(np.exp(1j * np.diff(angle)))
    median = float(np.median(step))
    steady = float(np.mean(np.sign(step) == np.sign(median))) if median else 0.0
    return (2 * np.pi / abs(median) if steady >= 0.9 else None), steady


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
        sinusoid_cos = sinusoid_offset_similarity(extent - p, d, SINUSOID_BASE)
    else:
        sin_rows = sinusoid_like(len(extent), d, SINUSOID_BASE)
        sinusoid_cos = cosine_similarity(sin_rows[p : p + 1], sin_rows)[0]
    learned_norm = np.full(len(extent), np.nan)
    learned_norm[:n] = stats["norms"]
    sinusoid_norm = row_norms(sinusoid_like(len(extent), d, SINUSOID_BASE)) if d % 2 else np.full(len(extent), np.sqrt(d / 2))

    period, steady = pc_rotation(stats["pca"])
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
        "sinusoid_similarity": sinusoid_similarity(positions, d, SINUSOID_BASE),
        "sinusoid_base": SINUSOID_BASE,
        "pca": {"learned": _pca_part(stats["pca"]), "sinusoid": _pca_part(sin_stats["pca"])},
        "by_offset": {
            "offsets": offsets,
            "learned_mean": by_offset["mean"],
            "learned_low": by_offset["low"],
            "learned_high": by_offset["high"],
            "sinusoid": sinusoid_offset_similarity(offsets, d, SINUSOID_BASE) if d % 2 == 0 else None,
        },
        "neighbour_similarity": {
            "learned": float(by_offset["mean"][1]),
            "sinusoid": float(sinusoid_offset_similarity(np.array([1]), d, SINUSOID_BASE)[0]) if d % 2 == 0 else None,
        },
        "pc12_period": period,
        "pc12_turns": (n - 1) / period if period else None,
        "pc12_steady_share": steady,
        "position": p,
        "beyond": params.beyond,
        "first_missing_position": n,
        "cliff": {
            "decimated": len(extent) > MAX_CURVE_COLUMNS,
            "learned": _curve(learned_cos, extent),
            "sinusoid": _curve(sinusoid_cos, extent),
            "learned_norm": _curve(learned_norm, extent),
            "sinusoid_norm": _curve(sinusoid_norm, extent),
        },
        "row": rows[p],
    }


def learned_csv(data: dict[str, Any]):
    """The table window as stored: one row per position, one column per feature shown."""
    columns = [int(c) for c in data["columns"]]
    header = ["position", *(f"col{c}" for c in columns)]
    return header, Columns(np.asarray(data["positions"], dtype=np.int64), np.asarray(data["table"], dtype=np.float64))


register(
    View(
        name="learned",
        title="A real learned table",
        summary="A trained model's position table: rows that only roughly follow their neighbours, and nothing past max_len.",
        short_title="Learned",
        section="Other families",
        order=115,
        api_path="/api/learned",
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
            "stored (float32), `similarity` / `sinusoid_similarity`: cosine similarity between those positions (all "
            "columns), `pca`: PC1/PC2 coordinates of every row and the explained variance of the first 16 components "
            "(numpy SVD of the centred rows), `by_offset`: mean, min and max cosine similarity of positions Δ apart, "
            "`cliff`: the similarity of `position` to every position up to `beyond` past the end, where the learned table "
            "has nothing (null) and the sinusoid continues; `info`: the tensor's name, shape, dtype, sha256 and licence."
        ),
        examples=("position=300&beyond=512", "first_position=0&last_position=63&first_column=0&last_column=63"),
    )
)

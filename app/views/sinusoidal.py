"""The sinusoidal absolute encoding table, in the three layouts libraries use."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, field_validator

from app.core.sinusoidal import column_labels, sinusoid_frequencies, sinusoidal_table
from app.settings import MAX_HEATMAP_CELLS
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.csv_format import Columns
from app.web.fields import Base
from app.web.params import UI, Display, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_TABLE_CELLS = MAX_HEATMAP_CELLS * MAX_HEATMAP_CELLS


class SinusoidalParams(Params):
    seq_len: Annotated[
        int, Field(ge=1, le=MAX_HEATMAP_CELLS, description="Number of positions (rows)."), UI("Positions")
    ] = 100
    dim: Annotated[
        int,
        Field(ge=1, le=1024, description="Model dimension d (columns); seq_len × dim ≤ 262144."),
        UI("Dimension d"),
        Bound(le=f"{MAX_TABLE_CELLS} // seq_len", why=f"seq_len × dim is at most {MAX_TABLE_CELLS} cells"),
    ] = 64
    base: Base = 10000.0
    layout: Annotated[
        Literal["interleaved", "concatenated", "tensor2tensor"],
        Field(
            description="'interleaved': sin, cos alternate (Vaswani; DistilBERT). 'concatenated': all sines "
            "then all cosines (Marian, RoFormer). 'tensor2tensor': sines then cosines with timescales spread "
            "evenly in log space from 1 to base (t2t, Whisper, fairseq)."
        ),
        UI("Layout"),
    ] = "interleaved"
    start: Annotated[
        int, Field(ge=0, le=10_000_000, description="First position: row p holds position start + p."), UI("First position", kind="log")
    ] = 0


class SinusoidalDisplay(Display):
    plot: Annotated[Literal["heatmap", "curves"], Field(description="Heatmap of the table or curves of chosen columns."), UI("View")] = "heatmap"
    dims: Annotated[
        tuple[int, ...],
        Field(min_length=1, max_length=8, description="Columns drawn in the curve view."),
        UI("Curve columns", kind="list", help="Up to 8 column indices, comma-separated."),
    ] = (0, 1, 6, 7)

    @field_validator("dims")
    @classmethod
    def _non_negative(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if any(column < 0 or column >= 1024 for column in value):
            raise ValueError("column indices must be between 0 and 1023")
        return value


class SinusoidalAnswer(Answer, echoes=SinusoidalParams):
    """The sinusoidal position table and what each of its columns holds."""

    seq_len: Echo
    dim: Echo
    base: Echo
    layout: Echo
    start: Echo
    positions: Ints = doc("The position of each row: start, start + 1, …")
    frequencies: Floats = doc("Angular frequency w_i of each sine/cosine pair, in radians per position.")
    shortest_wavelength: float | None = doc("2π / the largest w_i: positions per turn of the fastest pair (null without one).")
    longest_wavelength: float | None = doc("2π / the smallest w_i: positions per turn of the slowest pair (null without one).")
    columns: list[str] = doc("What each column holds, e.g. 'sin w_0'.")
    table: Matrix = doc("One row per position, one column per dimension.")


def compute_table(params: SinusoidalParams) -> dict[str, Any]:
    positions = np.arange(params.start, params.start + params.seq_len)
    frequencies = sinusoid_frequencies(params.dim, params.base, params.layout)
    return {
        "seq_len": params.seq_len,
        "dim": params.dim,
        "base": params.base,
        "layout": params.layout,
        "start": params.start,
        "positions": positions,
        "frequencies": frequencies,
        # Positions per full turn of the fastest and the slowest sinusoid (2π/w).
        # (None for tensor2tensor at d = 1: it has no timescale.)
        "shortest_wavelength": float(2 * np.pi / frequencies.max()) if frequencies.size else None,
        "longest_wavelength": float(2 * np.pi / frequencies.min()) if frequencies.size else None,
        "columns": column_labels(params.dim, params.layout),
        "table": sinusoidal_table(positions, params.dim, params.base, params.layout),
    }


def table_csv(data: dict[str, Any]):
    header = ["position"] + [f"{c}: {label}" for c, label in enumerate(data["columns"])]
    return header, Columns(data["positions"], data["table"])


register(
    View(
        name="sinusoidal",
        title="Sinusoidal encodings",
        short_title="Sinusoids",
        summary="A fixed table of sines and cosines gives every position its own fingerprint.",
        section="Foundations",
        order=20,
        api_path="/api/sinusoidal/table",
        answer=SinusoidalAnswer,
        params=SinusoidalParams,
        display=SinusoidalDisplay,
        compute=compute_table,
        formulas=(
            r"PE_{p,\,2i} = \sin(p\,w_i),\quad PE_{p,\,2i+1} = \cos(p\,w_i),\quad w_i = b^{-2i/d}",
            r"\text{tensor2tensor: } w_i = \exp\!\left(-\frac{i\,\ln b}{\max(d/2-1,\,1)}\right),\ "
            r"PE_p = [\sin(p\,w) \,|\, \cos(p\,w)]",
        ),
        csv=table_csv,
        api_description=(
            "The sinusoidal position table: row p is position `start + p`, columns follow `layout`. "
            "Also returns the angular frequencies and what each column holds."
        ),
        examples=("seq_len=50&dim=16", "seq_len=32&dim=8&layout=tensor2tensor&start=1000"),
    )
)

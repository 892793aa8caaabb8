"""Absolute encodings: the sinusoidal table, its Toeplitz similarity and shift matrix M_k, and a
GPT-2-style learned table with a hard maximum length."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.absolute import learned_table, shift_matrix, toeplitz_deviation
from app.core.frequencies import inverse_frequencies
from app.core.rope import rotate
from app.core.sinusoidal import column_labels, sinusoid_frequencies, sinusoidal_table
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.fields import Base, Seed
from app.web.params import UI, Params
from app.web.views import View, register


class AbsoluteParams(Params):
    seq_len: Annotated[
        int, Field(ge=1, le=128, description="Positions 0 … seq_len−1 shown."), UI("Positions")
    ] = 48
    dim: Annotated[
        int,
        Field(ge=2, le=128, multiple_of=2, description="Model dimension d (even: every sine column needs its cosine partner)."),
        UI("Dimension d", step=2),
    ] = 32
    base: Base = 10000.0
    layout: Annotated[
        Literal["interleaved", "concatenated", "tensor2tensor"],
        Field(
            description="Sinusoid layout: 'interleaved' (sin, cos alternate; Vaswani, DistilBERT), 'concatenated' (sines "
            "then cosines; Marian, RoFormer), 'tensor2tensor' (sines then cosines, timescales from 1 to base; Whisper)."
        ),
        UI("Layout"),
    ] = "interleaved"
    shift: Annotated[
        int,
        Field(ge=-100_000, le=100_000, description="Offset k of the shift matrix M_k: PE(p + k) = M_k PE(p)."),
        UI("Shift k", kind="number"),
    ] = 4
    max_len: Annotated[
        int,
        Field(ge=1, le=1024, description="Rows of the learned table (its maximum length); later positions have no vector."),
        UI("Learned table rows (max length)", kind="log"),
    ] = 40
    seed: Seed = 0


class AbsoluteAnswer(Answer, echoes=AbsoluteParams):
    """Absolute encodings added to the input: sinusoidal and learned tables, and what a shift does to them."""

    seq_len: Echo
    dim: Echo
    base: Echo
    layout: Echo
    shift: Echo
    max_len: Echo
    seed: Echo
    positions: Ints
    columns: list[str] = doc("What each column of the sinusoidal table holds.")
    frequencies: Floats = doc("Angular frequency of each sine/cosine pair.")
    table: Matrix = doc("The sinusoidal table, one row per position.")
    similarity: Matrix = doc("Dot products between the rows of the table.")
    toeplitz_deviation: float = doc("How far `similarity` is from depending on p − q alone.")
    shift_matrix: Matrix = doc("The linear map taking PE(p) to PE(p + shift).")
    shift_angles: Floats = doc("Its rotation angle in each pair.")
    shift_block_first: Matrix = doc("Its first 2 × 2 block.")
    shift_residual: Floats = doc("|M·PE(p) − PE(p + shift)| per position.")
    shift_residual_max: float = doc("Largest shift_residual.")
    shift_orthogonality: float = doc("|MᵀM − I|, the largest entry.")
    learned_rows: int = doc("Rows of the stand-in learned table (max_len).")
    learned_table: Matrix = doc("A seeded stand-in for a learned table with max_len rows.")
    learned_similarity: Matrix = doc("Dot products between its rows.")
    first_missing_position: int | None = doc("The first position of the sequence the learned table has no row for (null when it covers them all).")
    missing_positions: int = doc("Positions of the sequence beyond the learned table.")
    x_norm: float = doc("Norm of the token embedding the encodings are added to.")
    pe_norm: Floats = doc("|PE(p)| per position.")
    norm_sinusoidal: Floats = doc("|x + PE(p)| per position.")
    norm_learned: list[float | None] = doc("|x + learned(p)| per position; null where the table has no row.")
    norm_rotated: Floats = doc("|R(p)x| per position (RoPE keeps the norm).")


def compute_absolute(params: AbsoluteParams) -> dict[str, Any]:
    d, L = params.dim, params.seq_len
    positions = np.arange(L)
    table = sinusoidal_table(positions, d, params.base, params.layout)
    similarity = table @ table.T

    matrix = shift_matrix(d, params.base, params.layout, params.shift)
    direct = sinusoidal_table(positions + params.shift, d, params.base, params.layout)
    by_matrix = table @ matrix.T
    residual = np.max(np.abs(direct - by_matrix), axis=1)
    freq = sinusoid_frequencies(d, params.base, params.layout)[: d // 2]

    rows = min(L, params.max_len)
    # Only the rows shown: row p of the table is the same whatever its length (learned_table).
    learned = learned_table(rows, d, params.seed)
    x = np.random.default_rng([params.seed, 5]).standard_normal(d)
    norm_learned = np.full(L, np.nan)
    norm_learned[:rows] = np.linalg.norm(x + learned, axis=1)
    rotated = rotate(x, positions, inverse_frequencies(d, params.base), "interleaved")
    return {
        "seq_len": L,
        "dim": d,
        "base": params.base,
        "layout": params.layout,
        "shift": params.shift,
        "max_len": params.max_len,
        "seed": params.seed,
        "positions": positions,
        "columns": column_labels(d, params.layout),
        "frequencies": freq,
        "table": table,
        "similarity": similarity,
        "toeplitz_deviation": toeplitz_deviation(similarity),
        "shift_matrix": matrix,
        "shift_angles": params.shift * freq,
        "shift_block_first": matrix[np.ix_(*[_pair(d, params.layout, 0)] * 2)],
        "shift_residual": residual,
        "shift_residual_max": float(residual.max()),
        "shift_orthogonality": float(np.max(np.abs(matrix @ matrix.T - np.eye(d)))),
        "learned_rows": rows,
        "learned_table": learned,
        "learned_similarity": learned @ learned.T,
        "first_missing_position": params.max_len if params.max_len < L else None,
        "missing_positions": max(0, L - params.max_len),
        "x_norm": float(np.linalg.norm(x)),
        "pe_norm": np.linalg.norm(table, axis=1),
        "norm_sinusoidal": np.linalg.norm(x + table, axis=1),
        "norm_learned": norm_learned,
        "norm_rotated": np.linalg.norm(rotated, axis=1),
    }


def _pair(dim: int, layout: str, i: int) -> list[int]:
    """Columns (sin, cos) of pair i."""
    return [2 * i, 2 * i + 1] if layout == "interleaved" else [i, i + dim // 2]


def absolute_csv(data: dict[str, Any]):
    """Per position: the norms of x + p and the shift residual."""
    header = ["position", "norm_x_plus_sinusoid", "norm_x_plus_learned", "norm_rotated_x", "pe_norm", "shift_residual"]
    rows = []
    for m in range(data["seq_len"]):
        learned = data["norm_learned"][m]
        rows.append(
            [
                m,
                data["norm_sinusoidal"][m],
                "" if learned is None or (isinstance(learned, float) and np.isnan(learned)) else learned,
                data["norm_rotated"][m],
                data["pe_norm"][m],
                data["shift_residual"][m],
            ]
        )
    return header, rows


register(
    View(
        name="absolute",
        title="Absolute encodings",
        summary="A vector per position, added to the token: the sinusoid's rotating pairs and a learned table that simply ends.",
        short_title="Absolute",
        section="Other families",
        order=110,
        api_path="/api/absolute",
        answer=AbsoluteAnswer,
        params=AbsoluteParams,
        compute=compute_absolute,
        formulas=(
            r"x_m \leftarrow x_m + p_m",
            r"PE(p+k) = M_k\,PE(p),\quad \begin{pmatrix}\sin w(p+k)\\ \cos w(p+k)\end{pmatrix} = "
            r"\begin{pmatrix}\cos wk & \sin wk\\ -\sin wk & \cos wk\end{pmatrix}\begin{pmatrix}\sin wp\\ \cos wp\end{pmatrix}",
            r"PE(p)\cdot PE(q) = \sum_i \cos\big((p-q)\,w_i\big)",
        ),
        csv=absolute_csv,
        api_description=(
            "The sinusoidal table for positions 0 … seq_len−1 (`layout` as in `/api/sinusoidal/table`), its similarity "
            "PE·PEᵀ and how far that is from Toeplitz, the shift matrix M_k with PE(p+k) = M_k PE(p) and the largest "
            "residual per position; a seeded GPT-2-style learned table (N(0, 0.01²), `max_len` rows: positions ≥ max_len "
            "have none, so their entries are absent and their norms null) with its similarity; and ‖x + p_m‖ for a "
            "seeded token vector x, beside ‖R_m x‖ for RoPE's rotation."
        ),
        examples=("shift=1&layout=concatenated", "seq_len=64&max_len=32&dim=16", "layout=tensor2tensor&shift=100"),
    )
)

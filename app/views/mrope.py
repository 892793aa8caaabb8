"""M-RoPE (Qwen2-VL, Qwen3-VL): (t, h, w) positions for text and image patches, and rotary pairs
split among the three axes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core.frequencies import inverse_frequencies, wavelengths
from app.core.mrope import AXES, SECTION_SUM, ones_score, pair_angles, pair_axes, sequence_positions
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.csv_format import Columns
from app.web.fields import DEFAULTS, Base
from app.web.params import UI, Params
from app.web.rules import Bound, Require
from app.web.views import View, register

MAX_GRID = 32
MAX_FRAMES = 8
MAX_PATCHES = 2048
MAX_TEXT = 256
MAX_POSITION = 1_000_000

Coordinate = Annotated[int, Field(ge=0, le=MAX_POSITION)]


# Qwen2-VL's and Qwen2.5-VL's split of a 128-dim head: 16 pairs on time, 24 on height, 24 on width.
DEFAULT_SECTION = (16, 24, 24)


def default_section(data: dict[str, Any]) -> tuple[int, int, int]:
    """mrope_section when none is given: Qwen2-VL's 16/24/24 for head_dim 128, and for another head
    the same shares of its P = head_dim/2 pairs (a quarter on time, the rest halved between height and
    width), so the default always adds up to head_dim/2."""
    pairs = data.get("head_dim", DEFAULTS["head_dim"]) // 2
    if sum(DEFAULT_SECTION) == pairs:
        return DEFAULT_SECTION
    t = pairs // 4
    h = (pairs - t) // 2
    return (t, h, pairs - t - h)


def within(grid: str, default: int):
    """A patch coordinate's default: ``default``, or the last row / column when the grid is smaller."""

    def make(data: dict[str, Any]) -> int:
        return min(default, max(0, data.get(grid, MAX_GRID) - 1))

    return make


class MRopeParams(Params):
    # A box, not a slider: head_dim/2 must equal the sum of mrope_section, so the two change together.
    head_dim: Annotated[
        int,
        Field(ge=2, le=512, multiple_of=2, description="Dimension of one attention head's queries and keys (even); mrope_section adds up to head_dim/2."),
        UI("Head dimension d", kind="number", help="mrope_section must add up to d/2"),
    ] = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    mrope_section: Annotated[
        tuple[Annotated[int, Field(ge=0, le=256)], ...],
        Field(
            min_length=3,
            max_length=3,
            description="Rotary pairs per axis [t, h, w]; they must add up to head_dim/2 (Qwen2-VL: 16, 24, 24 for "
            "head_dim 128; Qwen3-VL: 24, 20, 20).  Repeat the key: mrope_section=16&mrope_section=24&mrope_section=24.  "
            "Not given: 16, 24, 24 for head_dim 128, else the same shares of head_dim/2 (a quarter on t, the rest halved "
            "between h and w).",
            default_factory=default_section,
        ),
        UI("mrope_section [t, h, w]", kind="list", help="three counts adding up to head_dim/2"),
        Require("sum(mrope_section) == head_dim // 2", SECTION_SUM.format(half="{head_dim // 2}", total="{sum(mrope_section)}")),
    ]
    layout: Annotated[
        Literal["sections", "interleaved"],
        Field(
            description="'sections': consecutive blocks of pairs per axis (Qwen2-VL, Qwen2.5-VL). 'interleaved': t, h, w "
            "take turns pair by pair, the rest stays on t (Qwen3-VL)."
        ),
        UI("Axis layout"),
    ] = "sections"
    t: Annotated[Coordinate, Field(description="Temporal index of the position whose per-pair angles `angles` lists."), UI("Position t", kind="number")] = 4
    h: Annotated[Coordinate, Field(description="Height index of that position."), UI("Position h", kind="number")] = 5
    w: Annotated[Coordinate, Field(description="Width index of that position."), UI("Position w", kind="number")] = 6
    text_before: Annotated[
        int, Field(ge=0, le=MAX_TEXT, description="Text tokens before the image (t = h = w = 0, 1, …)."), UI("Text tokens before")
    ] = 4
    grid_h: Annotated[
        int, Field(ge=1, le=MAX_GRID, description="Rows of image patches (after the 2 × 2 merge)."), UI("Patch rows")
    ] = 4
    grid_w: Annotated[
        int, Field(ge=1, le=MAX_GRID, description="Columns of image patches (after the 2 × 2 merge)."), UI("Patch columns")
    ] = 6
    frames: Annotated[
        int,
        Field(ge=1, le=MAX_FRAMES, description="Frames of the vision input: 1 for an image, more for a video (t steps by one per frame)."),
        UI("Frames (1 = image)"),
        Bound(le=f"{MAX_PATCHES} // (grid_h * grid_w)", why=f"frames × rows × columns is at most {MAX_PATCHES} patches"),
    ] = 1
    text_after: Annotated[
        int, Field(ge=0, le=MAX_TEXT, description="Text tokens after the image."), UI("Text tokens after")
    ] = 4
    query_frame: Annotated[int, Field(ge=0, le=MAX_FRAMES - 1, description="Frame of the query patch."), UI("Query patch: frame"), Bound(le="frames - 1", why="frames are numbered from 0")] = 0
    query_row: Annotated[int, Field(ge=0, le=MAX_GRID - 1, description="Row of the query patch (not given: 1, or the last row of a smaller grid).", default_factory=within("grid_h", 1)), UI("Query patch: row"), Bound(le="grid_h - 1", why="rows are numbered from 0")]
    query_col: Annotated[int, Field(ge=0, le=MAX_GRID - 1, description="Column of the query patch (not given: 2, or the last column of a narrower grid).", default_factory=within("grid_w", 2)), UI("Query patch: column"), Bound(le="grid_w - 1", why="columns are numbered from 0")]
    key_frame: Annotated[int, Field(ge=0, le=MAX_FRAMES - 1, description="Frame of the key patch."), UI("Key patch: frame"), Bound(le="frames - 1", why="frames are numbered from 0")] = 0
    key_row: Annotated[int, Field(ge=0, le=MAX_GRID - 1, description="Row of the key patch (not given: 3, or the last row of a smaller grid).", default_factory=within("grid_h", 3)), UI("Key patch: row"), Bound(le="grid_h - 1", why="rows are numbered from 0")]
    key_col: Annotated[int, Field(ge=0, le=MAX_GRID - 1, description="Column of the key patch (not given: 5, or the last column of a narrower grid).", default_factory=within("grid_w", 5)), UI("Key patch: column"), Bound(le="grid_w - 1", why="columns are numbered from 0")]


class Axes(Answer):
    """One integer per axis: time, height, width."""

    t: int
    h: int
    w: int


class MRopeSequence(Answer):
    """Every token of the text–image–text sequence with its three position ids."""

    kind: list[str] = doc("'text' or 'vision' per token.")
    t: Ints
    h: Ints
    w: Ints
    frame: Ints
    row: Ints
    col: Ints


class MRopeAnswer(Answer, echoes=MRopeParams):
    """Multimodal RoPE (Qwen2-VL): pairs split between time, height and width position ids."""

    head_dim: Echo
    base: Echo
    mrope_section: Echo
    layout: Echo
    t: Echo
    h: Echo
    w: Echo
    text_before: Echo
    grid_h: Echo
    grid_w: Echo
    frames: Echo
    text_after: Echo
    query_frame: Echo
    query_row: Echo
    query_col: Echo
    key_frame: Echo
    key_row: Echo
    key_col: Echo
    inv_freq: Floats = doc("θ_j of each pair.")
    wavelengths: Floats = doc("2π/θ_j of each pair.")
    axis: list[str] = doc("The axis ('t', 'h' or 'w') each pair reads its position from.")
    axis_index: Ints = doc("The same as 0, 1, 2.")
    section_counts: Axes = doc("Pairs per axis.")
    position: Axes = doc("The position (t, h, w) drawn.")
    angles: Floats = doc("Rotation angle of each pair at `position`.")
    sequence: MRopeSequence
    tokens: int = doc("Tokens in the sequence.")
    vision_start: int = doc("Index of the first vision token.")
    next_position: int = doc("The position id the next text token gets.")
    rope_delta: int = doc("next_position − tokens (transformers' rope_deltas).")
    query: Axes
    key: Axes
    offset: Axes = doc("key − query per axis.")
    delta_angles: Floats = doc("Angle of each pair between query and key.")
    score: float = doc("q·k of the query and key (all-ones vectors) at their 3-D positions.")
    grid_scores: Matrix = doc("Score of the query against every patch of the key's frame.")
    grid_scores_1d: Matrix = doc("The same with 1-D RoPE over the flattened sequence.")
    flat_offset: int = doc("Key − query in the flattened 1-D sequence.")


def compute_mrope(params: MRopeParams) -> dict[str, Any]:
    d = params.head_dim
    inv_freq = inverse_frequencies(d, params.base)
    axes = pair_axes(d, params.mrope_section, params.layout)
    position = np.array([params.t, params.h, params.w])
    sequence = sequence_positions(params.text_before, (params.frames, params.grid_h, params.grid_w), params.text_after)
    positions = sequence["positions"]
    start = int(sequence["vision_start"])  # text_before, an int (the core's dict is typed as arrays)

    query = np.array([params.query_frame, params.query_row, params.query_col]) + start
    key = np.array([params.key_frame, params.key_row, params.key_col]) + start
    rows, cols = np.meshgrid(np.arange(params.grid_h), np.arange(params.grid_w), indexing="ij")
    frame_patches = np.stack([np.full(rows.size, params.query_frame), rows.ravel(), cols.ravel()], axis=1) + start
    grid_scores = ones_score(query, frame_patches, axes, inv_freq).reshape(params.grid_h, params.grid_w)
    # The same patches under plain 1-D RoPE, numbered by their place in the sequence (raster order).
    def flat(frame: int, row: int, col: int) -> int:
        return start + (frame * params.grid_h + row) * params.grid_w + col

    one_d_axes = np.zeros(d // 2, dtype=np.int64)
    flat_query = np.array([flat(params.query_frame, params.query_row, params.query_col)] * 3)
    flat_keys = np.repeat(np.array([flat(params.query_frame, int(r), int(c)) for r, c in zip(rows.ravel(), cols.ravel(), strict=True)])[:, None], 3, axis=1)
    grid_scores_1d = ones_score(flat_query, flat_keys, one_d_axes, inv_freq).reshape(params.grid_h, params.grid_w)

    delta = key - query
    counts = np.bincount(axes, minlength=3)
    return {
        **params.model_dump(),
        "inv_freq": inv_freq,
        "wavelengths": wavelengths(inv_freq),
        "axis": [AXES[a] for a in axes],
        "axis_index": axes,
        "section_counts": {name: int(counts[i]) for i, name in enumerate(AXES)},
        "position": {"t": params.t, "h": params.h, "w": params.w},
        "angles": pair_angles(position[None, :], axes, inv_freq)[0],
        "sequence": {
            "kind": ["text" if k == 0 else "vision" for k in sequence["kind"]],
            "t": positions[:, 0],
            "h": positions[:, 1],
            "w": positions[:, 2],
            "frame": sequence["frame"],
            "row": sequence["row"],
            "col": sequence["col"],
        },
        "tokens": len(positions),
        "vision_start": start,
        "next_position": sequence["next_position"],
        # transformers' mrope_position_deltas: how far the ids run behind (negative) the token count
        "rope_delta": int(positions.max() + 1 - len(positions)) if len(positions) else 0,
        "query": {"t": int(query[0]), "h": int(query[1]), "w": int(query[2])},
        "key": {"t": int(key[0]), "h": int(key[1]), "w": int(key[2])},
        "offset": {"t": int(delta[0]), "h": int(delta[1]), "w": int(delta[2])},
        "delta_angles": pair_angles(delta[None, :], axes, inv_freq)[0],
        "score": float(ones_score(query, key[None, :], axes, inv_freq)[0]),
        "grid_scores": grid_scores,
        "grid_scores_1d": grid_scores_1d,
        "flat_offset": flat(params.key_frame, params.key_row, params.key_col) - flat(params.query_frame, params.query_row, params.query_col),
    }


def mrope_csv(data: dict[str, Any]):
    """One row per token: its kind and its (t, h, w)."""
    seq = data["sequence"]
    kinds = np.array([0 if kind == "text" else 1 for kind in seq["kind"]], dtype=np.int64)
    header = ["token", "vision", "t", "h", "w", "frame", "row", "col"]
    n = len(kinds)
    return header, Columns(
        np.arange(n),
        kinds,
        *(np.asarray(seq[name], dtype=np.int64) for name in ("t", "h", "w", "frame", "row", "col")),
    )


register(
    View(
        name="mrope",
        title="M-RoPE: positions in time, height and width",
        summary="Qwen2-VL gives every token a (t, h, w) triple and splits the rotating pairs among the three axes.",
        short_title="M-RoPE",
        section="Rotary",
        order=80,
        api_path="/api/rope/mrope",
        answer=MRopeAnswer,
        params=MRopeParams,
        compute=compute_mrope,
        formulas=(
            r"\phi_j(t,h,w) = \mathrm{pos}_{a(j)}\,\theta_j,\quad \theta_j = b^{-2j/d},\quad a(j) \in \{t, h, w\}",
            r"\text{sections: } a(j) = \begin{cases} t & j < s_t \\ h & s_t \le j < s_t + s_h \\ w & \text{otherwise} \end{cases}",
            r"\langle R(x)\,\mathbf{1}, R(y)\,\mathbf{1}\rangle = 2\sum_j \cos\big((y_{a(j)} - x_{a(j)})\,\theta_j\big)",
        ),
        csv=mrope_csv,
        api_description=(
            "Multimodal RoPE as Hugging Face's Qwen2-VL (`layout=sections`) and Qwen3-VL (`layout=interleaved`) code "
            "computes it: `axis` ('t', 'h' or 'w' per rotary pair) and `angles` (per pair, radians: the given (t, h, w) "
            "on that pair's axis times θ_j = base^(−2j/head_dim)).  `sequence` lists the (t, h, w) that get_rope_index "
            "gives each token of [text_before text tokens][frames × grid_h × grid_w patches][text_after text tokens]; "
            "`query`/`key` are two patches, `offset` their per-axis offsets, `delta_angles` the angle between them per "
            "pair and `score` ⟨R(q)1, R(k)1⟩/√d; `grid_scores` is that score from the query patch to every patch of its "
            "frame, `grid_scores_1d` the same under plain 1-D RoPE with the tokens numbered in sequence order."
        ),
        examples=(
            "head_dim=128&base=1000000&mrope_section=16&mrope_section=24&mrope_section=24&t=10&h=12&w=20",
            "head_dim=128&base=1000000&layout=interleaved&mrope_section=24&mrope_section=20&mrope_section=20",
            "grid_h=8&grid_w=8&query_row=4&query_col=4",
        ),
    )
)

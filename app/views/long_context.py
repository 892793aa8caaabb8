"""/long-context: SmolLM2-135M's next-token loss past its trained length, under each RoPE scaling method.

The curves are precomputed by ``scripts/long_context.py`` (one 16,384-token forward pass per text and
method, minutes each on two cores) and shipped under ``app/data/smollm2-135m/long-context/``; this view
only reads them.  Nothing is run on a request, with or without the model on the server: a pass at this
length is far beyond the per-worker limits of /heads (128 tokens), so the page says how to remake them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

import numpy as np
from pydantic import Field

from app.trained import models
from app.web.answers import Answer, Echo, Floats, Ints, doc
from app.web.csv_format import Columns
from app.web.params import UI, Display, Params
from app.web.rules import Bound
from app.web.views import View, register

MODEL = models.DEFAULT
FOLDER = MODEL.data_dir / "long-context"
# The order the methods are listed and drawn in.
ORDER = ("none", "linear", "ntk", "yarn", "dynamic")
TITLES = {
    "none": "none (the model's own RoPE)",
    "linear": "linear (position interpolation)",
    "ntk": "NTK-aware base",
    "yarn": "YaRN",
    "dynamic": "dynamic NTK",
}


@lru_cache(maxsize=1)
def _meta() -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((FOLDER / "meta.json").read_text())
    return meta


@lru_cache(maxsize=4)
def _arrays(text: str) -> dict[str, np.ndarray]:
    with np.load(FOLDER / f"{text}.npz") as z:
        return {key: z[key] for key in z.files}


def _methods() -> tuple[str, ...]:
    """The methods whose curve is shipped for every text (a run stopped early ships fewer)."""
    texts = [t["id"] for t in _meta()["texts"]]
    return tuple(m for m in ORDER if m in _meta()["methods"] and all(f"loss_{m}" in _arrays(t) for t in texts))


# Every shipped text is this long and its bins are this wide (the window's ends snap to bin edges).
LENGTH = max(int(t["n_tokens"]) for t in _meta()["texts"])
BIN = 256

# A Literal built from the shipped data is a run-time type: mypy reads the field as the str it is.
if TYPE_CHECKING:
    TextId: TypeAlias = str
else:
    TextId = Literal[tuple(t["id"] for t in _meta()["texts"])]


class LongContextParams(Params):
    text: Annotated[
        TextId,
        Field(
            description="Which shipped text the model read: "
            + "; ".join(f"'{t['id']}': {t['label']}" for t in _meta()["texts"])
            + "."
        ),
        UI("Text"),
    ] = "copy"
    window_start: Annotated[
        int,
        Field(ge=0, le=LENGTH - BIN, multiple_of=BIN, description=f"First position of the window whose mean loss the table gives (a multiple of {BIN})."),
        UI("Window from position", kind="slider", step=BIN),
    ] = 8192
    window_end: Annotated[
        int,
        Field(ge=BIN, le=LENGTH, multiple_of=BIN, description=f"End (exclusive) of that window (a multiple of {BIN}, after window_start)."),
        UI("Window to position", kind="slider", step=BIN),
        Bound(ge=f"window_start + {BIN}", why=f"the window holds at least one bin of {BIN} positions"),
    ] = LENGTH


def _drawn(method: str) -> Any:
    return Field(description=f"Draw the curve of {TITLES[method]}.")


class LongContextDisplay(Display):
    show_none: Annotated[bool, _drawn("none"), UI("Show none")] = True
    show_linear: Annotated[bool, _drawn("linear"), UI("Show linear")] = True
    show_ntk: Annotated[bool, _drawn("ntk"), UI("Show ntk")] = True
    show_yarn: Annotated[bool, _drawn("yarn"), UI("Show yarn")] = True
    show_dynamic: Annotated[bool, _drawn("dynamic"), UI("Show dynamic")] = True


class LongContextText(Answer):
    """One shipped text."""

    id: str
    label: str
    n_tokens: int
    source: str
    license: str


class LongContextRun(Answer):
    """How the curves were made."""

    command: str = doc("The command that remakes the curves (scripts/long_context.py).")
    seconds: dict[str, float] = doc("Seconds of each pass, keyed 'text/method'.")
    peak_rss_mb: float = doc("The script's largest resident memory, in MB.")
    attention: str = doc("How the forward pass was computed.")
    dynamic_reading: str = doc("Which reading of dynamic NTK the curves use.")


class MethodParameters(Answer):
    """One method's parameters as app.core.scaling resolved them for this run."""

    rope_type: str = doc("The registry's method name ('default' for none).")
    rope_theta: float = doc("The model's RoPE base (from the GGUF).")
    attention_factor: float = doc("The number cos and sin are multiplied by (q·k by its square); 1 except for YaRN.")
    inv_freq_first_last: Floats = doc("The fastest and the slowest pair's frequency θ_0, θ_31 after scaling.")
    factor: float | None = doc("The scaling factor s = length / trained length (every method but none).", optional=True)
    base: float | None = doc("The raised base (ntk; dynamic at seq_len).", optional=True)
    seq_len: int | None = doc("The length dynamic NTK was resolved at (the whole text).", optional=True)
    max_position_embeddings: int | None = doc("The length dynamic NTK measures against (dynamic).", optional=True)
    original_max_position_embeddings: int | None = doc("YaRN's original length.", optional=True)
    beta_fast: float | None = doc("YaRN's beta_fast.", optional=True)
    beta_slow: float | None = doc("YaRN's beta_slow.", optional=True)
    ramp_low: float | None = doc("YaRN's first ramped pair (pairs below keep θ).", optional=True)
    ramp_high: float | None = doc("YaRN's last ramped pair (pairs above are divided by s).", optional=True)


class CopyControls(Answer):
    """The copy task inside the trained length, with the model's own RoPE: how far back it copies at all."""

    distances: Ints = doc("Repeat distances: random tokens of this many, then the same again.")
    repeat_loss: Floats = doc("Mean loss over each repeat after its first token (nats).")


class LongContextAnswer(Answer, echoes=LongContextParams):
    """SmolLM2-135M-Instruct's mean next-token loss per bin of positions on one text, for each scaling method."""

    texts: list[str] = doc("The shipped text ids.")
    text: Echo
    text_info: LongContextText
    trained_length: int = doc("The GGUF's llama.context_length: the length the model was trained on (8192).")
    length: int = doc("Tokens in the text.")
    token_ids: Ints = doc("The text's token ids.")
    bin_edges: Ints = doc("Bin i holds the positions t with bin_edges[i] ≤ t < bin_edges[i+1] (at most 256 each).")
    bin_centres: Floats = doc("The middle of each bin, (bin_edges[i] + bin_edges[i+1] − 1) / 2.")
    loss: dict[str, Floats] = doc(
        "For each method, one value per bin: the mean over its positions t of −log p(token t+1 | tokens 0..t), in nats."
    )
    methods: dict[str, MethodParameters] = doc(
        "For each method, the parameters app.core.scaling resolved: rope_type, factor, base or attention factor."
    )
    method_titles: dict[str, str] = doc("A readable name of each method.")
    mean_before: dict[str, float] = doc("For each method, the mean loss over positions t < trained_length.")
    mean_past: dict[str, float] = doc("For each method, the mean loss over positions t ≥ trained_length (what it exists for).")
    window_start: Echo
    window_end: int = doc("End (exclusive) of the window the mean is taken over: window_end, or the end of the measured positions when that comes first.")
    mean_window: dict[str, float] = doc("For each method, the mean loss over positions window_start ≤ t < window_end.")
    best: str = doc("The scaling method (not none) with the lowest mean_past.")
    best_mean_past: float = doc("mean_past of best.")
    none_mean_past: float = doc("mean_past of none.")
    second_half: int | None = doc("Where the copy task's repeat starts (its second half); null for a natural text.")
    copy_controls: CopyControls = doc(
        "The copy task at shorter repeat distances, all inside the trained length, with the model's own RoPE."
    )
    run: LongContextRun
    precomputed: bool = doc("Always true: the curves are read from the shipped data, never computed on a request.")


def _weighted_mean(values: np.ndarray, edges: np.ndarray, lo: int, hi: int) -> float:
    """Mean over positions in [lo, hi) of the per-bin means, each weighted by its bin's size (bins lie
    inside or outside the range: the edges are multiples of 256 and trained_length is one)."""
    sizes = np.diff(edges)
    inside = (edges[:-1] >= lo) & (edges[1:] <= hi)
    return float(np.sum(values[inside] * sizes[inside]) / np.sum(sizes[inside]))


@lru_cache(maxsize=4)
def _compute(text: str) -> dict[str, Any]:
    meta = _meta()
    arr = _arrays(text)
    info = next(t for t in meta["texts"] if t["id"] == text)
    edges = arr["bin_edges"].astype(np.int64)
    L0 = int(meta["trained_length"])
    T = len(arr["token_ids"])
    methods = _methods()
    loss = {m: arr[f"loss_{m}"].astype(np.float64) for m in methods}
    before = {m: _weighted_mean(v, edges, 0, L0) for m, v in loss.items()}
    past = {m: _weighted_mean(v, edges, L0, T) for m, v in loss.items()}
    scaled = [m for m in methods if m != "none"] or ["none"]
    best = min(scaled, key=lambda m: past[m])
    runs = meta.get("runs", {})
    controls = _arrays("copy")
    return {
        "texts": [t["id"] for t in meta["texts"]],
        "text": text,
        "text_info": {key: info[key] for key in ("id", "label", "n_tokens", "source", "license")},
        "trained_length": L0,
        "length": T,
        "token_ids": arr["token_ids"].astype(np.int64),
        "bin_edges": edges,
        "bin_centres": (edges[:-1] + edges[1:] - 1) / 2.0,
        "loss": loss,
        "methods": {m: meta["methods"][m] for m in methods},
        "method_titles": {m: TITLES[m] for m in methods},
        "mean_before": before,
        "mean_past": past,
        "best": best,
        "best_mean_past": past[best],
        "none_mean_past": past.get("none", float("nan")),
        "second_half": T // 2 if text == "copy" else None,
        "copy_controls": {
            "distances": controls["control_halves"].astype(np.int64),
            "repeat_loss": controls["control_repeat_loss"].astype(np.float64),
        },
        "run": {
            "command": meta["command"],
            "seconds": {key: float(value["seconds"]) for key, value in runs.items() if key.split("/")[1] in ORDER},
            "peak_rss_mb": float(max((value["peak_rss_mb_so_far"] for value in runs.values()), default=0)),
            "attention": meta["attention"],
            "dynamic_reading": meta["dynamic_reading"],
        },
        "precomputed": True,
    }


def compute_long_context(params: LongContextParams) -> dict[str, Any]:
    data = _compute(params.text)
    edges = data["bin_edges"]
    # The last position has no next token, so the last bin ends one short of the text.
    lo, hi = params.window_start, min(params.window_end, int(edges[-1]))
    window = {m: _weighted_mean(v, edges, lo, hi) for m, v in data["loss"].items()}
    return {**data, "window_start": lo, "window_end": hi, "mean_window": window}


def long_context_csv(data: dict[str, Any]):
    methods = list(data["loss"])
    edges = np.asarray(data["bin_edges"])
    header = ["bin start", "bin end (exclusive)", *(f"loss {m} (nats)" for m in methods)]
    return header, Columns(edges[:-1], edges[1:], np.column_stack([data["loss"][m] for m in methods]))


register(
    View(
        name="long-context",
        title="Past the trained length: a real model's loss under each scaling method",
        short_title="Past the trained length",
        summary="SmolLM2-135M's next-token loss up to twice its trained length, with and without position interpolation, NTK, YaRN and dynamic NTK.",
        section="Context extension",
        order=240,
        api_path="/api/model/long-context",
        answer=LongContextAnswer,
        params=LongContextParams,
        display=LongContextDisplay,
        compute=compute_long_context,
        csv=long_context_csv,
        formulas=(
            r"\ell_t = -\log p(x_{t+1} \mid x_0, \dots, x_t)",
            r"\bar\ell_i = \frac{1}{e_{i+1}-e_i} \sum_{t=e_i}^{e_{i+1}-1} \ell_t",
            r"s = T / L_0 = 16384 / 8192 = 2",
        ),
        api_description=(
            "Precomputed by scripts/long_context.py (never on a request): for the shipped `text`, `loss` holds, for each "
            "scaling method, the mean next-token loss (nats) of SmolLM2-135M-Instruct in each bin of `bin_edges` "
            "(256 positions), over a text of twice the trained length; `methods` gives each method's parameters as "
            "app.core.scaling resolved them (factor s = length / trained_length), `mean_past` the mean loss past "
            "`trained_length`, `best` the scaling method with the lowest."
        ),
        examples=("text=copy", "text=python-docs&window_start=8192&window_end=9216"),
    )
)

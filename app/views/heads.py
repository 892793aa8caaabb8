"""/heads: SmolLM2-135M's own attention heads from shipped pre-rotation q and k, and RoPE surgery on them.

With the model on the server (app/trained/runner.py), ``text=custom`` runs ``custom_text`` (1 to 128 of
the file's tokens) through the numpy forward pass: seconds, one pass at a time per worker, progress at
``/api/model/heads/progress``, the result kept by text.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

import numpy as np
from fastapi import Query
from pydantic import Field, model_validator
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from app.core import heads, scaling
from app.core.frequencies import inverse_frequencies
from app.trained import models
from app.trained import runner as model_runner
from app.web.answers import Answer, Echo, Floats, Ints, MaskedMatrix, Matrix, doc
from app.web.csv_format import Columns
from app.web.params import UI, Params
from app.web.responses import JSONBytes, dumps
from app.web.rules import Bound, Require
from app.web.views import View, register, route

MODEL = models.DEFAULT
_META = MODEL.heads.meta
# The model this worker runs for a text of your own, or none (decided once, from the settings).
RUNNER = MODEL.runner
CUSTOM = RUNNER.available
# 'custom' is in the schema on every server (one schema, one generated client); a server without the model
# answers it 503 with the reason, and its page does not offer it (UI options).
SHIPPED_TEXTS = tuple(MODEL.heads.text_ids())
# A Literal built from the shipped data is a run-time type: mypy reads the field as the str it is.
if TYPE_CHECKING:
    TextId: TypeAlias = str
else:
    TextId = Literal[SHIPPED_TEXTS + ("custom",)]
NO_MODEL = f"This server has no model to read a text of your own; {MODEL.how_to_add}"
DEFAULT_CUSTOM_TEXT = "The capital of France is Paris."


class CustomTextError(ValueError):
    """A text of your own the model cannot take; names the field (app.web.errors reads ``field``)."""

    field = "custom_text"
HALF = _META["head_dim"] // 2
LAYERS = tuple(int(layer) for layer in _META["layers"])
# The surgery's default reference length (SmolLM2's max_position_embeddings), and the longest text here.
SURGERY_LENGTH = 8192
MAX_TEXT_TOKENS = max(256, model_runner.MAX_TOKENS)


class HeadsParams(Params):
    text: Annotated[
        TextId,
        Field(
            description="Which shipped text the model read; 'custom': custom_text, run through the model on the server (a "
            "server without the model answers 503 saying how to add it)."
        ),
        UI("Text", options=None if CUSTOM else SHIPPED_TEXTS),
    ] = "random-repeated"
    custom_text: Annotated[
        str,
        Field(
            max_length=model_runner.MAX_CHARS,
            description=f"With text=custom: the text the model reads, 1 to {model_runner.MAX_TOKENS} of its tokens.",
        ),
        UI(
            "Your text",
            kind="text" if CUSTOM else "hidden",
            help=f"Up to {model_runner.MAX_TOKENS} tokens, read when Text is custom; applied on Enter or on leaving the box.",
        ),
        Require("text != 'custom' or words(custom_text) > 0", "Type a text for the model to read"),
    ] = DEFAULT_CUSTOM_TEXT
    layer: Annotated[
        int,
        Field(description=f"Layer: one of the shipped layers {', '.join(map(str, LAYERS))}.", json_schema_extra={"enum": list(LAYERS)}),
        UI("Layer", kind="select"),
        Require(f"layer in {LAYERS!r}", f"layer must be one of the shipped layers {', '.join(map(str, LAYERS))}"),
    ] = 3
    head: Annotated[int, Field(ge=0, le=_META["n_head"] - 1, description="Query head."), UI("Head")] = 0
    # The surgery's own names (not rope_type, base, factor): those mean a model's RoPE with one default
    # on every endpoint (app/web/fields.py DEFAULTS); here the model's RoPE is fixed and these change it.
    surgery_rope_type: Annotated[
        Literal["none", "default", "linear", "dynamic", "yarn", "llama3"],
        Field(description="Surgery through the scaling registry: 'none' keeps the model's RoPE."),
        UI("Surgery method"),
    ] = "none"
    surgery_base: Annotated[
        float, Field(ge=2.0, le=1e9, description="RoPE base of the surgery (the model's own: 100000)."), UI("Surgery base", kind="log")
    ] = 100000.0
    surgery_factor: Annotated[
        float, Field(ge=1.0, le=64.0, description="Scaling factor of the surgery (linear, dynamic, yarn, llama3)."), UI("Factor")
    ] = 4.0
    surgery_length: Annotated[
        int,
        Field(ge=2, le=SURGERY_LENGTH, description=f"Reference length of the surgery: dynamic NTK's max_position_embeddings "
              f"(it changes θ only on texts longer than this) and yarn's and llama3's original_max_position_embeddings "
              f"(the model's own is {SURGERY_LENGTH}; the texts here are at most {MAX_TEXT_TOKENS} tokens, so dynamic acts "
              "only below that)."),
        UI("Surgery reference length", kind="log", unit="tokens"),
    ] = SURGERY_LENGTH
    band_lo: Annotated[int, Field(ge=-1, le=HALF - 1, description="First pair of the band (-1: no band)."), UI("Band from pair")] = -1
    band_hi: Annotated[
        int, Field(ge=0, le=HALF - 1, description="Last pair of the band (at least band_lo)."), UI("Band to pair"),
        Bound(ge="band_lo", why="the band runs from band_lo to band_hi"),
    ] = 0
    band_mode: Annotated[Literal["unrotated", "dropped"], Field(description="What the band's pairs do."), UI("Band")] = "unrotated"

    @model_validator(mode="after")
    def _check(self):
        if self.text == "custom" and self.custom_text.split() and CUSTOM:
            try:
                count = len(RUNNER.encode(self.custom_text))
            except model_runner.PassStopped as exc:
                raise CustomTextError(exc.message) from exc
            if count > model_runner.MAX_TOKENS:
                raise CustomTextError(f"The text is {count} tokens long; the model reads at most {model_runner.MAX_TOKENS}")
        if self.surgery_rope_type != "none":
            try:
                scaling.validate(self.rope_config(), None)
            except scaling.ScalingError as exc:
                raise ValueError(str(exc)) from exc
        return self

    def rope_config(self) -> scaling.RopeConfig | None:
        if self.surgery_rope_type == "none":
            return None
        extra: dict[str, Any] = {}
        if self.surgery_rope_type != "default":
            extra["factor"] = self.surgery_factor
        if self.surgery_rope_type in ("yarn", "llama3"):
            extra["original_max_position_embeddings"] = self.surgery_length
        if self.surgery_rope_type == "llama3":
            extra.update(low_freq_factor=1.0, high_freq_factor=4.0)
        return scaling.RopeConfig(
            rope_type=self.surgery_rope_type, rope_theta=self.surgery_base, head_dim=_META["head_dim"],
            max_position_embeddings=self.surgery_length, **extra
        )

    @property
    def surgery(self) -> bool:
        return self.surgery_rope_type != "none" or self.band_lo >= 0


def _null_upper(w: np.ndarray) -> np.ndarray:
    """The causal weights as float64 with NaN above the diagonal (serialised as null)."""
    return np.where(np.tri(len(w), dtype=bool), w.astype(np.float64), np.nan)


# θ_j of the model's pairs: fixed by the file, so computed once.
THETA = inverse_frequencies(_META["head_dim"], _META["rope_base"])


def _layer_qk(arr: dict[str, Any], layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The stored pre-rotation q (heads, T, d) and k (kv heads, T, d) of one layer, as float32."""
    li = _META["layers"].index(int(layer))
    return arr["q"][li].astype(np.float32), arr["k"][li].astype(np.float32)


def _layer_statistics(arr: dict[str, Any], layer: int) -> tuple[tuple[dict[str, Any], ...], np.ndarray]:
    """Every head's class and pair energy in one layer: the same whatever the surgery."""
    H, Hk = _META["n_head"], _META["n_kv_head"]
    inv = THETA
    q_all, k_all = _layer_qk(arr, layer)
    classes, energy = [], []
    for h in range(H):
        kh = k_all[heads.kv_head(h, H, Hk)]
        wh = heads.attention(q_all[h], kh, inv)
        classes.append({"head": h, "class": heads.classify(wh), **heads.mass(wh)})
        energy.append(heads.pair_energy(q_all[h], kh))
    return tuple(classes), np.array(energy)


@lru_cache(maxsize=64)
def _shipped_layer_statistics(text: str, layer: int) -> tuple[tuple[dict[str, Any], ...], np.ndarray]:
    """:func:`_layer_statistics` of a shipped text, kept so a slider on the rotary settings does not
    recompute them (the shipped texts and layers bound the cache)."""
    return _layer_statistics(MODEL.heads.text_arrays(text), layer)


def _custom_arrays(text: str) -> dict[str, Any]:
    """The model's pass over a text of your own; no model on this server, a busy worker or a pass over its
    time limit is a 503 saying which."""
    if not CUSTOM:
        raise HTTPException(503, NO_MODEL)
    try:
        return RUNNER.run(text)
    except model_runner.ModelBusy as exc:
        raise HTTPException(503, exc.message, headers={"Retry-After": str(exc.retry_after)}) from exc
    except model_runner.PassStopped as exc:
        raise HTTPException(503, exc.message) from exc


def _pending(params: HeadsParams) -> bool:
    return CUSTOM and params.text == "custom" and not RUNNER.cached(params.custom_text)


class HeadClass(Answer):
    """One head of the layer: where its attention goes."""

    head: int
    class_: str = Field(alias="class", description="'previous-token', 'first-token' or 'other'.")
    previous: float = doc("Mean weight on the previous token.")
    first: float = doc("Mean weight on the first token.")


class HeadMass(Answer):
    """Mean attention weight on the previous token and on the first token."""

    previous: float
    first: float


class HeadSource(Answer):
    """Where the model's weights come from."""

    model: str
    source: str
    license: str
    gguf_sha256: str


class HeadsAnswer(Answer, echoes=HeadsParams):
    """One attention head of the shipped model on a text: its weights and how its RoPE pairs are used."""

    text: Echo
    custom_text: Echo = doc("The text of your own read when text is 'custom'.", optional=True)
    layer: Echo
    head: Echo
    surgery_rope_type: Echo
    surgery_base: Echo
    surgery_factor: Echo
    surgery_length: Echo
    band_lo: Echo
    band_hi: Echo
    band_mode: Echo
    token_ids: Ints = doc("The tokeniser's id of each token.")
    tokens: list[str] = doc("Each token's text.")
    n_tokens: int = doc("Number of tokens.")
    theta: Floats = doc("θ_j of each pair as the model uses it.")
    weights: MaskedMatrix = doc("Attention weights, one row per query token; null above the causal diagonal.")
    pair_energy: Floats = doc(
        "E_j = mean over positions of ‖q_j‖·‖k_j‖ for each pair j (q at a position, k at the same position): how large "
        "the pair's two 2-D pieces are together, a mean product of norms, not a share (the values do not add up to 1)."
    )
    layer_pair_energy: Matrix = doc("pair_energy of every head of the layer (rows: heads).")
    offset_scores: Floats = doc("Mean weight at each offset back from the query.")
    head_classes: list[HeadClass] = doc("Every head of the layer, classified.")
    mass: HeadMass
    divergence: float = doc("How far the weights move from the model's own when θ is changed (0 when it is not).")
    source: HeadSource
    notes: list[str] = doc("What the surgery does at this length, when it is not what one would guess (dynamic NTK below its reference length).")
    surgered_theta: Floats | None = doc("θ after the change (present when surgery_rope_type or the band changes θ).", optional=True)
    surgered_weights: MaskedMatrix | None = doc("Weights after the change.", optional=True)
    surgered_mass: HeadMass | None = doc("mass after the change.", optional=True)


def compute_heads(params: HeadsParams) -> dict[str, Any]:
    if params.text == "custom":
        arr = _custom_arrays(params.custom_text)
        tokens = arr["tokens"]
    else:
        arr = MODEL.heads.text_arrays(params.text)
        tokens = MODEL.heads.text_meta(params.text)["tokens"]
    H, Hk = _META["n_head"], _META["n_kv_head"]
    inv = THETA
    q_all, k_all = _layer_qk(arr, params.layer)
    T = q_all.shape[1]
    q, k = q_all[params.head], k_all[heads.kv_head(params.head, H, Hk)]
    w = heads.attention(q, k, inv)
    # A text of your own: its pass's result is cached by the runner, these statistics are cheap beside it.
    classes, energy = (
        _layer_statistics(arr, params.layer) if params.text == "custom" else _shipped_layer_statistics(params.text, params.layer)
    )
    out: dict[str, Any] = {
        **params.model_dump(),
        "token_ids": arr["ids"].tolist(),
        "tokens": tokens,
        "n_tokens": T,
        "theta": inv,
        "weights": _null_upper(w),
        "pair_energy": energy[params.head],
        "layer_pair_energy": energy,
        "offset_scores": heads.offset_scores(q, k, inv),
        "head_classes": [dict(item) for item in classes],
        "mass": heads.mass(w),
        "divergence": 0.0,
        "source": {key: _META[key] for key in ("model", "source", "license", "gguf_sha256")},
        "notes": _surgery_notes(params, T),
    }
    if params.surgery:
        band = (params.band_lo, params.band_hi) if params.band_lo >= 0 else None
        inv2, att, keep = heads.surgery_inv_freq(inv, params.rope_config(), band, params.band_mode, T)
        w2 = heads.surgered_attention(q, k, inv2, att, keep)
        out.update(
            surgered_theta=inv2,
            surgered_weights=_null_upper(w2),
            divergence=float(heads.js_divergence(w, w2).mean()),
            surgered_mass=heads.mass(w2),
        )
    return out


def _surgery_notes(params: HeadsParams, length: int) -> list[str]:
    """Dynamic NTK acts only past its reference length (scaling.dynamic_alpha is 1 up to it): say so, and
    name a reference length where this text would change."""
    if params.surgery_rope_type != "dynamic" or length > params.surgery_length:
        return []
    below = max(2, length // 4)
    return [
        f"Dynamic NTK changes nothing here: it acts only on texts longer than its reference length "
        f"surgery_length = {params.surgery_length:,}, and this text has {length} tokens. Set surgery_length below "
        f"{length} (e.g. {below}) to see it act: its base then becomes b·(s·{length}/{below} − (s − 1))^(d/(d−2))."
    ]


def heads_csv(data: dict[str, Any]):
    header = ["pair j", "theta_j", "pair energy E_j"]
    return header, Columns(np.arange(len(data["theta"])), np.column_stack([data["theta"], data["pair_energy"]]))


# ---- progress of a text of your own -------------------------------------------------------------


class HeadsProgress(Answer):
    """Where this worker stands with a text of your own."""

    state: str = doc("'done', 'running', 'waiting' (another text's pass is running), 'stopped', 'idle' or 'unavailable' "
                     "(this server has no model).")
    layer: int = doc("Layers read so far.")
    n_layer: int = doc("Layers of the model.")
    seconds: float | None = doc("Seconds the pass has run (state 'running').", optional=True)
    message: str | None = doc("Why it waits, stopped or cannot run (states 'waiting', 'stopped', 'unavailable').", optional=True)


class ProblemItem(Answer):
    """What went wrong, in the one shape of every error item."""

    type: str = doc("'http_503' for a 503.")
    loc: list[str | int] = doc("Where (empty: the request as a whole).")
    param: str = doc("The parameter at fault (empty: none).")
    msg: str = doc("Why, in words: the model is busy with another text, the pass hit the time limit, or the server has no model.")
    allowed: str | None = doc("What is allowed, when a parameter is at fault.", optional=True)


class Problem(Answer):
    """An error answer: ``{"detail": [item]}``."""

    detail: list[ProblemItem]


UNAVAILABLE = (
    (503, "The model cannot read the text now: this server has no model (the message says how to add it), the worker is "
          "reading another text (Retry-After says when to ask again), or the pass hit its time limit.", Problem),
)


class ProgressParams(Params):
    custom_text: Annotated[
        str, Field(min_length=1, max_length=model_runner.MAX_CHARS, description="The text, as in /api/model/heads (the same default).")
    ] = DEFAULT_CUSTOM_TEXT


@route(
    "/api/model/heads/progress",
    answer=HeadsProgress,
    errors=(),
    models=(ProgressParams,),
    summary="Progress of the model's pass over a text of your own",
    response_description="This worker's state for the text.",
    description=(
        "Where this worker stands with `custom_text`: `state` is `done` (the twin answers at once), `running` "
        "(`layer` of `n_layer` read, `seconds` so far), `waiting` (another text's pass is running: `message`), "
        "`stopped` (the last try hit the time limit: `message`), `idle` (not asked for yet: the twin's "
        "request starts the pass) or `unavailable` (this server has no model: `message` says how to add it). Never cached."
    ),
)
def heads_progress(request: Request, params: Annotated[ProgressParams, Query()]) -> Response:
    if not CUSTOM:
        status = {"state": "unavailable", "layer": 0, "n_layer": _META["n_layer"], "message": NO_MODEL}
        return JSONBytes(dumps(status), headers={"Cache-Control": "no-store"})
    try:
        status = RUNNER.status(params.custom_text)
    except model_runner.PassStopped as exc:
        status = {"state": "stopped", "layer": 0, "n_layer": _META["n_layer"], "message": exc.message}
    return JSONBytes(dumps(status), headers={"Cache-Control": "no-store"})


register(
    View(
        name="heads",
        title="Inside a trained model: SmolLM2-135M's heads",
        short_title="Real heads",
        summary="A real model's attention heads: which rotary pairs they use, positional heads, and RoPE surgery.",
        section="Rotary",
        order=95,
        api_path="/api/model/heads",
        answer=HeadsAnswer,
        params=HeadsParams,
        compute=compute_heads,
        pending=_pending,
        routes=(heads_progress,),
        errors=UNAVAILABLE,
        # The page says how to add the model when this server has none (templates/pages/heads.html).
        template_context={"heads_model": {"available": CUSTOM, "how_to_add": MODEL.how_to_add,
                                          "max_tokens": model_runner.MAX_TOKENS, "n_layer": _META["n_layer"]}},
        csv=heads_csv,
        api_description=(
            "From SmolLM2-135M-Instruct's stored pre-rotation q and k: `weights` (T×T causal softmax, null above the "
            "diagonal), `theta` per adjacent pair, `pair_energy` E_j = mean over positions of ‖q_j‖·‖k_j‖, "
            "`offset_scores` (mean score per offset), `head_classes` for the layer's heads by attention mass. "
            "Surgery (surgery_rope_type, surgery_base, surgery_factor, band_lo/band_hi/band_mode) adds `surgered_weights` and `divergence` "
            "(mean Jensen–Shannon divergence over queries). Dynamic surgery (surgery_rope_type=dynamic) changes θ only "
            "past its reference length of 8,192 tokens, so on these texts (at most 256 tokens) it changes nothing: "
            "`notes` says so."
            f" `text=custom` runs `custom_text` (1 to {model_runner.MAX_TOKENS} tokens) through the model on a server that "
            "has it: the first request for a text waits for the pass (seconds; `/api/model/heads/progress` says which "
            "layer it has reached), later ones are answered from the results kept by text. A worker runs one text at a "
            "time: a request for another text meanwhile gets 503 with Retry-After, and so does a pass stopped by the time "
            "limit; a server without the model answers 503 saying how to add it (the message says which)."
        ),
        examples=("text=dog-bites-man&layer=0&head=0", "text=long-256&surgery_rope_type=yarn&surgery_factor=4", "band_lo=0&band_hi=7"),
    )
)

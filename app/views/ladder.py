"""The frequency ladder: θ_j = b^(−2j/r) and wavelengths 2π/θ_j against the pair index.

``GET /api/rope/frequencies`` also takes every RoPE scaling field of Hugging Face's
``rope_parameters`` as a query parameter (``rope_type`` defaults to ``default``, which leaves the
foundation's output unchanged), and ``POST /api/rope/frequencies`` reads a model's config.json.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlencode

import numpy as np
from fastapi import APIRouter, Query
from pydantic import Field, ValidationInfo, field_validator, model_validator
from starlette.requests import Request
from starlette.responses import Response

from app.core import scaling
from app.core.frequencies import inverse_frequencies, rotary_dim, turns_within, wavelengths
from app.core.hf_config import rope_config_from_hf
from app.web import errors
from app.web.fields import Base, HeadDim, PartialRotaryFactor
from app.web.params import UI, Params
from app.web.responses import JSONBytes, dumps
from app.web.views import View, register

MAX_LENGTH = 1 << 27
RopeType = Literal["default", "linear", "dynamic", "yarn", "longrope", "llama3", "ntk"]


def scaling_fields(hidden: bool) -> dict[str, Any]:
    """Annotated types of the scaling fields; ``hidden`` keeps them out of a page's controls."""

    def ui(label: str, **kw: Any) -> UI:
        return UI(label, kind="hidden") if hidden else UI(label, **kw)

    factor_list = Annotated[
        tuple[Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)], ...],
        Field(
            max_length=512,
            validate_default=True,
            description="LongRoPE per-pair divisors (one per rotated pair; repeat the key).",
        ),
    ]
    return {
        "rope_type": Annotated[
            RopeType,
            Field(description="Scaling method: a transformers rope_type, or 'ntk' for the static NTK-aware base change."),
            ui("Scaling method (rope_type)"),
        ],
        "factor": Annotated[
            float,
            Field(ge=1, le=1e4, allow_inf_nan=False, description="Scale factor s (for 'ntk': α)."),
            ui("Scale factor s", kind="number", step=0.5),
        ],
        "original_max_position_embeddings": Annotated[
            int,
            Field(ge=2, le=MAX_LENGTH, description="Training length L0 (yarn, longrope, llama3)."),
            ui("Training length L0", kind="log", unit="tokens"),
        ],
        "max_position_embeddings": Annotated[
            int,
            Field(ge=1, le=MAX_LENGTH, description="max_position_embeddings: dynamic NTK's reference length Lmax."),
            ui("max_position_embeddings", kind="log", unit="tokens", help="Dynamic NTK scales only past this length."),
        ],
        "seq_len": Annotated[
            int,
            Field(ge=0, le=MAX_LENGTH, description="Current sequence length (dynamic, longrope); 0 = not given, as at model init."),
            ui("Current length", kind="log", unit="tokens"),
        ],
        "attention_factor": Annotated[
            float,
            Field(ge=0, le=100, allow_inf_nan=False, description="Explicit attention factor (yarn, longrope); 0 = derived by the method."),
            ui("attention_factor (0 = derived)", kind="number", step=0.01),
        ],
        "beta_fast": Annotated[
            float, Field(ge=0, le=1e6, allow_inf_nan=False, description="YaRN β: turns over L0 above which a pair is kept (0 = 32)."),
            ui("beta_fast", kind="number"),
        ],
        "beta_slow": Annotated[
            float, Field(ge=0, le=1e6, allow_inf_nan=False, description="YaRN α: turns over L0 below which a pair is divided by s (0 = 1)."),
            ui("beta_slow", kind="number"),
        ],
        "mscale": Annotated[
            float, Field(ge=0, le=1000, allow_inf_nan=False, description="YaRN mscale (used only together with mscale_all_dim)."),
            ui("mscale", kind="number", step=0.001),
        ],
        "mscale_all_dim": Annotated[
            float, Field(ge=0, le=1000, allow_inf_nan=False, description="YaRN mscale_all_dim."),
            ui("mscale_all_dim", kind="number", step=0.001),
        ],
        "truncate": Annotated[bool, Field(description="YaRN: round the correction range to whole pairs."), ui("truncate (YaRN)")],
        "low_freq_factor": Annotated[
            float, Field(gt=0, le=1e4, allow_inf_nan=False, description="llama3: wavelengths above L0/low_freq_factor are divided by s."),
            ui("low_freq_factor", kind="number", step=0.5),
        ],
        "high_freq_factor": Annotated[
            float, Field(gt=0, le=1e4, allow_inf_nan=False, description="llama3: wavelengths below L0/high_freq_factor are kept."),
            ui("high_freq_factor", kind="number", step=0.5),
        ],
        "short_factor": Annotated[factor_list, ui("short_factor", kind="list", help="LongRoPE, one value per pair.")],
        "long_factor": Annotated[factor_list, ui("long_factor", kind="list", help="LongRoPE, one value per pair.")],
    }


_F = scaling_fields(hidden=True)


class ScalingChecks(Params):
    """Cross-field rules of the scaling fields, each on the later field so a 422 names it."""

    @field_validator("rope_type", check_fields=False)
    @classmethod
    def _rotary_for_ntk(cls, value: str, info: ValidationInfo) -> str:
        head_dim, prf = info.data.get("head_dim"), info.data.get("partial_rotary_factor")
        if value in ("dynamic", "ntk") and head_dim is not None and prf is not None and int(head_dim * prf) <= 2:
            raise ValueError(
                f"rope_type '{value}' raises the base to the power r/(r−2), so the rotary dimension must be above 2 "
                f"(got {int(head_dim * prf)})"
            )
        return value

    @field_validator("beta_slow", check_fields=False)
    @classmethod
    def _betas(cls, value: float, info: ValidationInfo) -> float:
        fast = info.data.get("beta_fast")
        if info.data.get("rope_type") == "yarn" and fast is not None and (fast or 32) < (value or 1):
            raise ValueError(f"beta_slow ({value or 1:g}) must not exceed beta_fast ({fast or 32:g})")
        return value

    @field_validator("high_freq_factor", check_fields=False)
    @classmethod
    def _bands(cls, value: float, info: ValidationInfo) -> float:
        low = info.data.get("low_freq_factor")
        if info.data.get("rope_type") == "llama3" and low is not None and value <= low:
            raise ValueError(f"high_freq_factor ({value:g}) must be greater than low_freq_factor ({low:g})")
        return value

    @field_validator("short_factor", "long_factor", check_fields=False)
    @classmethod
    def _per_pair(cls, value: tuple[float, ...], info: ValidationInfo) -> tuple[float, ...]:
        head_dim, prf = info.data.get("head_dim"), info.data.get("partial_rotary_factor")
        if info.data.get("rope_type") == "longrope" and head_dim is not None and prf is not None:
            pairs = int(head_dim * prf) // 2
            if len(value) != pairs:
                raise ValueError(f"{info.field_name} needs one value per rotated pair: {pairs} values (got {len(value)})")
        return value

    @model_validator(mode="after")
    def _whole_config(self):
        scaling.validate(rope_config_of(self), self.seq_len or None)  # ScalingError is a ValueError
        return self


class LadderParams(ScalingChecks):
    head_dim: HeadDim = 64
    base: Base = 10000.0
    partial_rotary_factor: PartialRotaryFactor = 1.0
    context_len: Annotated[
        int,
        Field(ge=1, le=10_000_000, description="Context length L to compare each wavelength with."),
        UI("Context length L", kind="log", unit="tokens"),
    ] = 4096
    rope_type: _F["rope_type"] = "default"
    factor: _F["factor"] = 4.0
    original_max_position_embeddings: _F["original_max_position_embeddings"] = 4096
    max_position_embeddings: _F["max_position_embeddings"] = 4096
    seq_len: _F["seq_len"] = 0
    attention_factor: _F["attention_factor"] = 0.0
    beta_fast: _F["beta_fast"] = 32.0
    beta_slow: _F["beta_slow"] = 1.0
    mscale: _F["mscale"] = 0.0
    mscale_all_dim: _F["mscale_all_dim"] = 0.0
    truncate: _F["truncate"] = True
    low_freq_factor: _F["low_freq_factor"] = 1.0
    high_freq_factor: _F["high_freq_factor"] = 4.0
    short_factor: _F["short_factor"] = ()
    long_factor: _F["long_factor"] = ()

    @field_validator("partial_rotary_factor")
    @classmethod
    def _even_rotary_dim(cls, value: float, info: ValidationInfo) -> float:
        head_dim = info.data.get("head_dim")
        if head_dim is not None:
            rotary_dim(head_dim, value)  # raises ValueError naming the rule
        return value


def rope_config_of(params: Any, rope_type: str | None = None, **overrides: Any) -> scaling.RopeConfig:
    """The :class:`RopeConfig` a params model describes, reading only the fields the method uses.

    Query conventions mapped to HF's: ``attention_factor`` 0 → None (derived); mscale 0 ≡ None;
    ``base`` → ``rope_theta``.
    """
    rope_type = rope_type or params.rope_type
    method = scaling.METHODS[rope_type]
    used = set(method.required) | set(method.optional)
    values: dict[str, Any] = {
        "rope_type": rope_type,
        "rope_theta": float(params.base),
        "head_dim": int(params.head_dim),
        "partial_rotary_factor": float(params.partial_rotary_factor),
        "max_position_embeddings": int(params.max_position_embeddings),
    }
    for name in used:
        value = getattr(params, name)
        if name == "attention_factor" and value == 0:
            value = None
        if name in ("short_factor", "long_factor"):
            value = tuple(value)
        values[name] = value
    values.update(overrides)
    return scaling.RopeConfig(**values)


def resolved_parameters(config: scaling.RopeConfig) -> dict[str, Any]:
    """The parameters the method read, with HF names (None for unset)."""
    method = scaling.METHODS[config.rope_type]
    out: dict[str, Any] = {
        "rope_type": config.rope_type,
        "rope_theta": config.rope_theta,
        "head_dim": config.head_dim,
        "partial_rotary_factor": config.partial_rotary_factor,
        "rotary_dim": config.rotary_dim,
    }
    if config.rope_type == "dynamic":
        out["max_position_embeddings"] = config.max_position_embeddings
    for name in (*method.required, *method.optional):
        value = getattr(config, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    if config.rope_type == "yarn":
        out["factor_used"] = scaling.yarn_factor(config)
        out["beta_fast_used"] = config.beta_fast or 32
        out["beta_slow_used"] = config.beta_slow or 1
        out["correction_range"] = list(scaling.yarn_correction_range(config))
    if config.rope_type == "longrope":
        out["factor_used"] = scaling.longrope_factor(config)
    return out


def scaled_result(config: scaling.RopeConfig, seq_len: int | None) -> dict[str, Any]:
    """inv_freq, attention factor, wavelength and per-pair scale against the unscaled ladder."""
    inv_freq, attention = scaling.compute(config, seq_len)
    unscaled = scaling.base_inv_freq(config.rotary_dim, config.rope_theta)
    return {
        "rope_type": config.rope_type,
        "seq_len": seq_len,
        "rotary_dim": config.rotary_dim,
        "pair": np.arange(config.rotary_dim // 2),
        "inv_freq": inv_freq,
        "attention_factor": attention,
        "wavelength": wavelengths(inv_freq),
        "unscaled_inv_freq": unscaled,
        "scale": inv_freq / unscaled,
        "resolved": resolved_parameters(config),
        "notes": scaling.consistency_notes(config),
    }


def compute_ladder(params: LadderParams) -> dict[str, Any]:
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    seq_len = params.seq_len or None
    if params.rope_type == "default":
        inv_freq = inverse_frequencies(r, params.base)
        extra = scaled_result(rope_config_of(params), seq_len)
        extra["inv_freq"] = inv_freq
    else:
        extra = scaled_result(rope_config_of(params), seq_len)
        inv_freq = extra["inv_freq"]
    wavelength = wavelengths(inv_freq)
    turns = turns_within(params.context_len, inv_freq)
    full = wavelength <= params.context_len
    return {
        "head_dim": params.head_dim,
        "base": params.base,
        "partial_rotary_factor": params.partial_rotary_factor,
        "rotary_dim": r,
        "context_len": params.context_len,
        "pair": np.arange(r // 2),
        "inv_freq": inv_freq,
        "wavelength": wavelength,
        "degrees_per_token": np.degrees(inv_freq),
        "turns_in_context": turns,
        "pairs_with_full_turn": int(full.sum()),
        "first_pair_without_full_turn": int(np.argmin(full)) if not full.all() else None,
        "rope_type": params.rope_type,
        "seq_len": seq_len,
        "attention_factor": extra["attention_factor"],
        "unscaled_inv_freq": extra["unscaled_inv_freq"],
        "scale": extra["scale"],
        "resolved": extra["resolved"],
        "notes": extra["notes"],
    }


def ladder_csv(data: dict[str, Any]):
    header = ["pair", "inv_freq", "wavelength", "degrees_per_token", "turns_in_context"]
    rows = zip(data["pair"], data["inv_freq"], data["wavelength"], data["degrees_per_token"], data["turns_in_context"])
    return header, [list(row) for row in rows]


register(
    View(
        name="ladder",
        title="The frequency ladder",
        short_title="Frequency ladder",
        summary="Every rotating pair gets its own speed, from one radian per token down to a crawl.",
        section="Foundations",
        order=10,
        api_path="/api/rope/frequencies",
        params=LadderParams,
        compute=compute_ladder,
        formulas=(
            r"\theta_j = b^{-2j/r},\quad j = 0,1,\ldots,\tfrac{r}{2}-1",
            r"\lambda_j = \frac{2\pi}{\theta_j}",
            r"\text{turns within } L = \frac{L\,\theta_j}{2\pi}",
        ),
        csv=ladder_csv,
        api_description=(
            "Inverse frequencies θ_j (radians per token) and wavelengths 2π/θ_j (tokens per turn) of the "
            "RoPE ladder, with how many full turns each pair makes within `context_len` tokens. "
            "`r = int(head_dim · partial_rotary_factor)` pairs are rotated. With `rope_type` other than "
            "`default`, `inv_freq` is the scaled ladder exactly as transformers 5.24 computes it (or the "
            "static NTK-aware base for `ntk`), with `attention_factor`, the per-pair `scale` against "
            "`unscaled_inv_freq`, and the `resolved` parameters. `seq_len` is the current length for "
            "`dynamic` and `longrope` (0 = not given, as at model init). `short_factor`/`long_factor` are "
            "repeated keys. `POST` the same path with a model's config.json as the body."
        ),
        examples=(
            "head_dim=128&base=500000",
            "head_dim=64&partial_rotary_factor=0.25&context_len=2048",
            "head_dim=128&base=500000&rope_type=llama3&factor=8&original_max_position_embeddings=8192&max_position_embeddings=131072",
            "head_dim=128&rope_type=yarn&factor=16&original_max_position_embeddings=4096",
            "head_dim=128&rope_type=dynamic&factor=4&max_position_embeddings=4096&seq_len=16384",
        ),
    )
)


# ---- POST: a model's config.json ------------------------------------------------------------

router = APIRouter(tags=["Foundations"])


def spectrum_query(config: scaling.RopeConfig, seq_len: int | None) -> list[tuple[str, str]]:
    """GET query (spectrum page / ladder names) equivalent to a resolved config."""
    from app.web.templating import url_value

    items: list[tuple[str, str]] = [
        ("head_dim", url_value(config.head_dim)),
        ("base", url_value(float(config.rope_theta))),
        ("partial_rotary_factor", url_value(float(config.partial_rotary_factor))),
        ("rope_type", config.rope_type),
    ]
    t = config.rope_type
    if t in ("linear", "dynamic", "llama3", "ntk"):
        items.append(("factor", url_value(float(config.factor))))
    if t == "yarn":
        items.append(("factor", url_value(scaling.yarn_factor(config))))
    if t == "longrope":
        items.append(("factor", url_value(scaling.longrope_factor(config))))
    if config.original_max_position_embeddings is not None and t in ("yarn", "longrope", "llama3"):
        items.append(("original_max_position_embeddings", url_value(config.original_max_position_embeddings)))
    if config.max_position_embeddings:
        items.append(("max_position_embeddings", url_value(config.max_position_embeddings)))
    if seq_len:
        items.append(("seq_len", url_value(seq_len)))
    if t in ("yarn", "longrope") and config.attention_factor is not None:
        items.append(("attention_factor", url_value(float(config.attention_factor))))
    if t == "yarn":
        items.append(("beta_fast", url_value(float(config.beta_fast or 32))))
        items.append(("beta_slow", url_value(float(config.beta_slow or 1))))
        if config.mscale:
            items.append(("mscale", url_value(float(config.mscale))))
        if config.mscale_all_dim:
            items.append(("mscale_all_dim", url_value(float(config.mscale_all_dim))))
        items.append(("truncate", url_value(bool(config.truncate))))
    if t == "llama3":
        items.append(("low_freq_factor", url_value(float(config.low_freq_factor))))
        items.append(("high_freq_factor", url_value(float(config.high_freq_factor))))
    if t == "longrope":
        items.extend(("short_factor", url_value(value)) for value in config.short_factor)
        items.extend(("long_factor", url_value(value)) for value in config.long_factor)
    return items


def config_response(body: Any, seq_len: int | None) -> dict[str, Any]:
    """Everything the POST returns; raises ScalingError."""
    config, standardized, notes = rope_config_from_hf(body, seq_len)
    result = scaled_result(config, seq_len)
    query = spectrum_query(config, seq_len)
    result["resolved"]["standardized_rope_parameters"] = {
        key: value for key, value in standardized.items() if key not in ("model_type", "head_dim", "max_position_embeddings", "pairing")
    }
    result["resolved"]["max_position_embeddings"] = standardized["max_position_embeddings"]
    result["resolved"]["model_type"] = standardized["model_type"]
    result["resolved"]["pairing"] = standardized["pairing"]
    result["notes"] = notes + result["notes"]
    result["query"] = query
    result["links"] = {
        "spectrum": "/spectrum?" + urlencode(query),
        "api": "/api/rope/frequencies?" + urlencode(query),
    }
    return result


@router.post(
    "/api/rope/frequencies",
    summary="RoPE frequencies of a model's config.json",
    description=(
        "The body is a model's `config.json` as published (or any subset): `rope_theta`, `head_dim` (or "
        "`hidden_size` + `num_attention_heads`), `partial_rotary_factor`, `max_position_embeddings`, and "
        "`rope_scaling` (with `rope_type` or the older `type`) or transformers 5's `rope_parameters`. "
        "Unrelated keys are ignored; unknown keys inside the RoPE dict, an unknown rope_type or a missing "
        "required field give 422 naming it. Returns `inv_freq` (one per rotated pair), `attention_factor`, "
        "`wavelength`, `scale` against the unscaled ladder, the `resolved` parameters and `links` to the "
        "same view as GET URLs. Example body: "
        '`{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0, "max_position_embeddings": '
        '131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, '
        '"high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}`.'
    ),
    response_class=JSONBytes,
)
def frequencies_of_config(
    request: Request,
    body: dict[str, Any],
    seq_len: Annotated[
        int | None, Query(ge=0, le=MAX_LENGTH, description="Current sequence length (dynamic, longrope).")
    ] = None,
) -> Response:
    try:
        result = config_response(body, seq_len or None)
    except scaling.ScalingError as exc:
        item = {"type": "value_error", "loc": ["body", *exc.field.split(".")], "param": exc.field, "msg": exc.message}
        return JSONBytes(dumps({"detail": [item]}), status_code=422)
    return JSONBytes(dumps(result))

"""The frequency ladder: θ_j = b^(−2j/r) and wavelengths 2π/θ_j against the pair index.

``GET /api/rope/frequencies`` also takes every RoPE scaling field of Hugging Face's
``rope_parameters`` as a query parameter (``rope_type`` defaults to ``default``, which leaves the
foundation's output unchanged), and ``POST /api/rope/frequencies`` reads a model's config.json.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

import numpy as np
from fastapi import Query
from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from app.core import model_families, scaling
from app.core.frequencies import inverse_frequencies, rotary_dim, turns_within, wavelengths
from app.core.hf_config import rope_settings_from_hf
from app.views import _rope_scaling as rs
from app.views._rope_scaling import MAX_LENGTH, METHOD_FIELD_DEFAULTS, ScalingChecks, high_freq_default, rope_config_of
from app.web import errors
from app.web.answers import Answer, Echo, Floats, Ints, doc
from app.web.fields import DEFAULTS, Base, HeadDim, PartialRotaryFactor
from app.web.params import UI
from app.web.responses import JSONBytes, dumps
from app.web.views import View, register, route


class LadderParams(ScalingChecks):
    head_dim: HeadDim = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    partial_rotary_factor: PartialRotaryFactor = DEFAULTS["partial_rotary_factor"]
    context_len: Annotated[
        int,
        Field(ge=1, le=10_000_000, description="Context length L to compare each wavelength with."),
        UI("Context length L", kind="log", unit="tokens"),
    ] = 4096
    rope_type: rs.HiddenRopeType = DEFAULTS["rope_type"]
    factor: rs.HiddenFactor = DEFAULTS["factor"]
    original_max_position_embeddings: rs.HiddenOriginalMaxPositionEmbeddings = DEFAULTS["original_max_position_embeddings"]
    max_position_embeddings: rs.HiddenMaxPositionEmbeddings = DEFAULTS["max_position_embeddings"]
    seq_len: rs.HiddenSeqLen = 0
    # the scaling fields hidden on the page, last (rs.METHOD_FIELD_DEFAULTS)
    attention_factor: rs.HiddenAttentionFactor = METHOD_FIELD_DEFAULTS["attention_factor"]
    beta_fast: rs.HiddenBetaFast = METHOD_FIELD_DEFAULTS["beta_fast"]
    beta_slow: rs.HiddenBetaSlow = METHOD_FIELD_DEFAULTS["beta_slow"]
    mscale: rs.HiddenMscale = METHOD_FIELD_DEFAULTS["mscale"]
    mscale_all_dim: rs.HiddenMscaleAllDim = METHOD_FIELD_DEFAULTS["mscale_all_dim"]
    truncate: rs.HiddenTruncate = METHOD_FIELD_DEFAULTS["truncate"]
    low_freq_factor: rs.HiddenLowFreqFactor = METHOD_FIELD_DEFAULTS["low_freq_factor"]
    high_freq_factor: rs.HiddenHighFreqFactor = Field(default_factory=high_freq_default)
    short_factor: rs.HiddenShortFactor = METHOD_FIELD_DEFAULTS["short_factor"]
    long_factor: rs.HiddenLongFactor = METHOD_FIELD_DEFAULTS["long_factor"]
    pairing: rs.HiddenFamilyPairing = METHOD_FIELD_DEFAULTS["pairing"]
    latent_attention: rs.HiddenLatentAttention = METHOD_FIELD_DEFAULTS["latent_attention"]
    query_scale_beta: rs.HiddenQueryScaleBeta = METHOD_FIELD_DEFAULTS["query_scale_beta"]
    query_scale_interval: rs.HiddenQueryScaleInterval = METHOD_FIELD_DEFAULTS["query_scale_interval"]
    query_scale_offset: rs.HiddenQueryScaleOffset = METHOD_FIELD_DEFAULTS["query_scale_offset"]


class AttentionFactor(Answer):
    """One temperature factor and where a model applies it."""

    value: float | None = doc("The factor (null when it does not apply).")
    applies: str = doc("Where it is applied, or why it is not.")


class AttentionFactors(Answer):
    """Both temperature factors of a scaled RoPE (DeepSeek-style YaRN has two)."""

    attention_factor: AttentionFactor
    softmax_scale_multiplier: AttentionFactor


class ResolvedRope(Answer):
    """The parameters the method read, with Hugging Face's names; keys the method does not read are absent."""

    rope_type: str
    rope_theta: float
    head_dim: int
    partial_rotary_factor: float
    rotary_dim: int
    factor: float | None = doc("Scaling factor s.", optional=True)
    original_max_position_embeddings: int | None = doc("Training length L0.", optional=True)
    max_position_embeddings: int | None = doc("Dynamic NTK's L0; a config's max_position_embeddings.", optional=True)
    low_freq_factor: float | None = doc("Llama 3.1.", optional=True)
    high_freq_factor: float | None = doc("Llama 3.1.", optional=True)
    attention_factor: float | None = doc("YaRN, LongRoPE: a configured attention factor (null: derived).", optional=True)
    beta_fast: float | None = doc("YaRN (null: 32).", optional=True)
    beta_slow: float | None = doc("YaRN (null: 1).", optional=True)
    mscale: float | None = doc("YaRN, DeepSeek style.", optional=True)
    mscale_all_dim: float | None = doc("YaRN, DeepSeek style.", optional=True)
    truncate: bool | None = doc("YaRN: whether the correction range is rounded to whole pairs.", optional=True)
    short_factor: Floats | None = doc("LongRoPE: per-pair divisors within the training length.", optional=True)
    long_factor: Floats | None = doc("LongRoPE: per-pair divisors beyond it.", optional=True)
    factor_used: float | None = doc("YaRN, LongRoPE: the factor the formulas use.", optional=True)
    beta_fast_used: float | None = doc("YaRN: beta_fast after its default.", optional=True)
    beta_slow_used: float | None = doc("YaRN: beta_slow after its default.", optional=True)
    correction_range: Floats | None = doc("YaRN: the pair indices where the ramp starts and ends.", optional=True)
    standardized_rope_parameters: dict[str, Any] | None = doc("POST: the setting as transformers standardises it.", optional=True)
    model_type: str | None = doc("POST: the config's model_type.", optional=True)
    pairing: str | None = doc("POST: the model family's pairing, 'half' or 'interleaved'.", optional=True)


class QueryScale(Answer):
    """A query scale that grows with position, 1 + β·ln(1 + ⌊(pos + offset)/interval⌋): Ministral 3's
    llama_4_scaling_beta (every layer, offset 0), Llama 4's attn_temperature_tuning (NoPE layers, offset 1)."""

    beta: float = doc("β.")
    interval: int = doc("Positions per step (Ministral 3: original_max_position_embeddings; Llama 4: floor_scale).")
    offset: int = doc("Added to the 0-based position before dividing (0 or 1).")
    layers: str = doc("'all' (every layer), 'nope' (the NoPE layers only) or 'given' (as the query says; a GET knows no model).")
    formula: str = doc("The scale with these numbers.")
    first_rise: int = doc("The first position where the scale leaves 1.")
    max_length: int = doc("The length it is evaluated at (max_position_embeddings).")
    at_max_length: float = doc("The scale at the last position, max_length − 1.")
    where: str | None = doc("POST: the key it was read from.", optional=True)
    interval_key: str | None = doc("POST: the key the interval was read from.", optional=True)
    reference: str | None = doc("POST: the reference code that applies it.", optional=True)


def query_scale_of(beta: float, interval: int, offset: int, length: int, layers: str = "given") -> dict[str, Any] | None:
    """The :class:`QueryScale` answer for query parameters (None when β is 0: no query scale)."""
    if not beta:
        return None
    pos = "pos" if offset == 0 else "(pos + 1)"
    return {
        "beta": beta, "interval": interval, "offset": offset, "layers": layers,
        "formula": f"1 + {beta:g}·ln(1 + ⌊{pos} / {interval}⌋)", "first_rise": interval - offset, "max_length": length,
        "at_max_length": float(model_families.query_scale(max(length - 1, 0), beta, interval, offset)),
    }


def family_query(top: dict[str, Any]) -> list[tuple[str, str]]:
    """The model family's part of a query (pairing, latent attention, query scale) from a parsed config's top."""
    from app.web.templating import url_value

    items = [("pairing", top["pairing"])]
    if top["latent_attention"]:
        items.append(("latent_attention", "true"))
    scale = top["query_scale"]
    if scale is not None:
        items += [("query_scale_beta", url_value(float(scale["beta"]))), ("query_scale_interval", url_value(scale["interval"])),
                  ("query_scale_offset", url_value(scale["offset"]))]
    return items


class Temperatures(Answer):
    """What a scaled RoPE does to attention, and the parameters it read."""

    attention_factor: float = doc("cos and sin are multiplied by it.")
    logit_multiplier: float = doc("attention_factor², the factor on q·k.")
    softmax_scale_multiplier: float | None = doc(
        "DeepSeek-style latent attention's get_mscale(s, mscale_all_dim)² on the softmax scale (null for every other "
        "architecture, and without mscale_all_dim or a scaled rope_type)."
    )
    attention_factors: AttentionFactors
    resolved: ResolvedRope
    notes: list[str] = doc("Things in the parameters a reader should know (ignored keys, defaults used).")


class Llama3Bands(Answer):
    """Llama 3.1's wavelength bands and how many pairs fall in each."""

    high_freq_wavelen: float | None = doc("L0 / high_freq_factor: shorter wavelengths are kept (null when it overflows).")
    low_freq_wavelen: float | None = doc("L0 / low_freq_factor: longer wavelengths are divided by the factor (null when it overflows).")
    kept: int = doc("Pairs left as they are (short wavelengths).")
    smoothed: int = doc("Pairs blended between kept and divided.")
    divided: int = doc("Pairs divided by the factor (long wavelengths).")


class FrequenciesAnswer(Temperatures, echoes=LadderParams):
    """RoPE's frequency ladder: θ_j, wavelength and turns within the context of every pair."""

    head_dim: Echo
    base: Echo
    partial_rotary_factor: Echo
    rotary_dim: int = doc("Dimensions that rotate: int(head_dim × partial_rotary_factor).")
    context_len: Echo
    pair: Ints = doc("Pair index j.")
    inv_freq: Floats = doc("θ_j in radians per position (after scaling).")
    wavelength: Floats = doc("2π/θ_j in positions.")
    degrees_per_token: Floats = doc("θ_j in degrees per position.")
    turns_in_context: Floats = doc("context_len·θ_j / 2π.")
    pairs_with_full_turn: int = doc("Pairs whose wavelength fits in the context.")
    first_pair_without_full_turn: int | None = doc("The first pair that does not turn fully within the context (null if all do).")
    rope_type: Echo
    seq_len: int | None = doc("Current length used by dynamic and longrope (null: not given).")
    unscaled_inv_freq: Floats = doc("θ_j = b^(−2j/r) without scaling.")
    scale: Floats = doc("inv_freq / unscaled_inv_freq per pair.")
    pairing: Echo = doc("'half' (x_j, x_(j+r/2)), GPT-NeoX style, or 'interleaved' (x_2j, x_2j+1), GPT-J style: as the query gives it.")
    latent_attention: Echo = doc("As the query gives it: whether the DeepSeek softmax-scale multiplier applies.")
    query_scale: QueryScale | None = doc("The query scale the query gives (null when query_scale_beta is 0).")


class RopeSetting(Temperatures):
    """One RoPE setting of a config (a config can have one per layer type)."""

    rope_type: str = doc("The setting's rope_type.")
    seq_len: int | None = doc("The seq_len asked (null: not given).")
    rotary_dim: int = doc("Dimensions that rotate.")
    pair: Ints = doc("Pair index j.")
    inv_freq: Floats = doc("θ_j of each pair after scaling.")
    wavelength: Floats = doc("2π/θ'_j.")
    scale: Floats = doc("θ'_j/θ_j per pair.")
    layer_type: str | None = doc("The layer type using it (null: every layer).")
    where: str = doc("Where in the config it was read.")


class MRopeSetting(Answer):
    """A config's multimodal RoPE sections."""

    mrope_section: Ints
    mrope_interleaved: bool
    lesson: str | None = doc("The page that draws these sections.", optional=True)


class ConfigAnswer(RopeSetting):
    """The RoPE a model's config.json describes: the primary setting at the top, every setting in `settings`."""

    unscaled_inv_freq: Floats = doc("θ_j = b^(−2j/r) of the primary setting before scaling.")
    settings: list[RopeSetting] = doc("Every RoPE setting of the config, in the order read.")
    primary_setting: int = doc("Index in `settings` of the setting at the top.")
    text_config: str | None = doc("'text_config' when the settings were read from it (multimodal wrappers).")
    pairing: str = doc("The model family's pairing: 'half' (x_j, x_(j+r/2)), GPT-NeoX style, or 'interleaved' (x_2j, x_2j+1), GPT-J style.")
    pairing_known: bool = doc("Whether the family's rotary code decided it (false: an unknown family, 'half' assumed).")
    pairing_source: str = doc("The reference code that decides the pairing, or why it is unknown.")
    latent_attention: bool = doc("Whether the config is DeepSeek-style latent attention (the only architecture with softmax_scale_multiplier).")
    query_scale: QueryScale | None = doc("The family's position-dependent query scale (Ministral 3, Llama 4's NoPE layers), or null.")
    mrope: MRopeSetting | None = doc("The multimodal sections (null without M-RoPE).")
    layers: dict[str, Any] | None = doc("Which layers use which setting (e.g. RoPE and NoPE layers), when the config says.")
    query: list[list[str]] = doc("The primary setting as (name, value) GET parameters.")
    links: dict[str, str] = doc("GET URLs of the same setting: 'spectrum', 'api' (and 'mrope').")


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
        out["factor_used"] = scaling.effective_factor(config)
        out["beta_fast_used"] = config.beta_fast or 32
        out["beta_slow_used"] = config.beta_slow or 1
        out["correction_range"] = list(scaling.yarn_correction_range(config))
    if config.rope_type == "longrope":
        out["factor_used"] = scaling.effective_factor(config)
    return out


def scaled_result(config: scaling.RopeConfig, seq_len: int | None, latent: bool = False) -> dict[str, Any]:
    """inv_freq, attention factor, wavelength and per-pair scale against the unscaled ladder."""
    inv_freq, attention = scaling.compute(config, seq_len)
    unscaled = inverse_frequencies(config.rotary_dim, config.rope_theta)
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
        **attention_factors(config, attention, latent),
    }


def attention_factors(config: scaling.RopeConfig, attention: float, latent: bool = False) -> dict[str, Any]:
    """Both temperature factors and where each applies (DeepSeek-style latent attention has two; every
    other architecture only attention_factor)."""
    multiplier = scaling.deepseek_softmax_multiplier(config) if latent else None
    return {
        "logit_multiplier": attention**2,
        "softmax_scale_multiplier": multiplier,
        "attention_factors": {
            "attention_factor": {
                "value": attention,
                "applies": "transformers' rotary module multiplies cos and sin by it, so q·k (the logits) is multiplied by its square",
            },
            "softmax_scale_multiplier": {
                "value": multiplier,
                "applies": (
                    "DeepSeek-V2/V3 attention multiplies its softmax scale 1/√(qk_head_dim) by get_mscale(s, mscale_all_dim)² "
                    "(modeling_deepseek_v3.yarn_apply_mscale), on top of attention_factor²; other models do not"
                )
                if multiplier is not None
                else "not applied: it needs mscale_all_dim and a scaled rope_type (DeepSeek-V2/V3 configs)"
                if latent
                else "not applied: only DeepSeek-style latent attention (DeepSeek-V2/V3, Kimi-K2) multiplies its softmax scale; "
                "this architecture uses plain 1/√d (latent_attention is false)",
            },
        },
    }


def compute_ladder(params: LadderParams) -> dict[str, Any]:
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    seq_len = params.seq_len or None
    latent = params.latent_attention
    if params.rope_type == "default":
        inv_freq = inverse_frequencies(r, params.base)
        extra = scaled_result(rope_config_of(params), seq_len, latent)
        extra["inv_freq"] = inv_freq
    else:
        extra = scaled_result(rope_config_of(params), seq_len, latent)
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
        "logit_multiplier": extra["logit_multiplier"],
        "softmax_scale_multiplier": extra["softmax_scale_multiplier"],
        "attention_factors": extra["attention_factors"],
        "pairing": params.pairing,
        "latent_attention": latent,
        "query_scale": query_scale_of(params.query_scale_beta, params.query_scale_interval, params.query_scale_offset,
                                      params.max_position_embeddings),
    }


def ladder_csv(data: dict[str, Any]):
    header = ["pair", "inv_freq", "wavelength", "degrees_per_token", "turns_in_context"]
    rows = zip(data["pair"], data["inv_freq"], data["wavelength"], data["degrees_per_token"], data["turns_in_context"], strict=True)
    return header, [list(row) for row in rows]



# ---- POST: a model's config.json ------------------------------------------------------------

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
    # rope_settings_from_hf validates the config: the fields a method requires are set (Method.required)
    if t in ("linear", "dynamic", "llama3", "ntk"):
        assert config.factor is not None
        items.append(("factor", url_value(float(config.factor))))
    if t == "yarn":
        items.append(("factor", url_value(scaling.effective_factor(config))))
    if t == "longrope":
        items.append(("factor", url_value(scaling.effective_factor(config))))
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
        assert config.low_freq_factor is not None and config.high_freq_factor is not None
        items.append(("low_freq_factor", url_value(float(config.low_freq_factor))))
        items.append(("high_freq_factor", url_value(float(config.high_freq_factor))))
    if t == "longrope":
        assert config.short_factor is not None and config.long_factor is not None
        items.extend(("short_factor", url_value(value)) for value in config.short_factor)
        items.extend(("long_factor", url_value(value)) for value in config.long_factor)
    return items


def _setting_result(setting: dict[str, Any], seq_len: int | None, latent: bool) -> dict[str, Any]:
    config = setting["config"]
    result = scaled_result(config, seq_len, latent)
    result["resolved"]["standardized_rope_parameters"] = setting["standardized"]
    result["layer_type"] = setting["layer_type"]
    result["where"] = setting["where"]
    result["notes"] = setting["notes"] + result["notes"]
    return result


def config_response(body: Any, seq_len: int | None) -> dict[str, Any]:
    """Everything the POST returns; raises ScalingError.  The top level is the primary setting
    (the full-attention layers', or the only one); ``settings`` lists every setting."""
    parsed = rope_settings_from_hf(body, seq_len)
    top = parsed["top"]
    family = family_query(top)
    settings = [
        {**_setting_result(setting, seq_len, top["latent_attention"]), "query": spectrum_query(setting["config"], seq_len) + family}
        for setting in parsed["settings"]
    ]
    primary = parsed["settings"][parsed["primary"]]
    result = dict(settings[parsed["primary"]])
    query = spectrum_query(primary["config"], seq_len) + family
    result["resolved"] = dict(result["resolved"])
    for key in ("max_position_embeddings", "model_type", "pairing"):
        result["resolved"][key] = top[key]
    result["notes"] = parsed["notes"] + result["notes"]
    result["settings"] = [
        {key: value for key, value in setting.items() if key not in ("unscaled_inv_freq",)} for setting in settings
    ]
    result["primary_setting"] = parsed["primary"]
    result["text_config"] = top["text_config"]
    for key in ("pairing", "pairing_known", "pairing_source", "latent_attention", "query_scale"):
        result[key] = top[key]
    result["mrope"] = top["mrope"]
    result["layers"] = top["layers"]
    result["query"] = query
    result["links"] = {
        "spectrum": "/spectrum?" + urlencode(query),
        "api": "/api/rope/frequencies?" + urlencode(query),
    }
    if top["mrope"] is not None:
        result["links"]["mrope"] = "/mrope"
    return result


@route(
    "/api/rope/frequencies",
    methods=("POST",),
    answer=ConfigAnswer,
    response_description="The config's RoPE settings.",
    summary="RoPE frequencies of a model's config.json",
    description=(
        "The body is a model's `config.json` as published (or any subset): `rope_theta`, `head_dim` (or "
        "`hidden_size` + `num_attention_heads`), `partial_rotary_factor`, `max_position_embeddings`, and "
        "`rope_scaling` (with `rope_type` or the older `type`) or transformers 5's `rope_parameters`, flat or per layer "
        "type (`{\"full_attention\": {...}, \"sliding_attention\": {...}}`). Multimodal wrappers are read from "
        "`text_config` (Gemma 3, Llama 4, Qwen3-VL, Mistral 3). Gemma 3's `rope_local_base_freq`, M-RoPE's "
        "`mrope_section` (Qwen2-VL, Qwen2.5-VL, Qwen3-VL; default frequencies), Phi-3's `su`/`yarn` (read as "
        "longrope, as transformers does), `no_rope_layers` (Llama 4, SmolLM3) and `qk_rope_head_dim` (DeepSeek, Kimi-K2), ChatGLM's `kv_channels` / `rope_ratio` / `seq_length` and GPT-2-style "
        "`n_embd` / `n_head` / `n_positions` / `rotary_dim` (GPT-J, phi-2's phi-msft form) are understood. Every key that "
        "bears on position and is not read is named in `notes` with the reason. "
        "Unrelated keys are ignored; a RoPE key the chosen type does not read is named in `notes` and ignored; an "
        "unknown rope_type or a missing required field gives 422 naming it. Returns, for the primary setting (the "
        "full-attention layers', or the only one), `inv_freq` (one per rotated pair), `attention_factor` (cos and sin "
        "are multiplied by it), `logit_multiplier` (its square), `softmax_scale_multiplier` (DeepSeek's "
        "get_mscale(s, mscale_all_dim)², only for DeepSeek-style latent attention: `latent_attention`) with `attention_factors` "
        "saying where each applies, `pairing` ('half' or 'interleaved', decided by the model family's rotary code; "
        "`pairing_known` false for a family it does not know), `query_scale` (Ministral 3's `llama_4_scaling_beta`, Llama 4's "
        "NoPE-layer temperature: 1 + β·ln(1 + ⌊(pos + offset)/interval⌋), with its value at the config's length), "
        "`wavelength`, `scale` against the unscaled ladder, the `resolved` parameters and `links` to the same view as "
        "GET URLs (and to /mrope for M-RoPE); `settings` lists every RoPE setting the same way (with `layer_type` and its "
        "own `query`), "
        "`mrope` the sections, `layers` which layers use which setting (`layer_types`) and which use no RoPE "
        "(`rope_layers`, `nope_layers`: Llama 4, SmolLM3), and `notes` every default used and every setting read. "
        "`qk_rope_head_dim`, `partial_rotary_factor`, `no_rope_layers` / `no_rope_layer_interval` and `layer_types` are "
        "read whatever the model_type. Example body: "
        '`{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0, "max_position_embeddings": '
        '131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, '
        '"high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}`.'
    ),
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
        return errors.error_response(422, errors.error_item("value_error", ["body", *exc.field.split(".")], exc.field, exc.message))
    return JSONBytes(dumps(result))


register(
    View(
        name="ladder",
        title="The frequency ladder",
        short_title="Frequency ladder",
        summary="Every rotating pair gets its own speed, from one radian per token down to a crawl.",
        section="Foundations",
        order=10,
        api_path="/api/rope/frequencies",
        answer=FrequenciesAnswer,
        routes=(frequencies_of_config,),
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

"""Read the RoPE part of a model's ``config.json`` the way transformers 5.24.0 standardises it.

Input: a plain dict (a parsed ``config.json``, or any subset).  Output: a :class:`RopeConfig`, the
standardised ``rope_parameters`` dict transformers' init functions would read, and notes.

What transformers does, and so what this does (``RotaryEmbeddingConfigMixin``,
``PreTrainedConfig.__post_init__``, the model config classes):
- ``rope_scaling`` (older name) wins over ``rope_parameters`` when it is non-empty.
- A top-level ``rope_theta`` and ``partial_rotary_factor`` are copied into the dict unless it
  already has them.  Without ``rope_theta`` anywhere, the config class's ``default_theta`` applies
  (10000 in the mixin; :data:`DEFAULT_THETA_BY_MODEL_TYPE` lists the classes that set another), and a
  note names the value and where it comes from.
- ``rope_type`` defaults to the older ``type`` key, then to ``"default"``.
- For ``llama3``/``yarn``/``longrope``, ``original_max_position_embeddings`` comes from a
  top-level key of that name when the config has one (it overrides the dict's value: the init
  functions re-standardise after the config has stored unknown keys as attributes), else it is
  filled from ``max_position_embeddings`` when missing.
- ``head_dim`` is the config's ``head_dim`` when set, else ``hidden_size // num_attention_heads``.
- Model types with their own names: ``gpt_neox`` (``rotary_pct`` → partial_rotary_factor, default
  0.25; ``rotary_emb_base`` → rope_theta), ``gptj`` (``n_embd``/``n_head``/``n_positions``,
  ``rotary_dim`` rotated dims, base fixed at 10000), ``phi3`` (``type`` "su" or "yarn" → "longrope", top-level
  ``original_max_position_embeddings`` defaults to 4096; a "su" dict without that key fails in
  transformers' validation, so it is refused here too).

Read by what the config contains, whatever its model_type (each named in ``notes``):
- ``qk_rope_head_dim``: the rotated size of each head is that key (DeepSeek-V2/V3's latent attention,
  and models on its layout under their own model_type, e.g. Kimi-K2's ``kimi_k2``); DeepSeek's
  model types without the key use the class default 64.
- ``partial_rotary_factor`` below 1: how many dimensions rotate and how many carry no position.
- ``no_rope_layers`` (1 = RoPE, 0 = NoPE) or ``no_rope_layer_interval`` (every interval-th layer
  is NoPE; Llama 4 and SmolLM3 build the list from it, default 4).
- ``layer_types`` (or the interval a class builds them from: Gemma 3's ``sliding_window_pattern``,
  Qwen3-Next's ``full_attention_interval``): which layers use which setting; ``linear_attention``
  layers (Qwen3-Next's hybrid) use no RoPE.

Published configs of current families (transformers 5.24's config classes):
- Multimodal wrappers (Gemma 3, Llama 4, Qwen3-VL, Mistral 3, …) keep the text model's keys under
  ``text_config``; those are read (``PreTrainedConfig.get_text_config``).
- Several RoPE settings: transformers 5's per-layer-type ``rope_parameters``
  (``{"full_attention": {...}, "sliding_attention": {...}}``), and Gemma 3's older form
  (``rope_scaling`` for the full-attention layers, ``rope_local_base_freq`` for the sliding ones;
  ``Gemma3TextConfig.convert_rope_params_to_dict``, defaults 1e6 and 1e4).  Every setting is read;
  the primary one is ``full_attention`` (or the only one).
- M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): ``mrope_section`` (and ``mrope_interleaved``) split the
  pairs between time, height and width positions; the frequencies are the default ones
  (``"type": "mrope"`` is read as ``default``, as Qwen2VLTextConfig does).
- Phi-3's first 128k release says ``"type": "su"`` with ``original_max_position_embeddings`` only at
  the top level: transformers 5.24 refuses that dict (its longrope validation wants the key inside),
  transformers 4.x read the top-level value; we read the top-level value and say so in a note.

Unrelated top-level keys are ignored.  A key inside the RoPE dict that the chosen rope_type does
not read is ignored with a note naming it (transformers warns and ignores it too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypedDict

from app.core import model_families
from app.core.scaling import COMMON_KEYS, DEFAULT_THETA, METHODS, RopeConfig, ScalingError, validate

# Keys a RoPE dict may hold: the registry's fields of every method, the common ones, and the older "type".
HF_KEYS = {"rope_type", "type", *COMMON_KEYS, *(name for method in METHODS.values() for name in (*method.required, *method.optional))}
FLOAT_KEYS = {
    "rope_theta", "partial_rotary_factor", "factor", "attention_factor", "beta_fast", "beta_slow",
    "low_freq_factor", "high_freq_factor", "mscale", "mscale_all_dim",
}
LIST_KEYS = {"short_factor", "long_factor"}
WITH_ORIGINAL_LENGTH = ("llama3", "yarn", "longrope")

# Bounds (every parameter bounded).
MAX_LENGTH = 1 << 27
MAX_HEAD_DIM = 4096
MAX_THETA = 1e9
MAX_FACTOR = 1e4
MAX_LIST_VALUE = 1e6


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """``repr(value)``, except that an integer too long to read is described, not echoed."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "an integer of about %d digits" % (value.bit_length() * 0.30103 + 1)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _finite(value: Any) -> bool:
    """A JSON number that is a finite float64 (an integer literal of 310+ digits is not: float() overflows)."""
    try:
        return _is_number(value) and math.isfinite(float(value))
    except OverflowError:
        return False


def _number(where: str, value: Any, low: float | None = None, high: float | None = None, strict_low: bool = False) -> float:
    if not _finite(value):
        raise ScalingError(where, f"{where} must be a finite number (got {_shown(value)})")
    value = float(value)
    if low is not None and (value <= low if strict_low else value < low):
        raise ScalingError(where, f"{where} must be {'>' if strict_low else '≥'} {low:g} (got {value:g})")
    if high is not None and value > high:
        raise ScalingError(where, f"{where} must be ≤ {high:g} (got {value:g})")
    return float(value)


def _integer(where: str, value: Any, low: int = 1, high: int = MAX_LENGTH) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScalingError(where, f"{where} must be an integer (got {_shown(value)})")
    if not low <= value <= high:
        raise ScalingError(where, f"{where} must be between {low} and {high} (got {_shown(value)})")
    return int(value)


# Keys of the ``top`` dict (merged into the standardised dict that rope_config_from_hf returns).
TOP_KEYS = ("model_type", "head_dim", "max_position_embeddings", "pairing", "pairing_known", "pairing_source",
            "latent_attention", "query_scale", "text_config", "mrope", "layers")
# Keys inside a RoPE dict that are not frequencies: taken out before the dict is standardised.
QUERY_SCALE_KEY = "llama_4_scaling_beta"


class Setting(TypedDict):
    """One RoPE setting of a config, as :func:`standardize_all` resolves it."""

    layer_type: str | None  # the layer type it serves (per-layer-type dicts), or None for the one setting
    where: str  # the config key it was read from (rope_parameters, rope_scaling.full_attention, …)
    params: dict[str, Any]  # the standardised RoPE dict
    notes: list[str]
    given: set[str]  # the keys the config itself gave (errors name them under ``where``)
# Llama4TextConfig's defaults for the NoPE layers' query scale (attn_temperature_tuning, floor_scale, attn_scale).
LLAMA4_TEMPERATURE_DEFAULTS = (True, 8192, 0.1)
LAYER_TYPE_LABELS = {"full_attention", "sliding_attention", "chunked_attention", "linear_attention"}
MROPE_KEYS = ("mrope_section", "mrope_interleaved")
# Config classes whose ``default_theta`` is not the mixin's 10000 (transformers 5.24, the text models):
# a config without rope_theta gets this value, as its config class gives it.
DEFAULT_THETA_BY_MODEL_TYPE = {
    "gemma3_text": 1e6, "gemma3": 1e6, "qwen2_vl_text": 1e6, "qwen2_5_vl_text": 1e6, "qwen2_vl": 1e6, "qwen2_5_vl": 1e6,
    "qwen3_vl_text": 5e5, "qwen3_vl": 5e5, "qwen3_vl_moe_text": 5e5, "qwen3_vl_moe": 5e5, "llama4_text": 5e5, "llama4": 5e5,
    "gpt_oss": 150000.0, "smollm3": 2e6, "mixtral": 1e6, "cohere": 5e5, "olmo3": 5e5, "flex_olmo": 5e5, "exaone": 5e5,
    "helium": 1e5, "minimax": 1e6, "minimax_m2": 5e6, "lfm2": 1e6, "lfm2_moe": 1e6, "bitnet": 5e5, "ernie4_5": 5e5,
    "ernie4_5_moe": 5e5, "phimoe": 1e6, "mllama_text_model": 5e5, "apertus": 1.2e7, "longcat_flash": 1e7, "cwm": 1e6,
    "solar_open": 1e6, "qwen2_5_omni_text": 1e6, "qwen3_omni_moe_text": 1e6,
}
GEMMA3_LOCAL_THETA = 10000.0


def text_config_of(config: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The dict holding the text model's keys: ``text_config`` when the body has one (multimodal
    wrappers), else the body.  Returns ``(dict, "text_config" or None)``."""
    if not isinstance(config, dict):
        raise ScalingError("body", "the body must be a JSON object (a model's config.json)")
    text = config.get("text_config")
    if text is None:
        return config, None
    if not isinstance(text, dict):
        raise ScalingError("text_config", f"text_config must be a JSON object (got {type(text).__name__})")
    merged = dict(text)
    if "model_type" not in merged and config.get("model_type") is not None:
        merged["model_type"] = config["model_type"]
    return merged, "text_config"


def _rope_source(cfg: dict[str, Any]) -> tuple[Any, str]:
    raw = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    source = "rope_scaling" if cfg.get("rope_scaling") else "rope_parameters"
    if raw is None or raw == {}:
        raw = {}
    if not isinstance(raw, dict):
        raise ScalingError(source, f"{source} must be a JSON object or null (got {type(raw).__name__})")
    return raw, source


def _settings_dicts(
    cfg: dict[str, Any], model_type: str | None, raw: dict[str, Any], source: str, notes: list[str]
) -> list[tuple[str | None, dict[str, Any], str]]:
    """``[(layer_type or None, rope dict, where)]``: one entry per RoPE setting."""
    layer_types = cfg.get("layer_types")
    declared = layer_types if isinstance(layer_types, list) else []
    labels = LAYER_TYPE_LABELS | {label for label in declared if isinstance(label, str)}
    nested = [key for key, value in raw.items() if key in labels and (isinstance(value, dict) or value is None)]
    if nested:
        for key in raw:
            if key not in nested:
                notes.append(f"{source}.{key} is ignored: the dict is per layer type ({', '.join(nested)}).")
        return [(key, dict(raw[key] or {}), f"{source}.{key}") for key in nested if raw[key] is not None]
    for key, value in raw.items():
        if isinstance(value, dict):
            raise ScalingError(
                f"{source}.{key}",
                f"{source}.{key} is a nested dict but {key!r} is not a layer type (known: "
                f"{', '.join(sorted(labels))}, or the config's layer_types)",
            )
    if model_type in ("gemma3_text", "gemma3"):
        # Gemma3TextConfig: rope_scaling updates the full-attention dict; the sliding layers use
        # rope_local_base_freq (default 1e4) with no scaling.
        full = {"rope_type": "default", **raw}
        full.setdefault("rope_theta", cfg.get("rope_theta", 1e6))
        sliding = {"rope_type": "default", "rope_theta": cfg.get("rope_local_base_freq", GEMMA3_LOCAL_THETA)}
        local = "rope_local_base_freq" in cfg
        notes.append(
            f"gemma3: full-attention layers use rope_theta = {_shown(full['rope_theta'])}"
            + (f" and {source}" if raw else "")
            + f"; sliding-window layers use rope_local_base_freq = {_shown(sliding['rope_theta'])}"
            + ("" if local else " (not given: Gemma3TextConfig's default)")
            + " without scaling (Gemma3TextConfig)."
        )
        return [("full_attention", full, source), ("sliding_attention", sliding, "rope_local_base_freq")]
    return [(None, dict(raw), source)]


def standardize(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """Return ``(top, rope_parameters, notes)`` of the primary RoPE setting (see
    :func:`standardize_all`)."""
    top, settings, notes = standardize_all(config)
    primary = settings[_primary_index(settings)]
    return top, primary["params"], notes + primary["notes"]


def _primary_index(settings: Sequence[Setting]) -> int:
    for i, setting in enumerate(settings):
        if setting["layer_type"] == "full_attention":
            return i
    return 0


def standardize_all(config: dict[str, Any]) -> tuple[dict[str, Any], list[Setting], list[str]]:
    """Return ``(top, settings, notes)``: the resolved top-level values (head_dim,
    max_position_embeddings, model_type, pairing, mrope, layers) and, per RoPE setting,
    ``{"layer_type", "where", "params" (the standardised RoPE dict), "notes"}``."""
    cfg, text_key = text_config_of(config)
    notes: list[str] = []
    if text_key:
        notes.append("text_config: the text model's keys are read from text_config.")
    model_type = cfg.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ScalingError("model_type", f"model_type must be a string (got {model_type!r})")
    cfg = dict(cfg)

    # Keys of the wrapper itself (beside text_config) and of the text model that bear on position but are not read.
    if text_key:
        notes.extend(model_families.position_key_notes({k: v for k, v in config.items() if k != "text_config"}))
    notes.extend(model_families.position_key_notes(cfg))

    # Model-specific names (attribute maps and config classes).  GPT-2-style names (GPT-J, CodeGen, phi-2's
    # first phi-msft form) are read whatever the model_type, as those config classes' attribute maps do.
    aliased = []
    for alias, name in (("n_embd", "hidden_size"), ("n_head", "num_attention_heads"), ("n_positions", "max_position_embeddings")):
        if alias in cfg and name not in cfg:
            cfg[name] = cfg[alias]
            aliased.append(f"{alias} as {name}")
    if aliased and model_type != "gptj":
        notes.append("GPT-2-style names: " + ", ".join(aliased) + " (the attribute map of GPT-J's and phi-msft's config classes).")
    chatglm = model_type == "chatglm" or "kv_channels" in cfg
    if chatglm:
        _chatglm(cfg, notes)
    if model_type == "gpt_neox":
        if "rotary_emb_base" in cfg and "rope_theta" not in cfg:
            cfg["rope_theta"] = cfg["rotary_emb_base"]
        if "partial_rotary_factor" not in cfg:
            cfg["partial_rotary_factor"] = cfg.get("rotary_pct", 0.25)
    # Multi-head latent attention (DeepSeek-V2/V3 and models built on that layout, e.g. Kimi-K2 with its own
    # model_type): RoPE turns only the qk_rope_head_dim dimensions of each head (DeepseekV3Config sets
    # head_dim = qk_rope_head_dim), whatever the model_type says.
    if "qk_rope_head_dim" in cfg or model_type in ("deepseek_v2", "deepseek_v3"):
        given = "qk_rope_head_dim" in cfg
        rope_dims = _integer("qk_rope_head_dim", cfg["qk_rope_head_dim"], 2, MAX_HEAD_DIM) if given else 64
        whole = cfg.get("qk_nope_head_dim")
        whole = (
            f" of the {whole + rope_dims} query/key dimensions of each head (the qk_nope_head_dim = {whole} others carry no position)"
            if isinstance(whole, int) and not isinstance(whole, bool) and whole >= 0
            else " dimensions of each head"
        )
        notes.append(
            f"qk_rope_head_dim = {rope_dims}{'' if given else ' (not given: the DeepSeek config classes default to 64)'}: "
            f"RoPE turns {rope_dims}{whole}, {rope_dims // 2} pairs, as in DeepSeek-V2/V3's latent attention; "
            "hidden_size / num_attention_heads is not the rotated size here."
        )
        cfg["head_dim"] = rope_dims
    if model_type == "qwen3_next" and "partial_rotary_factor" not in cfg:
        cfg["partial_rotary_factor"] = 0.25
        notes.append("qwen3_next: partial_rotary_factor not given: 0.25, Qwen3NextConfig's default.")

    # head_dim.
    head_dim = cfg.get("head_dim")
    if head_dim is None:
        hidden, heads = cfg.get("hidden_size"), cfg.get("num_attention_heads")
        if hidden is None or heads is None:
            raise ScalingError("head_dim", "head_dim is required (or hidden_size and num_attention_heads)")
        hidden = _integer("hidden_size", hidden, 1, 1 << 20)
        heads = _integer("num_attention_heads", heads, 1, 1 << 16)
        head_dim = hidden // heads
        if head_dim < 1:
            raise ScalingError("num_attention_heads", "hidden_size // num_attention_heads must be at least 1")
    head_dim = _integer("head_dim", head_dim, 1, MAX_HEAD_DIM)
    if "rotary_dim" in cfg and model_type != "gptj":
        _rotary_dim(cfg, head_dim, notes)

    max_pos = cfg.get("max_position_embeddings")
    if max_pos is not None:
        max_pos = _integer("max_position_embeddings", max_pos)

    raw, source = _rope_source(cfg)
    if cfg.get("rope_theta", 0) is None:
        raise ScalingError("rope_theta", "rope_theta must be a number, not null")
    if "rope_theta" not in cfg and not _theta_inside(raw) and model_type != "gptj":
        theta = DEFAULT_THETA_BY_MODEL_TYPE.get(model_type, DEFAULT_THETA) if model_type is not None else DEFAULT_THETA
        cfg["rope_theta"] = theta
        whose = (
            f"the default_theta of transformers' config class for model_type {model_type!r}"
            if model_type in DEFAULT_THETA_BY_MODEL_TYPE
            else "transformers' default (RotaryEmbeddingConfigMixin.default_theta"
            + (f"; model_type {model_type!r} does not set its own)" if model_type else ")")
        )
        notes.append(f"rope_theta not given: {_plain(theta)} is used, {whose}.")
    elif "rope_theta" not in cfg and model_type in DEFAULT_THETA_BY_MODEL_TYPE:
        cfg["rope_theta"] = DEFAULT_THETA_BY_MODEL_TYPE[model_type]
    settings: list[Setting] = []
    mrope: dict[str, Any] | None = None
    beta_given: tuple[str, Any] | None = (
        (f"{text_key + '.' if text_key else ''}{QUERY_SCALE_KEY}", cfg[QUERY_SCALE_KEY]) if QUERY_SCALE_KEY in cfg else None
    )
    for layer_type, params, where in _settings_dicts(cfg, model_type, raw, source, notes):
        setting_notes: list[str] = []
        if QUERY_SCALE_KEY in params:
            beta_given = (f"{text_key + '.' if text_key else ''}{where}.{QUERY_SCALE_KEY}", params.pop(QUERY_SCALE_KEY))
        for key in MROPE_KEYS:
            if key in params:
                value = params.pop(key)
                mrope = mrope or {}
                mrope[key] = value
        if params.get("rope_type", params.get("type")) == "mrope":
            params.pop("type", None)
            params["rope_type"] = "default"
        given_keys = set(params) if where != "rope_local_base_freq" else set()
        if model_type in ("gemma3_text", "gemma3") and where == source and layer_type == "full_attention":
            given_keys = set(raw)
        standardized = _standardize_one(cfg, model_type, max_pos, head_dim, params, where, setting_notes)
        settings.append(
            {"layer_type": layer_type, "where": where, "params": standardized, "notes": setting_notes, "given": given_keys}
        )
    if mrope is not None:
        mrope = _check_mrope(mrope, head_dim, settings, source)
        layout = "interleaved across pairs" if mrope["mrope_interleaved"] else "consecutive blocks of pairs"
        notes.append(
            f"M-RoPE: the {head_dim // 2} pairs are split {'/'.join(map(str, mrope['mrope_section']))} between time, "
            f"height and width position ids ({layout}); the frequencies are the default ones, and for text every "
            "position id is the same, so text tokens see the ordinary ladder."
        )

    pairing = model_families.family_pairing(model_type, cfg)
    if not pairing["known"]:
        notes.append(f"Pairing: {pairing['source']}.")
    layers = _layers(cfg, model_type, settings, notes)
    primary = settings[_primary_index(settings)]["params"] if settings else {}
    top = {"model_type": model_type, "head_dim": head_dim, "max_position_embeddings": max_pos,
           "pairing": pairing["pairing"], "pairing_known": pairing["known"], "pairing_source": pairing["source"],
           "latent_attention": model_families.latent_attention(model_type, cfg),
           "query_scale": _query_scale(cfg, model_type, beta_given, primary, max_pos, layers, notes),
           "text_config": text_key, "mrope": mrope, "layers": layers}
    return top, settings, notes


def _chatglm(cfg: dict[str, Any], notes: list[str]) -> None:
    """ChatGLM (THUDM's modeling_chatglm.py, ChatGLM2/3 and GLM-4's first release): the head is
    ``kv_channels`` wide (else hidden_size // num_attention_heads); RotaryEmbedding(rotary_dim // 2)
    turns its first half in adjacent pairs, with base 10000 · rope_ratio (rope_ratio default 1) and
    ``seq_length`` positions."""
    given = "kv_channels" in cfg and cfg["kv_channels"] is not None
    if given:
        cfg["head_dim"] = _integer("kv_channels", cfg["kv_channels"], 2, MAX_HEAD_DIM)
    ratio = cfg.get("rope_ratio", 1)
    ratio = _number("rope_ratio", 1 if ratio is None else ratio, 0, MAX_THETA / DEFAULT_THETA, strict_low=True)
    if "rope_theta" in cfg:
        notes.append("rope_theta is not read: ChatGLM's rotary code fixes the base at 10000 and multiplies it by rope_ratio.")
    cfg["rope_theta"] = DEFAULT_THETA * ratio
    cfg["partial_rotary_factor"] = 0.5
    if "seq_length" in cfg and "max_position_embeddings" not in cfg:
        cfg["max_position_embeddings"] = cfg["seq_length"]
    notes.append(
        "ChatGLM: " + ("kv_channels" if given else "hidden_size / num_attention_heads") + " is the size of a head, and RoPE "
        "turns its first half in adjacent pairs (RotaryEmbedding(rotary_dim // 2) in modeling_chatglm.py), the other half "
        f"carries no position; base = 10000 · rope_ratio = {_plain(DEFAULT_THETA * ratio)}"
        + ("" if "rope_ratio" in cfg else " (rope_ratio not given: 1)")
        + ("; seq_length is the length" if "seq_length" in cfg else "") + "."
    )


def _rotary_dim(cfg: dict[str, Any], head_dim: int, notes: list[str]) -> None:
    """``rotary_dim`` outside GPT-J (CodeGen, phi-2's first phi-msft form): that many dimensions of each
    head rotate; the base is the config's rope_theta, else 10000 (phi-msft's RotaryEmbedding default)."""
    if "partial_rotary_factor" in cfg:
        notes.append("rotary_dim is not read: partial_rotary_factor is given and transformers reads that.")
        return
    rotary = _integer("rotary_dim", cfg["rotary_dim"], 2, head_dim)
    factor = rotary / head_dim
    while int(head_dim * factor) < rotary:  # int() of a product just under a whole number
        factor = math.nextafter(factor, 2.0)
    cfg["partial_rotary_factor"] = factor
    notes.append(
        f"rotary_dim = {rotary}: RoPE turns {rotary} of the {head_dim} dimensions of each head, the others carry no position "
        "(the first phi-msft and CodeGen code rotate x[..., :rotary_dim])"
        + ("" if "rope_theta" in cfg or "rotary_emb_base" in cfg else "; no base given: 10000, the rotary code's default") + "."
    )
    if "rope_theta" not in cfg:
        cfg["rope_theta"] = cfg.get("rotary_emb_base", DEFAULT_THETA)


def _query_scale(
    cfg: dict[str, Any],
    model_type: str | None,
    beta_given: tuple[str, Any] | None,
    primary: dict[str, Any],
    max_pos: int | None,
    layers: dict[str, Any] | None,
    notes: list[str],
) -> dict[str, Any] | None:
    """The position-dependent query scale the family's attention applies (app.core.model_families):
    Ministral 3's llama_4_scaling_beta on every layer, Llama 4's attn_temperature_tuning on its NoPE
    layers; None when the config has neither."""
    if beta_given is not None:
        where, beta = beta_given
        if beta is None:
            notes.append(f"{where} is null: Ministral 3's code would fail multiplying by it; no query scale is applied here.")
            return None
        beta = _number(where, beta, 0, 10)
        interval = primary.get("original_max_position_embeddings")
        if interval is None:
            raise ScalingError(
                where,
                f"{where} needs original_max_position_embeddings in the RoPE dict: Ministral 3 divides the position by it "
                "(its rope_type here does not give one)",
            )
        interval = _integer("original_max_position_embeddings", interval)
        scale: dict[str, Any] = {"beta": beta, "interval": interval, "offset": 0, "layers": "all", "where": where,
                 "interval_key": "original_max_position_embeddings", "reference": "modeling_ministral3.py _get_llama_4_attn_scale"}
    elif model_type in ("llama4", "llama4_text") or "attn_temperature_tuning" in cfg:
        tuning_default, floor_default, beta_default = LLAMA4_TEMPERATURE_DEFAULTS
        tuning = cfg.get("attn_temperature_tuning", tuning_default)
        if not tuning:
            notes.append("attn_temperature_tuning is off: Llama 4's NoPE layers do not scale their queries.")
            return None
        if not (layers or {}).get("nope_layers"):
            notes.append("attn_temperature_tuning is set, but the config has no NoPE layers, which are the only ones it scales.")
            return None
        beta = _number("attn_scale", cfg.get("attn_scale", beta_default), 0, 10)
        interval = _integer("floor_scale", cfg.get("floor_scale", floor_default))
        scale = {"beta": beta, "interval": interval, "offset": 1, "layers": "nope", "where": "attn_scale",
                 "interval_key": "floor_scale", "reference": "modeling_llama4.py Llama4TextAttention (attn_temperature_tuning)"}
    else:
        return None
    length = max_pos or scale["interval"]
    scale["max_length"] = length
    scale["at_max_length"] = float(model_families.query_scale(length - 1, scale["beta"], scale["interval"], scale["offset"]))
    # The first position where the scale leaves 1.
    scale["first_rise"] = scale["interval"] - scale["offset"]
    pos = "pos" if scale["offset"] == 0 else "(pos + 1)"
    whose = "every layer multiplies" if scale["layers"] == "all" else "the NoPE layers multiply"
    scale["formula"] = f"1 + {scale['beta']:g}·ln(1 + ⌊{pos} / {scale['interval']}⌋)"
    notes.append(
        f"Query scale: {whose} q by {scale['formula']} ({scale['reference']}), so the logits grow with position: "
        f"1 up to position {scale['first_rise'] - 1:,}, {float(model_families.query_scale(scale['first_rise'], scale['beta'], scale['interval'], scale['offset'])):.6g} "
        f"from {scale['first_rise']:,}, {scale['at_max_length']:.6g} at the last position {length - 1:,}."
    )
    return scale


def _theta_inside(raw: dict[str, Any]) -> bool:
    """Whether the RoPE dict itself (flat, or every per-layer-type dict) gives rope_theta."""
    if "rope_theta" in raw:
        return True
    nested = [value for value in raw.values() if isinstance(value, dict)]
    return bool(nested) and all("rope_theta" in value for value in nested)


def _check_mrope(mrope: dict[str, Any], head_dim: int, settings: list[Setting], source: str) -> dict[str, Any]:
    section = mrope.get("mrope_section")
    if not isinstance(section, list) or not section or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in section):
        raise ScalingError(f"{source}.mrope_section", "mrope_section must be a list of non-negative integers (pairs per axis)")
    if sum(section) != head_dim // 2:
        raise ScalingError(
            f"{source}.mrope_section",
            f"mrope_section must add up to head_dim / 2 = {head_dim // 2} pairs (got {sum(section)})",
        )
    interleaved = mrope.get("mrope_interleaved")
    if interleaved is not None and not isinstance(interleaved, bool):
        raise ScalingError(f"{source}.mrope_interleaved", "mrope_interleaved must be true or false")
    return {"mrope_section": list(section), "mrope_interleaved": bool(interleaved)}


# Config classes that build no_rope_layers from no_rope_layer_interval when the file gives no list.
NOPE_MODEL_TYPES = ("llama4_text", "llama4", "smollm3")
# Config classes that build layer_types from full_attention_interval (the other layers: linear attention).
LINEAR_HYBRID_MODEL_TYPES = ("qwen3_next",)


def _plain(value: float) -> str:
    """A base as people write it: 2000000, not 2e+06."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e16 else f"{value:g}"


def _first_layers(layers: list[int], shown: int = 10) -> str:
    return ", ".join(map(str, layers[:shown])) + (", …" if len(layers) > shown else "")


def _nope_layers(cfg: dict[str, Any], model_type: str | None, count: int | None, notes: list[str]) -> dict[str, Any] | None:
    """RoPE and NoPE layers from ``no_rope_layers`` (1 = RoPE, 0 = none) or ``no_rope_layer_interval``
    (every interval-th layer is NoPE: SmolLM3Config, Llama4TextConfig), read by content."""
    flags = cfg.get("no_rope_layers")
    interval_given = "no_rope_layer_interval" in cfg
    if flags is None and not interval_given and model_type not in NOPE_MODEL_TYPES:
        return None
    if flags:
        if not isinstance(flags, list) or not all(not isinstance(v, bool) and v in (0, 1) for v in flags):
            raise ScalingError("no_rope_layers", "no_rope_layers must be a list of 0 (NoPE) and 1 (RoPE), one per layer")
        if len(flags) > 4096:
            raise ScalingError("no_rope_layers", "no_rope_layers has more entries than any model has layers (at most 4096)")
        origin = "no_rope_layers"
    else:
        interval = cfg.get("no_rope_layer_interval", 4)
        if not isinstance(interval, int) or isinstance(interval, bool) or interval < 1:
            raise ScalingError("no_rope_layer_interval", f"no_rope_layer_interval must be a positive integer (got {_shown(interval)})")
        if count is None:
            notes.append(
                f"no_rope_layer_interval = {interval}: every {interval}th layer uses no RoPE, but num_hidden_layers is not "
                "given, so the layers cannot be listed."
            )
            return None
        flags = [int((i + 1) % interval != 0) for i in range(count)]
        origin = f"no_rope_layers not given, so every {interval}th layer is NoPE by no_rope_layer_interval = {interval}{'' if interval_given else ' (the default)'}"
    rope = [i for i, v in enumerate(flags) if v]
    nope = [i for i, v in enumerate(flags) if not v]
    text = (
        f"NoPE layers: {len(nope)} of {len(flags)} layers use no RoPE at all (layers {_first_layers(nope)}); the other "
        f"{len(rope)} use the frequencies below ({origin})."
    )
    if model_type in ("llama4_text", "llama4"):
        text += " In Llama 4's layer_types the RoPE layers are chunked_attention and the NoPE layers full_attention."
    notes.append(text)
    return {"rope_layers": rope, "nope_layers": nope, "source": origin}


def _layer_types(cfg: dict[str, Any], model_type: str | None, count: int | None) -> tuple[list[str], str] | None:
    declared = cfg.get("layer_types")
    if isinstance(declared, list) and declared and all(isinstance(v, str) for v in declared):
        return declared, "layer_types"
    if count is None:
        return None
    if model_type in ("gemma3_text", "gemma3"):
        pattern = cfg.get("sliding_window_pattern", 6)
        pattern = pattern if isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0 else 6
        return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(count)], f"layer_types not given, so every {pattern}th layer is full attention by sliding_window_pattern = {pattern}"
    if model_type in LINEAR_HYBRID_MODEL_TYPES or "full_attention_interval" in cfg:
        interval = cfg.get("full_attention_interval", 4)
        if not isinstance(interval, int) or isinstance(interval, bool) or interval < 1:
            raise ScalingError("full_attention_interval", f"full_attention_interval must be a positive integer (got {_shown(interval)})")
        return (
            ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(count)],
            f"layer_types not given, so every {interval}th layer is full attention by full_attention_interval = {interval}",
        )
    return None


def _layers(cfg: dict[str, Any], model_type: str | None, settings: list[Setting], notes: list[str]) -> dict[str, Any] | None:
    """Which layers use which setting (``layer_types``, or the interval a config class builds them
    from), which use no RoPE (``no_rope_layers``, ``no_rope_layer_interval``, linear-attention
    layers), each said in ``notes``."""
    count = cfg.get("num_hidden_layers")
    count = count if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= 4096 else None
    result: dict[str, Any] = {}
    nope = _nope_layers(cfg, model_type, count, notes)
    if nope is not None:
        result.update(nope)
    found = _layer_types(cfg, model_type, count)
    if found is not None and not (nope is not None and model_type in ("llama4_text", "llama4")):
        layer_types, origin = found
        by_type: dict[str, list[int]] = {}
        for i, kind in enumerate(layer_types):
            by_type.setdefault(kind, []).append(i)
        result["layer_types"] = by_type
        own = {setting["layer_type"]: setting for setting in settings if setting["layer_type"]}
        parts = []
        for kind, layers in by_type.items():
            if kind == "linear_attention":
                use = "no RoPE (linear attention keeps no positions to rotate)"
            elif kind in own:
                theta = own[kind]["params"].get("rope_theta")
                use = f"RoPE with rope_theta {_plain(float(theta))} ({own[kind]['where']})" if theta is not None and _finite(theta) else f"RoPE ({own[kind]['where']})"
            else:
                use = "the config's one RoPE setting"
            parts.append(f"{len(layers)} {kind} (layers {_first_layers(layers, 6)}): {use}")
        if len(by_type) > 1 or "linear_attention" in by_type:
            notes.append("Layer types: " + "; ".join(parts) + f" ({origin}).")
    return result or None


def _standardize_one(
    cfg: dict[str, Any],
    model_type: str | None,
    max_pos: int | None,
    head_dim: int,
    params: dict[str, Any],
    source: str,
    notes: list[str],
) -> dict[str, Any]:
    """One RoPE dict standardised as transformers does (the single-setting rules of the module docstring)."""
    unknown = [key for key in params if key not in HF_KEYS]
    for key in unknown:
        notes.append(f"{source}.{key} is not a RoPE parameter this app reads; it is ignored (transformers warns and ignores it).")
        params.pop(key)

    if model_type == "gptj":
        rotary = cfg.get("rotary_dim", 64)
        if rotary is None:
            raise ScalingError("rotary_dim", "GPT-J needs rotary_dim (transformers cannot rotate a head without it)")
        rotary = _integer("rotary_dim", rotary, 2, head_dim)
        params.setdefault("rope_theta", DEFAULT_THETA)
        params.setdefault("partial_rotary_factor", rotary / head_dim)
        notes.append("gptj: the base is fixed at 10000 in the model code; rotary_dim dimensions are rotated, in interleaved pairs.")

    params.setdefault("rope_theta", cfg.get("rope_theta", DEFAULT_THETA))
    if model_type == "phi3":
        params.setdefault("partial_rotary_factor", cfg.get("partial_rotary_factor", 1.0))
    elif cfg.get("partial_rotary_factor") is not None:
        params.setdefault("partial_rotary_factor", cfg["partial_rotary_factor"])

    params.setdefault("rope_type", params.get("type", "default"))
    if params["rope_type"] is None or not isinstance(params["rope_type"], str):
        raise ScalingError(f"{source}.rope_type", f"rope_type must be a string (got {params['rope_type']!r})")
    rope_type = params["rope_type"]
    phi3_remapped = model_type == "phi3" and rope_type in ("su", "yarn")

    # Length standardisation (before the Phi-3 remap, exactly as transformers orders it).
    top_original = cfg.get("original_max_position_embeddings")
    if model_type == "phi3" and top_original is None:
        top_original = 4096
    if rope_type in WITH_ORIGINAL_LENGTH:
        if top_original is not None:
            params["original_max_position_embeddings"] = top_original
        elif "original_max_position_embeddings" not in params:
            if max_pos is None:
                raise ScalingError(
                    "max_position_embeddings",
                    f"rope_type '{rope_type}' needs original_max_position_embeddings or max_position_embeddings",
                )
            params["original_max_position_embeddings"] = max_pos
    if phi3_remapped:
        if "original_max_position_embeddings" not in params:
            notes.append(
                f"phi3: this '{rope_type}' dict has no original_max_position_embeddings, so transformers 5.24 refuses "
                f"it (its longrope check wants the key inside); transformers 4.x, and this app, read the top-level "
                f"value {top_original}."
            )
        params["rope_type"] = "longrope"
        params["original_max_position_embeddings"] = top_original
        notes.append(f"phi3: rope type '{rope_type}' is read as 'longrope', as transformers' Phi3Config does.")
        rope_type = "longrope"
    if model_type == "phi3" and rope_type not in ("default", "longrope"):
        raise ScalingError(f"{source}.rope_type", f"Phi-3 configs accept only 'default' or 'longrope' (got {rope_type!r})")
    if rope_type not in METHODS or not METHODS[rope_type].hf_rope_type:
        raise ScalingError(
            f"{source}.rope_type",
            f"unknown rope_type {rope_type!r}; transformers types supported here: "
            + ", ".join(name for name, method in METHODS.items() if method.hf_rope_type),
        )

    method = METHODS[rope_type]
    allowed = set(COMMON_KEYS) | set(method.required) | set(method.optional) | {"type"}
    if rope_type in WITH_ORIGINAL_LENGTH:
        allowed.add("original_max_position_embeddings")
    for key in [key for key in params if key not in allowed]:
        notes.append(f"{source}.{key} is not read by rope_type '{rope_type}'; it is ignored (transformers warns and ignores it).")
        params.pop(key)
    for name in method.required:
        if name not in params:
            raise ScalingError(f"{source}.{name}", f"rope_type '{rope_type}' requires {name}")
    if rope_type == "dynamic" and max_pos is None:
        raise ScalingError("max_position_embeddings", "rope_type 'dynamic' needs max_position_embeddings (its reference length)")
    if rope_type in ("yarn", "longrope") and params.get("factor") is None and max_pos is None:
        raise ScalingError("max_position_embeddings", f"rope_type '{rope_type}' without factor needs max_position_embeddings")
    return params


def _rope_config(top: dict[str, Any], setting: Setting, seq_len: int | None) -> RopeConfig:
    """Type-check one standardised setting and validate it; errors name the field where it was given."""
    params, where_dict, given = setting["params"], setting["where"], setting["given"]
    prefix = f"{top['text_config']}." if top["text_config"] else ""
    values: dict[str, Any] = {}
    for key, value in params.items():
        where = prefix + (key if key not in given else f"{where_dict}.{key}")
        if where_dict == "rope_local_base_freq" and key == "rope_theta":
            where = prefix + where_dict  # Gemma 3's sliding layers: their base is that key
        if key in ("rope_type", "type"):
            continue
        if key == "truncate":
            if value is not None and not isinstance(value, bool):
                raise ScalingError(where, f"truncate must be true, false or null (got {value!r})")
            values["truncate"] = bool(value)
            continue
        if key in LIST_KEYS:
            if not isinstance(value, list) or not all(_finite(item) for item in value):
                raise ScalingError(where, f"{key} must be a list of numbers")
            if len(value) > MAX_HEAD_DIM // 2:
                raise ScalingError(where, f"{key} has more values than any head has pairs")
            values[key] = tuple(float(item) for item in value)
            continue
        if key == "original_max_position_embeddings":
            values[key] = _integer(where, value)
            continue
        if value is None and key in ("factor", "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim"):
            values[key] = None
            continue
        if key == "rope_theta":
            values[key] = _number(where, value, 1, MAX_THETA, strict_low=True)
        elif key == "partial_rotary_factor":
            values[key] = _number(where, value, 0, 1, strict_low=True)
        elif key in ("factor", "low_freq_factor", "high_freq_factor"):
            values[key] = _number(where, value, 0, MAX_FACTOR)
        elif key in ("beta_fast", "beta_slow"):
            values[key] = _number(where, value, None, 1e6)
        else:
            values[key] = _number(where, value, None, 1e3)
    rope = RopeConfig(
        rope_type=params["rope_type"],
        head_dim=top["head_dim"],
        max_position_embeddings=top["max_position_embeddings"] or 0,
        **values,
    )
    try:
        validate(rope, seq_len)
    except ScalingError as exc:
        field = exc.field
        if field in HF_KEYS:
            field = prefix + (field if field not in given else f"{where_dict}.{field}")
        raise ScalingError(field, exc.message) from None
    return rope


def rope_settings_from_hf(config: dict[str, Any], seq_len: int | None = None) -> dict[str, Any]:
    """Every RoPE setting of a config.json: ``{"top", "notes", "primary", "settings": [{"layer_type",
    "where", "config" (RopeConfig), "standardized" (dict), "notes"}]}``; ``primary`` indexes the
    full-attention setting (or the only one)."""
    top, settings, notes = standardize_all(config)
    out: list[dict[str, Any]] = []
    for setting in settings:
        rope = _rope_config(top, setting, seq_len)
        standardized = {key: (list(value) if isinstance(value, tuple) else value) for key, value in setting["params"].items()}
        out.append({"layer_type": setting["layer_type"], "where": setting["where"], "config": rope,
                    "standardized": standardized, "notes": setting["notes"]})
    primary = _primary_index(settings)
    rope = out[primary]["config"]
    if rope.partial_rotary_factor < 1:
        r, d = rope.rotary_dim, rope.head_dim
        notes.append(
            f"partial_rotary_factor = {rope.partial_rotary_factor:g}: RoPE turns {r} of the {d} dimensions of each head "
            f"({r // 2} pairs); the other {d - r} carry no position."
        )
    return {"top": top, "notes": notes, "primary": primary, "settings": out}


def rope_config_from_hf(config: dict[str, Any], seq_len: int | None = None) -> tuple[RopeConfig, dict[str, Any], list[str]]:
    """Parse, standardise, type-check and validate; returns ``(RopeConfig, rope_parameters, notes)``
    of the primary setting (the full-attention layers', or the only one)."""
    result = rope_settings_from_hf(config, seq_len)
    primary = result["settings"][result["primary"]]
    return primary["config"], {**primary["standardized"], **result["top"]}, result["notes"] + primary["notes"]

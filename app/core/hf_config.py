"""Read the RoPE part of a model's ``config.json`` the way transformers 5.24.0 standardises it.

Input: a plain dict (a parsed ``config.json``, or any subset).  Output: a :class:`RopeConfig`, the
standardised ``rope_parameters`` dict transformers' init functions would read, and notes.

What transformers does, and so what this does (``RotaryEmbeddingConfigMixin``,
``PreTrainedConfig.__post_init__``, the model config classes):
- ``rope_scaling`` (older name) wins over ``rope_parameters`` when it is non-empty.
- A top-level ``rope_theta`` (default 10000) and ``partial_rotary_factor`` are copied into the
  dict unless it already has them.
- ``rope_type`` defaults to the older ``type`` key, then to ``"default"``.
- For ``llama3``/``yarn``/``longrope``, ``original_max_position_embeddings`` comes from a
  top-level key of that name when the config has one (it overrides the dict's value: the init
  functions re-standardise after the config has stored unknown keys as attributes), else it is
  filled from ``max_position_embeddings`` when missing.
- ``head_dim`` is the config's ``head_dim`` when set, else ``hidden_size // num_attention_heads``.
- Model types with their own names: ``gpt_neox`` (``rotary_pct`` → partial_rotary_factor, default
  0.25; ``rotary_emb_base`` → rope_theta), ``gptj`` (``n_embd``/``n_head``/``n_positions``,
  ``rotary_dim`` rotated dims, base fixed at 10000), ``deepseek_v2``/``deepseek_v3`` (head_dim =
  ``qk_rope_head_dim``), ``phi3`` (``type`` "su" or "yarn" → "longrope", top-level
  ``original_max_position_embeddings`` defaults to 4096; a "su" dict without that key fails in
  transformers' validation, so it is refused here too).

Unrelated top-level keys are ignored.  Keys inside the RoPE dict must be RoPE parameters of the
chosen type (transformers warns about the others; we refuse them).
"""

from __future__ import annotations

import math
from typing import Any

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


def standardize(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """Return ``(top, rope_parameters, notes)``: the resolved top-level values (head_dim,
    max_position_embeddings, model_type, pairing) and the standardised RoPE dict."""
    if not isinstance(config, dict):
        raise ScalingError("body", "the body must be a JSON object (a model's config.json)")
    notes: list[str] = []
    model_type = config.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ScalingError("model_type", f"model_type must be a string (got {model_type!r})")
    cfg = dict(config)

    # Model-specific names (attribute maps and config classes).
    if model_type == "gptj":
        for alias, name in (("n_embd", "hidden_size"), ("n_head", "num_attention_heads"), ("n_positions", "max_position_embeddings")):
            if alias in cfg and name not in cfg:
                cfg[name] = cfg[alias]
    if model_type == "gpt_neox":
        if "rotary_emb_base" in cfg and "rope_theta" not in cfg:
            cfg["rope_theta"] = cfg["rotary_emb_base"]
        if "partial_rotary_factor" not in cfg:
            cfg["partial_rotary_factor"] = cfg.get("rotary_pct", 0.25)
    if model_type in ("deepseek_v2", "deepseek_v3"):
        cfg["head_dim"] = cfg.get("qk_rope_head_dim", 64)
        notes.append(f"{model_type}: RoPE acts on the qk_rope_head_dim = {cfg['head_dim']} dimensions of each head.")

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

    max_pos = cfg.get("max_position_embeddings")
    if max_pos is not None:
        max_pos = _integer("max_position_embeddings", max_pos)

    # The RoPE dict: rope_scaling wins when non-empty.
    raw = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    source = "rope_scaling" if cfg.get("rope_scaling") else "rope_parameters"
    if raw is None or raw == {}:
        raw = {}
    if not isinstance(raw, dict):
        raise ScalingError(source, f"{source} must be a JSON object or null (got {type(raw).__name__})")
    for key, value in raw.items():
        if isinstance(value, dict):
            raise ScalingError(f"{source}.{key}", f"per-layer {source} (nested under {key!r}) is not supported")
    params = dict(raw)
    unknown = [key for key in params if key not in HF_KEYS]
    if unknown:
        raise ScalingError(
            f"{source}.{unknown[0]}",
            f"unknown key {unknown[0]!r} in {source}; RoPE parameters are: {', '.join(sorted(HF_KEYS))}",
        )

    if model_type == "gptj":
        rotary = cfg.get("rotary_dim", 64)
        if rotary is None:
            raise ScalingError("rotary_dim", "GPT-J needs rotary_dim (transformers cannot rotate a head without it)")
        rotary = _integer("rotary_dim", rotary, 2, head_dim)
        params.setdefault("rope_theta", DEFAULT_THETA)
        params.setdefault("partial_rotary_factor", rotary / head_dim)
        notes.append("gptj: the base is fixed at 10000 in the model code; rotary_dim dimensions are rotated, in interleaved pairs.")

    top_theta = cfg.get("rope_theta", DEFAULT_THETA)
    if top_theta is None:
        raise ScalingError("rope_theta", "rope_theta must be a number, not null")
    params.setdefault("rope_theta", top_theta)
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
            raise ScalingError(
                f"{source}.original_max_position_embeddings",
                f"Phi-3 rope type '{rope_type}' is renamed to 'longrope' after standardisation, so transformers 5.24 "
                "requires original_max_position_embeddings inside the dict and fails without it",
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
    for key in params:
        if key not in allowed:
            raise ScalingError(
                f"{source}.{key}",
                f"{key} is not a parameter of rope_type '{rope_type}' (transformers warns and ignores it); "
                f"allowed: {', '.join(sorted(allowed - {'type'}))}",
            )
    for name in method.required:
        if name not in params:
            raise ScalingError(f"{source}.{name}", f"rope_type '{rope_type}' requires {name}")
    if rope_type == "dynamic" and max_pos is None:
        raise ScalingError("max_position_embeddings", "rope_type 'dynamic' needs max_position_embeddings (its reference length)")
    if rope_type in ("yarn", "longrope") and params.get("factor") is None and max_pos is None:
        raise ScalingError("max_position_embeddings", f"rope_type '{rope_type}' without factor needs max_position_embeddings")

    top = {"model_type": model_type, "head_dim": head_dim, "max_position_embeddings": max_pos,
           "pairing": "interleaved" if model_type == "gptj" else "half"}
    return top, params, notes


def rope_config_from_hf(config: dict[str, Any], seq_len: int | None = None) -> tuple[RopeConfig, dict[str, Any], list[str]]:
    """Parse, standardise, type-check and validate; returns ``(RopeConfig, rope_parameters, notes)``."""
    top, params, notes = standardize(config)
    source = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
    values: dict[str, Any] = {}
    for key, value in params.items():
        where = key if key in ("rope_theta", "partial_rotary_factor") and key not in (config.get(source) or {}) else f"{source}.{key}"
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
        if field in HF_KEYS and field not in ("rope_theta", "partial_rotary_factor"):
            field = f"{source}.{field}"
        raise ScalingError(field, exc.message) from None
    standardized = {key: (list(value) if isinstance(value, tuple) else value) for key, value in params.items()}
    return rope, {**standardized, **top}, notes

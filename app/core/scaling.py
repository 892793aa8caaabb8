"""RoPE scaling methods: one registry, one signature, numbers as Hugging Face computes them.

Every method is ``fn(config: RopeConfig, seq_len: int | None) -> (inv_freq, attention_factor)``
with ``inv_freq`` of shape ``(r/2,)`` (float64) and ``attention_factor`` the number the forward
pass multiplies cos and sin by (so attention logits are multiplied by its square).

Source: transformers 5.24.0 ``modeling_rope_utils.py`` (``_compute_linear_scaling_rope_parameters``,
``_compute_dynamic_ntk_parameters``, ``_compute_yarn_parameters``, ``_compute_longrope_parameters``,
``_compute_llama3_parameters``) and ``GPTNeoXRotaryEmbedding.compute_default_rope_parameters`` for
``default``.  The static NTK-aware base change (``ntk``) is not a transformers rope_type; it follows
jquesnelle/yarn ``LlamaNTKScaledRotaryEmbedding``: b' = b·α^(r/(r−2)).

Notation: r = int(head_dim · partial_rotary_factor) (the rotary dimension), b = rope_theta,
s = factor, L0 = original_max_position_embeddings, Lmax = max_position_embeddings,
θ_j = b^(−2j/r) for j = 0 … r/2−1.

Differences from the library, on purpose: where transformers would crash (r = 2 with dynamic NTK,
a zero low_freq_factor) or only log a warning about an invalid value (factor < 1, factor lists of
the wrong length, high_freq_factor ≤ low_freq_factor, beta_fast < beta_slow), :func:`validate`
raises :class:`ScalingError` naming the field.  Warnings about *consistency* between lengths that
the library then computes through (an explicit YaRN factor ≠ Lmax/L0, llama3's L0 ≥ Lmax, LongRoPE
deriving its factor from Lmax/L0) are returned by :func:`consistency_notes` instead, because
published configs (Phi-3) trigger them.

Adding a method is adding one :class:`Method` entry to :data:`METHODS`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from app.core.frequencies import inverse_frequencies, pair_with_turns, rotary_dim_problem
from app.core.rules import sentence

DEFAULT_THETA = 10000.0

FloatArray = npt.NDArray[np.float64]
_T = TypeVar("_T")


class ScalingError(ValueError):
    """An invalid scaling configuration; ``field`` names the offending parameter (HF name)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


@dataclass(frozen=True)
class RopeConfig:
    """The RoPE parameters a scaling method reads, with Hugging Face's names.

    ``None`` means "not set" where transformers distinguishes it from a value (YaRN/LongRoPE
    ``factor`` → Lmax/L0; ``attention_factor`` → derived).  ``truncate`` is already resolved
    (HF reads ``rope_parameters.get("truncate", True)``, so an explicit null means False).
    """

    rope_type: str = "default"
    rope_theta: float = DEFAULT_THETA
    head_dim: int = 128
    partial_rotary_factor: float = 1.0
    max_position_embeddings: int = 4096
    factor: float | None = None
    original_max_position_embeddings: int | None = None
    attention_factor: float | None = None
    beta_fast: float | None = None
    beta_slow: float | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    truncate: bool = True
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None

    @property
    def rotary_dim(self) -> int:
        return int(self.head_dim * self.partial_rotary_factor)

    def with_(self, **changes: Any) -> RopeConfig:
        return replace(self, **changes)


def given(config: RopeConfig, name: str, value: _T | None) -> _T:
    """``value``, the field ``name`` of ``config``, which the method reading it lists in
    ``Method.required`` (so :func:`validate` has refused ``config`` if it is None).  A config that
    did not pass :func:`validate` gets the same :class:`ScalingError` here."""
    if value is None:
        raise ScalingError(name, f"rope_type '{config.rope_type}' requires {name}")
    return value


FIELD_NAMES = tuple(item.name for item in fields(RopeConfig))


# Every method: (config, current length or None) -> (inv_freq (r/2,), attention_factor).
ScalingMethod = Callable[[RopeConfig, int | None], tuple[FloatArray, float]]


@dataclass(frozen=True)
class Method:
    """One scaling method.  ``required``: fields that must be set (non-None); ``optional``: other
    fields it reads.  Both use HF names, and together say which keys a config may carry."""

    name: str
    title: str
    compute: ScalingMethod
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    hf_rope_type: bool = True
    reads_seq_len: bool = False
    summary: str = ""
    check: Callable[[RopeConfig], None] | None = field(default=None, repr=False)


# ---- shared pieces --------------------------------------------------------------------------


@overload
def get_mscale(scale: float, mscale: float = 1.0) -> float: ...
@overload
def get_mscale(scale: np.ndarray, mscale: float = 1.0) -> FloatArray: ...
def get_mscale(scale: float | np.ndarray, mscale: float = 1.0) -> float | FloatArray:
    """YaRN's attention temperature: 1 if s ≤ 1 else 0.1·k·ln(s) + 1 (HF ``get_mscale``).
    A number → a float computed as HF does (``math.log``); an array of scales → that shape."""
    if np.ndim(scale):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(scale <= 1, 1.0, 0.1 * mscale * np.log(scale) + 1.0)
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


@overload
def longrope_attention(scale: float, original_max_position_embeddings: int) -> float: ...
@overload
def longrope_attention(scale: np.ndarray, original_max_position_embeddings: int) -> FloatArray: ...
def longrope_attention(scale: float | np.ndarray, original_max_position_embeddings: int) -> float | FloatArray:
    """LongRoPE's default attention factor: 1 if s ≤ 1 else sqrt(1 + ln s / ln L0).
    A number → a float (``math``, as HF); an array of scales → that shape."""
    if np.ndim(scale):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(scale <= 1, 1.0, np.sqrt(1 + np.log(scale) / math.log(original_max_position_embeddings)))
    if scale <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(scale) / math.log(original_max_position_embeddings))


def yarn_correction_range(config: RopeConfig) -> tuple[float, float]:
    """(low, high) pair indices of YaRN's ramp, as HF computes them (floor/ceil when truncating,
    clamped to [0, r−1]; note r−1, not r/2−1)."""
    r = config.rotary_dim
    beta_fast = config.beta_fast or 32
    beta_slow = config.beta_slow or 1
    L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    low = pair_with_turns(beta_fast, L0, r, config.rope_theta)
    high = pair_with_turns(beta_slow, L0, r, config.rope_theta)
    if config.truncate:
        low = math.floor(low)
        high = math.ceil(high)
    return max(low, 0), min(high, r - 1)


def yarn_ramp(low: float, high: float, pairs: np.ndarray) -> np.ndarray:
    """YaRN's ramp clip((j − low)/(high − low), 0, 1) at the pair indices ``pairs`` (whole for the
    method, fractional for a curve drawn through them), evaluated in float32 as transformers does
    (``linear_ramp_factor``: ``torch.arange(dim, dtype=torch.float32)``); high is nudged by 0.001
    when low == high.  0 keeps θ_j, 1 divides it by s.  Shape of ``pairs``, float64."""
    if low == high:
        high += 0.001
    j = np.asarray(pairs, dtype=np.float32)
    ramp = (j - np.float32(low)) / np.float32(high - low)
    return np.clip(ramp, 0, 1).astype(np.float64)


def yarn_ramp_curves(config: RopeConfig, wavelength: np.ndarray) -> dict[str, object]:
    """YaRN's scale θ'/θ over a wavelength axis ``(W,)``, as the paper defines it and as the code does.

    Paper (Peng et al. 2023, "NTK-by-parts"): γ(ρ) = clip((ρ − α)/(β − α), 0, 1) with ρ = L0/λ the turns
    over the training length, α = beta_slow, β = beta_fast, and θ'/θ = γ + (1 − γ)/s.  Code (HF):
    the ramp of :func:`yarn_ramp` in pair index between the correction dims, read at the fractional
    pair j(λ) = :func:`pair_with_turns` (1, λ) of each wavelength, θ'/θ = (1 − ramp) + ramp/s.
    Returns both curves ``(W,)``, ``pair`` = j(λ) ``(W,)``, α, β, the correction range as used and
    unrounded (the pairs at the paper's edges λ = L0/β and L0/α), and those edges.
    """
    r = config.rotary_dim
    s = effective_factor(config)
    alpha, beta = config.beta_slow or 1, config.beta_fast or 32
    L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    ratio = L0 / wavelength
    gamma = np.clip((ratio - alpha) / (beta - alpha), 0, 1) if beta != alpha else (ratio > alpha).astype(float)
    low, high = yarn_correction_range(config)
    pairs = pair_with_turns(1, wavelength, r, config.rope_theta)
    ramp = yarn_ramp(low, high, pairs)
    return {
        "wavelength": wavelength,
        "pair": pairs,
        "paper_scale": gamma + (1 - gamma) / s,
        "code_scale": (1 - ramp) + ramp / s,
        "alpha": alpha,
        "beta": beta,
        "correction_range": [low, high],
        "correction_range_unrounded": [
            pair_with_turns(beta, L0, r, config.rope_theta),
            pair_with_turns(alpha, L0, r, config.rope_theta),
        ],
        "paper_edges": [L0 / beta, L0 / alpha],
    }


def longrope_switch(config: RopeConfig, seq_len: int, samples: int = 160) -> dict[str, object]:
    """LongRoPE's two factor sets as scales θ'_j/θ_j ``(r/2,)``, and the scale of three pairs (the
    fastest, the middle and the slowest) against the current length ``(3, N)``: transformers uses
    short_factor while seq_len ≤ L0 and long_factor once seq_len > L0 (``dynamic_rope_update``; at
    init, seq_len None, short).  The N lengths run geometrically from L0/16 to max(16·L0, 2·seq_len)
    over ``samples`` points, with L0, L0 + 1 and seq_len among them."""
    theta = inverse_frequencies(config.rotary_dim, config.rope_theta)
    L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    short, attention = compute(config, None)
    long, _ = compute(config, L0 + 1)
    top = max(16 * L0, 2 * seq_len)
    lengths = np.unique(np.concatenate([
        np.geomspace(max(1, L0 // 16), top, samples).astype(np.int64), [L0, L0 + 1, max(seq_len, 1)]
    ]))
    pairs = sorted({0, len(theta) // 2, len(theta) - 1})
    at_length = np.array([compute(config, int(n))[0][pairs] / theta[pairs] for n in lengths])
    return {
        "short_scale": short / theta,
        "long_scale": long / theta,
        "in_use": "long" if seq_len > L0 else "short",
        "switch_after": L0,
        "attention_factor": attention,
        "lengths": lengths,
        "pairs": pairs,
        "scale_at_length": at_length.T,
    }


def effective_factor(config: RopeConfig) -> float:
    """The factor YaRN and LongRoPE use: ``factor``, or Lmax/L0 when it is None."""
    if config.factor is None:
        L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
        return config.max_position_embeddings / L0
    return float(config.factor)


def deepseek_softmax_multiplier(config: RopeConfig) -> float | None:
    """DeepSeek-V2/V3's extra factor on the softmax scale, get_mscale(s, mscale_all_dim)²
    (``yarn_apply_mscale`` in transformers' modeling_deepseek_v3: applied when rope_type is not
    default and mscale_all_dim is truthy, with s = the ``factor`` key).  It multiplies the logits
    on top of attention_factor²; None when it does not apply."""
    if config.rope_type == "default" or not config.mscale_all_dim or config.factor is None:
        return None
    return get_mscale(float(config.factor), config.mscale_all_dim) ** 2


def extension_status(target_len: int, train_len: int) -> dict[str, object]:
    """Whether a target length T asks a model trained on L0 tokens to extend at all:
    ``{"extends", "reason"}``, with one sentence saying why not when T ≤ L0 (T/L0 ≤ 1)."""
    if target_len > train_len:
        return {"extends": True, "reason": None}
    relation = "equals" if target_len == train_len else "is below"
    return {
        "extends": False,
        "reason": (
            f"the target length T = {target_len:,} {relation} the training length L0 = {train_len:,} "
            f"(T/L0 = {target_len / train_len:.6g}): the model was trained on every position up to T, so nothing is extended"
        ),
    }


def yarn_attention(config: RopeConfig) -> float:
    """YaRN attention factor: explicit value, else mscale/mscale_all_dim ratio only when both are
    truthy, else 0.1·ln s + 1 (an ``mscale`` given alone is ignored)."""
    if config.attention_factor is not None:
        return float(config.attention_factor)
    s = effective_factor(config)
    if config.mscale and config.mscale_all_dim:
        return float(get_mscale(s, config.mscale) / get_mscale(s, config.mscale_all_dim))
    return get_mscale(s)


def dynamic_alpha(config: RopeConfig, seq_len: int | None) -> float:
    """Dynamic NTK's α at the current length: s·L/Lmax − (s−1) with L = max(seq_len, Lmax)
    (HF ``_compute_dynamic_ntk_parameters``; 1 up to Lmax, so the base is unchanged there)."""
    Lmax = config.max_position_embeddings
    length = Lmax if seq_len is None else max(seq_len, Lmax)
    s = given(config, "factor", config.factor)
    return (s * length / Lmax) - (s - 1)


def dynamic_base(config: RopeConfig, seq_len: int | None) -> float:
    """Dynamic NTK base at the current length: the NTK-aware base b·α^(r/(r−2)) with
    α = :func:`dynamic_alpha`."""
    return ntk_base(config.rope_theta, dynamic_alpha(config, seq_len), config.rotary_dim)


def ntk_exponent(rotary_dim: int) -> float | None:
    """The power r/(r−2) that NTK-aware and dynamic NTK raise α to; None for r ≤ 2, where it does not
    exist (:data:`ROTARY_ABOVE_TWO`)."""
    return rotary_dim / (rotary_dim - 2) if rotary_dim > 2 else None


def ntk_base(base: float, alpha: float, rotary_dim: int) -> float:
    """Static NTK-aware base: b·α^(r/(r−2)) (jquesnelle/yarn ``LlamaNTKScaledRotaryEmbedding``)."""
    exponent = ntk_exponent(rotary_dim)
    if exponent is None:
        raise ScalingError("head_dim", f"the NTK-aware base needs a rotary dimension above 2 (r = {rotary_dim})")
    return base * alpha ** exponent


def llama3_bands(config: RopeConfig) -> dict[str, float]:
    """Wavelength edges of llama3 smoothing: λ_high = L0/high_freq_factor, λ_low = L0/low_freq_factor."""
    L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    high = given(config, "high_freq_factor", config.high_freq_factor)
    low = given(config, "low_freq_factor", config.low_freq_factor)
    return {"high_freq_wavelen": L0 / high, "low_freq_wavelen": L0 / low}


def llama3_band_masks(config: RopeConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs kept (λ < λ_high), blended (neither) and divided by s (λ > λ_low), with HF's strict
    comparisons; three boolean arrays ``(r/2,)``."""
    wavelen = 2 * math.pi / inverse_frequencies(config.rotary_dim, config.rope_theta)
    edges = llama3_bands(config)
    kept = wavelen < edges["high_freq_wavelen"]
    divided = wavelen > edges["low_freq_wavelen"]
    return kept, ~kept & ~divided, divided


def llama3_band_counts(config: RopeConfig) -> dict[str, float | int]:
    """Band edges and the number of pairs kept, blended and divided by s."""
    kept, blended, divided = llama3_band_masks(config)
    return {**llama3_bands(config), "kept": int(kept.sum()), "smoothed": int(blended.sum()), "divided": int(divided.sum())}


# ---- the methods ------------------------------------------------------------------------------


def _default(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    return inverse_frequencies(config.rotary_dim, config.rope_theta), 1.0


def _linear(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    return inverse_frequencies(config.rotary_dim, config.rope_theta) / given(config, "factor", config.factor), 1.0


def _dynamic(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    return inverse_frequencies(config.rotary_dim, dynamic_base(config, seq_len)), 1.0


def _ntk(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    base = ntk_base(config.rope_theta, given(config, "factor", config.factor), config.rotary_dim)
    return inverse_frequencies(config.rotary_dim, base), 1.0


def _yarn(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    r = config.rotary_dim
    s = effective_factor(config)
    theta = inverse_frequencies(r, config.rope_theta)
    low, high = yarn_correction_range(config)
    extrapolation = 1 - yarn_ramp(low, high, np.arange(r // 2))
    inv_freq = (theta / s) * (1 - extrapolation) + theta * extrapolation
    return inv_freq, yarn_attention(config)


def _longrope(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    s = effective_factor(config)
    attention = float(config.attention_factor) if config.attention_factor is not None else longrope_attention(s, L0)
    if seq_len and seq_len > L0:
        ext = given(config, "long_factor", config.long_factor)
    else:
        ext = given(config, "short_factor", config.short_factor)
    return inverse_frequencies(config.rotary_dim, config.rope_theta, divisors=ext), attention


def _llama3(config: RopeConfig, seq_len: int | None) -> tuple[FloatArray, float]:
    theta = inverse_frequencies(config.rotary_dim, config.rope_theta)
    s = given(config, "factor", config.factor)
    low = given(config, "low_freq_factor", config.low_freq_factor)
    high = given(config, "high_freq_factor", config.high_freq_factor)
    L0 = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    _, medium, divided = llama3_band_masks(config)
    wavelen = 2 * math.pi / theta
    out = np.where(divided, theta / s, theta)
    with np.errstate(divide="ignore", invalid="ignore"):  # high == low: no blended pair reads it
        smooth = (L0 / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * out / s + smooth * out
    return np.where(medium, smoothed, out), 1.0


# ---- validation ----------------------------------------------------------------------------------


def _check_factor_at_least_one(config: RopeConfig) -> None:
    if config.factor is not None and config.factor < 1:
        raise ScalingError("factor", f"factor must be at least 1 for rope_type '{config.rope_type}' (got {config.factor:g})")


# The rules whose sentence the parameter models also show on their pages (app.core.rules).
ROTARY_ABOVE_TWO = (
    "rope_type '{rope_type}' raises the base to the power r/(r−2), so it needs a rotary dimension above 2 "
    "(r = {rotary_dim}; transformers divides by zero there)"
)
BETA_ORDER = (
    "beta_slow ({beta_slow}) must not exceed beta_fast ({beta_fast}); 0 or null means the defaults 1 and 32"
)


def _check_rotary_above_two(config: RopeConfig) -> None:
    if ntk_exponent(config.rotary_dim) is None:
        raise ScalingError(
            "partial_rotary_factor" if config.partial_rotary_factor < 1 else "head_dim",
            sentence(ROTARY_ABOVE_TWO, rope_type=config.rope_type, rotary_dim=config.rotary_dim),
        )


def _check_dynamic(config: RopeConfig) -> None:
    _check_factor_at_least_one(config)
    _check_rotary_above_two(config)


def _check_yarn(config: RopeConfig) -> None:
    _check_factor_at_least_one(config)
    for name in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim"):
        value = getattr(config, name)
        if value is not None and value < 0:
            raise ScalingError(name, f"{name} must not be negative (got {value:g})")
    if (config.beta_fast or 32) < (config.beta_slow or 1):
        raise ScalingError("beta_slow", sentence(BETA_ORDER, beta_slow=config.beta_slow or 1, beta_fast=config.beta_fast or 32))
    # A tiny positive beta (below ~1e-305) makes L0/(2π·beta) overflow: the correction dimension is
    # infinite, transformers fails on math.floor/ceil(inf) with truncate and computes NaN without it.
    train_len = given(config, "original_max_position_embeddings", config.original_max_position_embeddings)
    for name, turns in (("beta_fast", config.beta_fast or 32), ("beta_slow", config.beta_slow or 1)):
        if not math.isfinite(pair_with_turns(turns, train_len, config.rotary_dim, config.rope_theta)):
            raise ScalingError(
                name,
                f"{name} ({turns:g}) is so small that original_max_position_embeddings / (2π·{name}) overflows; "
                "use 0 for the default or a value of at least 1e-300",
            )
    _check_attention_factor(config)
    if config.factor is None and train_len > config.max_position_embeddings:
        raise ScalingError(
            "factor",
            "factor is not set, so YaRN would use max_position_embeddings / original_max_position_embeddings "
            f"= {config.max_position_embeddings}/{train_len} < 1",
        )


def _check_attention_factor(config: RopeConfig) -> None:
    if config.attention_factor is not None and config.attention_factor <= 0:
        raise ScalingError("attention_factor", f"attention_factor must be positive (got {config.attention_factor:g})")


def _check_longrope(config: RopeConfig) -> None:
    _check_factor_at_least_one(config)
    _check_attention_factor(config)
    pairs = config.rotary_dim // 2
    for name in ("short_factor", "long_factor"):
        values = getattr(config, name)
        if len(values) != pairs:
            raise ScalingError(
                name, f"{name} must have one value per rotated pair: r/2 = {pairs} values (got {len(values)})"
            )
        # Positive and normal: θ_j is divided by it, and 1/(a subnormal) overflows to inf.
        if any(not (value >= sys.float_info.min) for value in values):
            raise ScalingError(name, f"every {name} value must be positive and at least {sys.float_info.min:.4g} (θ_j is divided by it)")
    if given(config, "original_max_position_embeddings", config.original_max_position_embeddings) < 2:
        raise ScalingError(
            "original_max_position_embeddings", "original_max_position_embeddings must be at least 2 (its log divides)"
        )


# Llama 3's smoothing band runs from L/high_freq_factor to L/low_freq_factor; equal factors (as
# Llama 4 ships them) leave it empty, which transformers computes without trouble.  The reason is
# shared with the parameter models' bound (app/views/_rope_scaling.py), so API, page and core agree.
LLAMA3_BANDS = "not below low_freq_factor = {low_freq_factor}; equal factors, as in Llama 4, leave no blended band"


def _check_llama3(config: RopeConfig) -> None:
    _check_factor_at_least_one(config)
    low_freq_factor = given(config, "low_freq_factor", config.low_freq_factor)
    high_freq_factor = given(config, "high_freq_factor", config.high_freq_factor)
    if low_freq_factor <= 0:
        raise ScalingError("low_freq_factor", f"low_freq_factor must be positive (got {low_freq_factor:g})")
    if high_freq_factor < low_freq_factor:
        low = f"{low_freq_factor:g}"
        raise ScalingError(
            "high_freq_factor",
            f"high_freq_factor must be at least {low} here ({LLAMA3_BANDS.format(low_freq_factor=low)}); "
            f"got {high_freq_factor:g}",
        )


def _check_ntk(config: RopeConfig) -> None:
    _check_factor_at_least_one(config)
    _check_rotary_above_two(config)


METHODS: dict[str, Method] = {
    method.name: method
    for method in (
        Method("default", "No scaling", _default, summary="θ_j = b^(−2j/r)"),
        Method(
            "linear",
            "Position interpolation",
            _linear,
            required=("factor",),
            check=_check_factor_at_least_one,
            summary="Every θ_j divided by s (positions squeezed by s).",
        ),
        Method(
            "dynamic",
            "Dynamic NTK",
            _dynamic,
            required=("factor",),
            reads_seq_len=True,
            check=_check_dynamic,
            summary="Base raised to b·(s·L/Lmax − (s−1))^(r/(r−2)) once the current length L passes Lmax.",
        ),
        Method(
            "yarn",
            "YaRN",
            _yarn,
            required=("original_max_position_embeddings",),
            optional=("factor", "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate"),
            check=_check_yarn,
            summary="Fast pairs kept, slow pairs divided by s, a linear ramp in pair index between; attention × (0.1 ln s + 1).",
        ),
        Method(
            "longrope",
            "LongRoPE",
            _longrope,
            required=("short_factor", "long_factor", "original_max_position_embeddings"),
            optional=("factor", "attention_factor"),
            reads_seq_len=True,
            check=_check_longrope,
            summary="A searched divisor per pair: short factors up to L0, long factors beyond; attention × sqrt(1 + ln s/ln L0).",
        ),
        Method(
            "llama3",
            "Llama 3.1",
            _llama3,
            required=("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
            check=_check_llama3,
            summary="Wavelengths below L0/high kept, above L0/low divided by s, blended linearly in frequency between.",
        ),
        Method(
            "ntk",
            "NTK-aware (static)",
            _ntk,
            required=("factor",),
            hf_rope_type=False,
            check=_check_ntk,
            summary="Base raised once to b·α^(r/(r−2)) with α = factor; not a transformers rope_type.",
        ),
    )
}

# Fields every method accepts besides its own (HF: rope_type, rope_theta, partial_rotary_factor).
COMMON_KEYS = ("rope_type", "rope_theta", "partial_rotary_factor")


def validate(config: RopeConfig, seq_len: int | None = None) -> Method:
    """Check ``config`` for ``config.rope_type``; returns the method.  Raises :class:`ScalingError`."""
    method = METHODS.get(config.rope_type)
    if method is None:
        raise ScalingError(
            "rope_type", f"unknown rope_type {config.rope_type!r}; known: {', '.join(METHODS)}"
        )
    if not (config.rope_theta > 1) or not math.isfinite(config.rope_theta):
        raise ScalingError("rope_theta", f"rope_theta must be a finite number above 1 (got {config.rope_theta})")
    if not (0 < config.partial_rotary_factor <= 1):
        raise ScalingError(
            "partial_rotary_factor", f"partial_rotary_factor must be in (0, 1] (got {config.partial_rotary_factor})"
        )
    problem = rotary_dim_problem(config.head_dim, config.partial_rotary_factor)
    if problem:
        raise ScalingError("partial_rotary_factor" if config.partial_rotary_factor < 1 else "head_dim", problem)
    for name in method.required:
        if getattr(config, name) is None:
            raise ScalingError(name, f"rope_type '{config.rope_type}' requires {name}")
    if seq_len is not None and seq_len < 0:
        raise ScalingError("seq_len", f"seq_len must not be negative (got {seq_len})")
    if method.check is not None:
        method.check(config)
    return method


def compute(config: RopeConfig, seq_len: int | None = None) -> tuple[FloatArray, float]:
    """Validate and run the method of ``config.rope_type``: ``(inv_freq (r/2,), attention_factor)``."""
    method = validate(config, seq_len)
    inv_freq, attention = method.compute(config, seq_len)
    return np.asarray(inv_freq, dtype=np.float64), float(attention)


def consistency_notes(config: RopeConfig) -> list[str]:
    """Transformers' warnings about lengths that disagree, which it then computes through anyway."""
    notes = []
    t = config.rope_type
    Lmax = config.max_position_embeddings
    L0 = config.original_max_position_embeddings
    if t == "yarn" and config.factor is not None and L0:
        implicit = Lmax / L0
        if implicit != config.factor and implicit != 1:
            notes.append(
                f"factor {config.factor:g} differs from max_position_embeddings / original_max_position_embeddings "
                f"= {implicit:g}; transformers warns and uses the explicit factor."
            )
    if t == "llama3" and L0 is not None and Lmax and Lmax <= L0:
        notes.append(
            f"original_max_position_embeddings ({L0}) is not below max_position_embeddings ({Lmax}); transformers "
            "warns and computes anyway."
        )
    if t == "llama3" and config.high_freq_factor is not None and config.high_freq_factor == config.low_freq_factor:
        notes.append(
            f"high_freq_factor equals low_freq_factor ({config.high_freq_factor:g}): no pair is blended, each is kept or "
            "divided by s; transformers warns and computes it."
        )
    if t == "longrope" and config.factor is None and L0 is not None:
        notes.append(
            f"factor is not set, so transformers uses max_position_embeddings / original_max_position_embeddings "
            f"= {Lmax}/{L0} = {Lmax / L0:g} for the attention factor (and warns)."
        )
    if t == "yarn" and config.mscale and not config.mscale_all_dim and config.attention_factor is None:
        notes.append("mscale is set without mscale_all_dim, so transformers ignores it and uses 0.1·ln s + 1.")
    return notes

"""Context extension: what each RoPE scaling method does to every pair, side by side.

One set of parameters (base, head dim, training length L0, current/target length T, factor s and
the method-specific fields, all with Hugging Face's names) evaluates every method of
``app.core.scaling.METHODS``; the chosen ``rope_type`` is drawn on top.  Presets link here with
the parameters of real published configs.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

import numpy as np
from pydantic import Field

from app.core import scaling
from app.core.frequencies import rotary_dim
from app.core.hf_config import rope_config_from_hf
from app.core.presets import PRESETS
from app.views._rope_scaling import MAX_LENGTH, ScalingChecks, rope_config_of, scaling_fields, with_method_fields
from app.views.ladder import Llama3Bands, Temperatures, scaled_result, spectrum_query
from app.web.answers import Answer, Floats, Ints, Matrix, doc
from app.web.fields import Base, HeadDim, PartialRotaryFactor
from app.web.params import UI, Display
from app.web.views import View, register

_F = scaling_fields(hidden=False)
DENSE = 400


@with_method_fields(_F)
class SpectrumParams(ScalingChecks):
    head_dim: HeadDim = 128
    base: Base = 10000.0
    partial_rotary_factor: PartialRotaryFactor = 1.0
    original_max_position_embeddings: _F["original_max_position_embeddings"] = 4096
    seq_len: Annotated[
        int,
        Field(ge=1, le=MAX_LENGTH, description="Target length T: the current sequence length the methods are evaluated at."),
        UI("Target length T", kind="log", unit="tokens"),
    ] = 32768
    factor: _F["factor"] = 8.0
    rope_type: _F["rope_type"] = "yarn"
    max_position_embeddings: _F["max_position_embeddings"] = 4096


class SpectrumDisplay(Display):
    x_axis: Annotated[
        Literal["wavelength", "pair"],
        Field(description="Horizontal axis of the per-pair plots: wavelength (log) or pair index."),
        UI("Horizontal axis"),
    ] = "wavelength"


def _ramp_curves(params: SpectrumParams, wavelength_grid: np.ndarray) -> dict[str, Any]:
    """YaRN's ramp as the paper defines it (linear in r = L/λ between α = beta_slow and
    β = beta_fast) and as the code does (linear in pair index between the correction dims)."""
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    cfg = rope_config_of(params, rope_type="yarn")
    s = scaling.effective_factor(cfg)
    alpha, beta = cfg.beta_slow or 1, cfg.beta_fast or 32
    L = params.original_max_position_embeddings
    ratio = L / wavelength_grid
    gamma = np.clip((ratio - alpha) / (beta - alpha), 0, 1) if beta != alpha else (ratio > alpha).astype(float)
    low, high = scaling.yarn_correction_range(cfg)
    if low == high:
        high += 0.001
    j = (r / 2) * np.log(wavelength_grid / (2 * math.pi)) / math.log(params.base)
    ramp = np.clip((j - low) / (high - low), 0, 1)
    return {
        "wavelength": wavelength_grid,
        "paper_scale": gamma + (1 - gamma) / s,
        "code_scale": (1 - ramp) + ramp / s,
        "alpha": alpha,
        "beta": beta,
        "correction_range": [low, high if high != low + 0.001 else low],
        "correction_range_unrounded": [
            scaling.correction_dim(beta, r, params.base, L),
            scaling.correction_dim(alpha, r, params.base, L),
        ],
        "paper_edges": [L / beta, L / alpha],
    }


SWITCH_LENGTHS = 160


def _longrope_switch(params: SpectrumParams, theta: np.ndarray) -> dict[str, Any] | None:
    """LongRoPE's two factor sets side by side, and θ'_j/θ_j of a few pairs against the current
    length: transformers uses short_factor while seq_len ≤ L0 and long_factor once seq_len > L0
    (``dynamic_rope_update``; at init, seq_len None, short).  None unless rope_type is longrope."""
    if params.rope_type != "longrope":
        return None
    cfg = rope_config_of(params, rope_type="longrope")
    L0 = params.original_max_position_embeddings
    T = params.seq_len
    short, attention = scaling.compute(cfg, None)
    long, _ = scaling.compute(cfg, L0 + 1)
    top = max(16 * L0, 2 * T)
    lengths = np.unique(np.concatenate([
        np.geomspace(max(1, L0 // 16), top, SWITCH_LENGTHS).astype(np.int64), [L0, L0 + 1, max(T, 1)]
    ]))
    pairs = sorted({0, len(theta) // 2, len(theta) - 1})
    at_length = np.array([scaling.compute(cfg, int(n))[0][pairs] / theta[pairs] for n in lengths])
    return {
        "short_scale": short / theta,
        "long_scale": long / theta,
        "in_use": "long" if T > L0 else "short",
        "switch_after": L0,
        "attention_factor": attention,
        "lengths": lengths,
        "pairs": pairs,
        "scale_at_length": at_length.T,  # (pairs, lengths)
    }


def _extension_status(params: SpectrumParams) -> dict[str, Any]:
    """Whether the target length T needs extending at all (T/L0 > 1), with why not when it does not."""
    L = params.original_max_position_embeddings
    T = params.seq_len
    if T > L:
        return {"extends": True, "reason": None}
    relation = "equals" if T == L else "is below"
    return {
        "extends": False,
        "reason": (
            f"the target length T = {T:,} {relation} the training length L0 = {L:,} (T/L0 = {T / L:.6g}): the model was "
            "trained on every position up to T, so nothing is extended; the static methods still apply factor "
            f"s = {params.factor:g} whatever the length, dynamic NTK keeps the base up to max_position_embeddings, and "
            "LongRoPE uses its short factors"
        ),
    }


class SpectrumMethod(Answer):
    """One scaling method at these parameters."""

    title: str
    summary: str
    hf: bool = doc("Whether transformers implements it.")
    available: bool = doc("Whether it can be evaluated at these parameters.")
    reason: str | None = doc("Why it is not available.", optional=True)
    inv_freq: Floats | None = doc("θ_j after scaling (when available).", optional=True)
    scale: Floats | None = doc("inv_freq / unscaled_inv_freq (when available).", optional=True)
    attention_factor: float | None = doc("When available.", optional=True)


class SpectrumSelected(Temperatures):
    """The chosen rope_type in full."""

    inv_freq: Floats
    scale: Floats


class SpectrumRamp(Answer):
    """YaRN's ramp as the paper writes it (in L/λ) and as the code does (in pair index)."""

    wavelength: Floats
    paper_scale: Floats
    code_scale: Floats
    alpha: float
    beta: float
    correction_range: Floats
    correction_range_unrounded: Floats
    paper_edges: Floats


class SpectrumCoverage(Answer):
    """Largest angle each pair reaches in training and at the target length, unscaled and scaled."""

    train_max_angle: Floats
    target_unscaled: Floats
    target_scaled: Floats


class SpectrumAtFactor(Answer):
    """The temperatures at the chosen factor."""

    yarn: float
    longrope: float
    yarn_configured: float
    softmax_scale_multiplier: float | None


class SpectrumTemperature(Answer):
    """YaRN's and LongRoPE's attention factors against the scale."""

    scale: Floats
    yarn: Floats
    longrope: Floats
    yarn_configured: Floats
    softmax_scale_multiplier: Floats | None
    mscale: float
    mscale_all_dim: float
    at_factor: SpectrumAtFactor


class SpectrumDynamic(Answer):
    """Dynamic NTK's base against the current length."""

    length: Ints
    base: list[float | None] | None = doc("The base at each length (null when the rotary dimension is 2: no dynamic base).")
    max_position_embeddings: int
    base_at_target: float | None = doc("The base at seq_len (null for a rotary dimension of 2).")
    ntk_base: float | None = doc("The static NTK base b·s^(r/(r−2)) (null for a rotary dimension of 2).")


class SpectrumLongRopeSwitch(Answer):
    """LongRoPE's two factor sets, and which one transformers uses at the current length."""

    short_scale: Floats = doc("θ'_j/θ_j with short_factor (seq_len ≤ L0).")
    long_scale: Floats = doc("θ'_j/θ_j with long_factor (seq_len > L0).")
    in_use: str = doc("'short' or 'long' at seq_len.")
    switch_after: int = doc("L0: long_factor is used above it.")
    attention_factor: float
    lengths: Ints
    pairs: Ints = doc("The pairs of scale_at_length.")
    scale_at_length: Matrix = doc("θ'_j/θ_j of each pair in `pairs` (rows) at each length (columns).")


class SpectrumAnswer(Answer):
    """What each RoPE scaling method does to every pair, with the chosen rope_type in full."""

    head_dim: int
    base: float
    rotary_dim: int
    train_len: int = doc("original_max_position_embeddings.")
    target_len: int = doc("seq_len.")
    factor: float
    rope_type: str
    pair: Ints
    unscaled_inv_freq: Floats
    wavelength: Floats = doc("Unscaled wavelength of each pair.")
    methods: dict[str, SpectrumMethod] = doc("Every method, keyed by rope_type.")
    selected: SpectrumSelected
    target_scale: float = doc("seq_len / original_max_position_embeddings.")
    extends: bool = doc("Whether target_scale > 1.")
    reason: str | None = doc("Why nothing is extended (null when something is).")
    longrope_switch: SpectrumLongRopeSwitch | None = doc("LongRoPE only (null for other rope types).")
    critical_pair: float = doc("Pair index whose wavelength equals the training length.")
    pairs_below_train_len: int = doc("Pairs whose wavelength is shorter than the training length.")
    ramp: SpectrumRamp
    llama3_bands: Llama3Bands | None = doc("Null when high_freq_factor < low_freq_factor.")
    coverage: SpectrumCoverage
    temperature: SpectrumTemperature
    dynamic: SpectrumDynamic


def compute_spectrum(params: SpectrumParams) -> dict[str, Any]:
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    L = params.original_max_position_embeddings
    T = params.seq_len
    s = params.factor
    theta = scaling.base_inv_freq(r, params.base)
    wavelength = 2 * math.pi / theta

    methods: dict[str, Any] = {}
    for name, method in scaling.METHODS.items():
        entry: dict[str, Any] = {"title": method.title, "summary": method.summary, "hf": method.hf_rope_type}
        try:
            cfg = rope_config_of(params, rope_type=name)
            inv_freq, attention = scaling.compute(cfg, T)
            entry.update(available=True, inv_freq=inv_freq, scale=inv_freq / theta, attention_factor=attention)
        except scaling.ScalingError as exc:
            entry.update(available=False, reason=f"{exc.field}: {exc.message}")
        methods[name] = entry

    selected = scaled_result(rope_config_of(params), T)
    grid = np.geomspace(max(1.0, wavelength.min() / 2), wavelength.max() * 2, DENSE)
    temperature_scale = np.geomspace(1, max(64.0, 2 * s), 200)
    lengths = np.unique(np.geomspace(max(1, params.max_position_embeddings // 8), max(4 * T, 2 * params.max_position_embeddings), 300).astype(np.int64))
    dynamic_ok = r > 2
    critical = (r / 2) * math.log(L / (2 * math.pi)) / math.log(params.base)
    bands = (
        scaling.llama3_band_counts(
            scaling.RopeConfig(rope_type="llama3", rope_theta=params.base, head_dim=r, original_max_position_embeddings=L,
                               low_freq_factor=params.low_freq_factor, high_freq_factor=params.high_freq_factor)
        )
        if params.high_freq_factor >= params.low_freq_factor
        else None
    )

    def dynamic_base(length: int) -> float:
        return scaling.dynamic_base(
            scaling.RopeConfig(rope_type="dynamic", rope_theta=params.base, head_dim=r, factor=s,
                               max_position_embeddings=params.max_position_embeddings),
            length,
        )

    return {
        "head_dim": params.head_dim,
        "base": params.base,
        "rotary_dim": r,
        "train_len": L,
        "target_len": T,
        "factor": s,
        "rope_type": params.rope_type,
        "pair": np.arange(r // 2),
        "unscaled_inv_freq": theta,
        "wavelength": wavelength,
        "methods": methods,
        "selected": {
            key: selected[key]
            for key in ("inv_freq", "scale", "attention_factor", "resolved", "notes", "logit_multiplier",
                        "softmax_scale_multiplier", "attention_factors")
        },
        # T/L0 ≤ 1: nothing to extend (said, not computed silently); s_target = T / L0.
        "target_scale": T / L,
        **_extension_status(params),
        "longrope_switch": _longrope_switch(params, theta),
        "critical_pair": critical,
        "pairs_below_train_len": int((wavelength < L).sum()),
        "ramp": _ramp_curves(params, grid),
        "llama3_bands": bands,
        "coverage": {
            "train_max_angle": L * theta,
            "target_unscaled": T * theta,
            "target_scaled": T * selected["inv_freq"],
        },
        "temperature": {
            "scale": temperature_scale,
            "yarn": 0.1 * np.log(temperature_scale) + 1,
            "longrope": np.sqrt(1 + np.log(temperature_scale) / math.log(L)),
            # With this config's mscale / mscale_all_dim (YaRN): HF's attention_factor (cos and sin are
            # multiplied by it) and DeepSeek's softmax-scale multiplier get_mscale(s, mscale_all_dim)².
            "yarn_configured": np.array([
                scaling.yarn_attention(scaling.RopeConfig(rope_type="yarn", factor=float(x), mscale=params.mscale or None,
                                                          mscale_all_dim=params.mscale_all_dim or None,
                                                          original_max_position_embeddings=L))
                for x in temperature_scale
            ]),
            "softmax_scale_multiplier": (
                np.array([scaling.get_mscale(float(x), params.mscale_all_dim) ** 2 for x in temperature_scale])
                if params.mscale_all_dim
                else None
            ),
            "mscale": params.mscale,
            "mscale_all_dim": params.mscale_all_dim,
            # The same four at this factor s (the curves' grid need not contain s).
            "at_factor": {
                "yarn": scaling.get_mscale(s),
                "longrope": scaling.longrope_attention(s, L),
                "yarn_configured": scaling.yarn_attention(
                    scaling.RopeConfig(rope_type="yarn", factor=s, mscale=params.mscale or None,
                                       mscale_all_dim=params.mscale_all_dim or None, original_max_position_embeddings=L)
                ),
                "softmax_scale_multiplier": scaling.get_mscale(s, params.mscale_all_dim) ** 2 if params.mscale_all_dim else None,
            },
        },
        "dynamic": {
            "length": lengths,
            "base": (
                np.array([dynamic_base(int(n)) for n in lengths])
                if dynamic_ok
                else None
            ),
            "max_position_embeddings": params.max_position_embeddings,
            "base_at_target": dynamic_base(T) if dynamic_ok else None,
            "ntk_base": scaling.ntk_base(params.base, s, r) if dynamic_ok else None,
        },
    }


def spectrum_csv(data: dict[str, Any]):
    names = [name for name, entry in data["methods"].items() if entry["available"]]
    header = ["pair", "wavelength", "unscaled_inv_freq"] + [f"scale_{name}" for name in names] + [
        "train_max_angle", "target_angle_unscaled", "target_angle_scaled"
    ]
    rows = []
    for j in range(len(data["pair"])):
        rows.append(
            [int(data["pair"][j]), data["wavelength"][j], data["unscaled_inv_freq"][j]]
            + [float(data["methods"][name]["scale"][j]) for name in names]
            + [data["coverage"]["train_max_angle"][j], data["coverage"]["target_unscaled"][j], data["coverage"]["target_scaled"][j]]
        )
    return header, rows



register(
    View(
        name="spectrum",
        title="Context extension: the scaling spectrum",
        short_title="Scaling spectrum",
        summary="What position interpolation, NTK, YaRN, LongRoPE and Llama 3.1 do to each rotating pair.",
        section="Context extension",
        order=200,
        api_path="/api/rope/spectrum",
        answer=SpectrumAnswer,
        template_context={"rope_presets": lambda: preset_links()},  # defined below
        params=SpectrumParams,
        display=SpectrumDisplay,
        compute=compute_spectrum,
        formulas=(
            r"\text{scale}_j = \theta'_j / \theta_j,\qquad \lambda_j = 2\pi/\theta_j",
            r"\text{YaRN (paper): } \gamma(\rho) = \operatorname{clip}\!\left(\frac{\rho-\alpha}{\beta-\alpha},0,1\right),\ \rho = L/\lambda_j,\ "
            r"\theta'_j = \gamma\,\theta_j + (1-\gamma)\,\theta_j/s",
            r"\text{YaRN (code): } \rho_j = \operatorname{clip}\!\left(\frac{j-j_{\text{low}}}{j_{\text{high}}-j_{\text{low}}},0,1\right),\ "
            r"j(N) = \frac{r\,\ln(L/2\pi N)}{2\ln b}",
            r"\text{Llama 3.1: } \sigma = \frac{L/\lambda_j - \ell}{h - \ell},\ \theta'_j = (1-\sigma)\,\theta_j/s + \sigma\,\theta_j",
            r"\text{dynamic NTK: } b' = b\left(\frac{sT}{L_{\max}} - (s-1)\right)^{r/(r-2)}",
        ),
        csv=spectrum_csv,
        api_description=(
            "Every scaling method evaluated with the same parameters at the current length `seq_len`: per-pair "
            "`scale` = θ'_j/θ_j, the attention factor, YaRN's ramp in the paper's and the code's form, Llama 3.1's "
            "band edges, angle coverage before and after scaling, attention temperature against scale, and the "
            "dynamic-NTK base against length. `rope_type` picks the method drawn on top (`selected`)."
        ),
        examples=(
            "rope_type=llama3&base=500000&original_max_position_embeddings=8192&factor=8&max_position_embeddings=131072&seq_len=131072",
            "rope_type=yarn&factor=16&seq_len=65536",
        ),
    )
)


# ---- presets as links --------------------------------------------------------------------------


def _canonical(query: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop values equal to the spectrum page's defaults, so a preset link is canonical."""
    from app.web.templating import url_value

    defaults = SpectrumParams()
    lists = {"short_factor", "long_factor"}
    out = []
    for name, value in query:
        if name in lists:
            out.append((name, value))
            continue
        default = getattr(defaults, name, None)
        if default is not None and url_value(default) == value:
            continue
        out.append((name, value))
    return out


def spectrum_url_for(config: dict[str, Any], seq_len: int | None = None) -> str:
    """The spectrum page showing a config.json, evaluated at ``seq_len`` (default: its
    max_position_embeddings, the context it advertises)."""
    rope, standardized, _ = rope_config_from_hf(config, seq_len)
    length = seq_len or standardized["max_position_embeddings"] or None
    query = _canonical(spectrum_query(rope, length))
    return "/spectrum" + ("?" + urlencode(query) if query else "")


def preset_links() -> list[dict[str, Any]]:
    links = []
    for preset in PRESETS:
        rope, standardized, _ = rope_config_from_hf(preset["config"])
        links.append(
            {
                "name": preset["name"],
                "repo": preset["repo"],
                "file": preset.get("file", "config.json"),
                "source": preset["source"],
                "verified": preset["verified"],
                "url": spectrum_url_for(preset["config"]),
                "rope_type": rope.rope_type,
                "head_dim": rope.head_dim,
                "rotary_dim": rope.rotary_dim,
                "rope_theta": rope.rope_theta,
                "pairing": standardized["pairing"],
            }
        )
    return links

"""Context extension: what each RoPE scaling method does to every pair, side by side.

One set of parameters (base, head dim, training length L0, current/target length T, factor s and
the method-specific fields, all with Hugging Face's names) evaluates every method of
``app.core.scaling.METHODS``; the chosen ``rope_type`` is drawn on top.  Presets link here with
the parameters of real published configs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from app.core import model_families, scaling
from app.core.frequencies import inverse_frequencies, pair_with_turns, rotary_dim, wavelengths
from app.views import _rope_scaling as rs
from app.views._rope_scaling import MAX_LENGTH, METHOD_FIELD_DEFAULTS, ScalingChecks, high_freq_default, rope_config_of
from app.views.ladder import Llama3Bands, QueryScale, Temperatures, query_scale_of, scaled_result
from app.views.presets import list_presets, preset_links
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.fields import DEFAULTS, Base, HeadDim, PartialRotaryFactor
from app.web.params import UI, Display
from app.web.views import View, register

DENSE = 400
SWITCH_LENGTHS = 160


class SpectrumParams(ScalingChecks):
    head_dim: HeadDim = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    partial_rotary_factor: PartialRotaryFactor = DEFAULTS["partial_rotary_factor"]
    original_max_position_embeddings: rs.OriginalMaxPositionEmbeddings = DEFAULTS["original_max_position_embeddings"]
    seq_len: Annotated[
        int,
        Field(
            ge=1,
            le=MAX_LENGTH,
            description="Target length T: the current sequence length the methods are evaluated at.  Every curve here is "
            "drawn at a length, so it has one by default (32768); on /api/rope/frequencies seq_len defaults to 0, not "
            "given, as at model init.",
        ),
        UI("Target length T", kind="log", unit="tokens"),
    ] = 32768
    factor: rs.Factor = DEFAULTS["factor"]
    rope_type: rs.RopeType = DEFAULTS["rope_type"]
    max_position_embeddings: rs.MaxPositionEmbeddings = DEFAULTS["max_position_embeddings"]
    # the method-specific fields, last (rs.METHOD_FIELD_DEFAULTS)
    attention_factor: rs.AttentionFactor = METHOD_FIELD_DEFAULTS["attention_factor"]
    beta_fast: rs.BetaFast = METHOD_FIELD_DEFAULTS["beta_fast"]
    beta_slow: rs.BetaSlow = METHOD_FIELD_DEFAULTS["beta_slow"]
    mscale: rs.Mscale = METHOD_FIELD_DEFAULTS["mscale"]
    mscale_all_dim: rs.MscaleAllDim = METHOD_FIELD_DEFAULTS["mscale_all_dim"]
    truncate: rs.Truncate = METHOD_FIELD_DEFAULTS["truncate"]
    low_freq_factor: rs.LowFreqFactor = METHOD_FIELD_DEFAULTS["low_freq_factor"]
    high_freq_factor: rs.HighFreqFactor = Field(default_factory=high_freq_default)
    short_factor: rs.ShortFactor = METHOD_FIELD_DEFAULTS["short_factor"]
    long_factor: rs.LongFactor = METHOD_FIELD_DEFAULTS["long_factor"]
    pairing: rs.FamilyPairing = METHOD_FIELD_DEFAULTS["pairing"]
    latent_attention: rs.LatentAttention = METHOD_FIELD_DEFAULTS["latent_attention"]
    query_scale_beta: rs.QueryScaleBeta = METHOD_FIELD_DEFAULTS["query_scale_beta"]
    query_scale_interval: rs.QueryScaleInterval = METHOD_FIELD_DEFAULTS["query_scale_interval"]
    query_scale_offset: rs.QueryScaleOffset = METHOD_FIELD_DEFAULTS["query_scale_offset"]


class SpectrumDisplay(Display):
    x_axis: Annotated[
        Literal["wavelength", "pair"],
        Field(description="Horizontal axis of the per-pair plots: wavelength (log) or pair index."),
        UI("Horizontal axis"),
    ] = "wavelength"


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
    pair: Floats = doc("Pair index j (fractional) of each wavelength on the grid.")
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


class SpectrumQueryScale(QueryScale):
    """The query scale against position, as steps (null when query_scale_beta is 0)."""

    position: Ints = doc("The first position of each step (and the last position drawn).")
    scale: Floats = doc("The scale from that position on.")
    length: int = doc("Positions drawn: 0 … length − 1 (the larger of seq_len and max_position_embeddings).")
    at_target: float = doc("The scale at the last position of the target length, seq_len − 1.")


class SpectrumAnswer(Answer, echoes=SpectrumParams):
    """What each RoPE scaling method does to every pair, with the chosen rope_type in full."""

    head_dim: Echo
    base: Echo
    rotary_dim: int
    train_len: int = doc("original_max_position_embeddings.")
    target_len: int = doc("seq_len.")
    factor: Echo
    rope_type: Echo
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
    pairing: Echo = doc("The model's pairing as the query gives it: 'half' (GPT-NeoX style) or 'interleaved' (GPT-J style).")
    latent_attention: Echo = doc("As the query gives it: whether the DeepSeek softmax-scale multiplier applies.")
    query_scale: SpectrumQueryScale | None = doc("The query scale against position (null when query_scale_beta is 0).")


def compute_spectrum(params: SpectrumParams) -> dict[str, Any]:
    r = rotary_dim(params.head_dim, params.partial_rotary_factor)
    L = params.original_max_position_embeddings
    T = params.seq_len
    s = params.factor
    theta = inverse_frequencies(r, params.base)
    wavelength = wavelengths(theta)

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

    latent = params.latent_attention
    selected = scaled_result(rope_config_of(params), T, latent)
    grid = np.geomspace(max(1.0, wavelength.min() / 2), wavelength.max() * 2, DENSE)
    temperature_scale = np.geomspace(1, max(64.0, 2 * s), 200)
    lengths = np.unique(np.geomspace(max(1, params.max_position_embeddings // 8), max(4 * T, 2 * params.max_position_embeddings), 300).astype(np.int64))
    dynamic_ok = scaling.ntk_exponent(r) is not None
    critical = pair_with_turns(1, L, r, params.base)
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
        **scaling.extension_status(T, L),
        "longrope_switch": (
            scaling.longrope_switch(rope_config_of(params, rope_type="longrope"), T, SWITCH_LENGTHS)
            if params.rope_type == "longrope"
            else None
        ),
        "critical_pair": critical,
        "pairs_below_train_len": int((wavelength < L).sum()),
        "ramp": scaling.yarn_ramp_curves(rope_config_of(params, rope_type="yarn"), grid),
        "llama3_bands": bands,
        "coverage": {
            "train_max_angle": L * theta,
            "target_unscaled": T * theta,
            "target_scaled": T * selected["inv_freq"],
        },
        "temperature": {
            "scale": temperature_scale,
            "yarn": scaling.get_mscale(temperature_scale),
            "longrope": scaling.longrope_attention(temperature_scale, L),
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
                if params.mscale_all_dim and latent
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
                "softmax_scale_multiplier": scaling.get_mscale(s, params.mscale_all_dim) ** 2 if params.mscale_all_dim and latent else None,
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
        "pairing": params.pairing,
        "latent_attention": latent,
        "query_scale": _query_scale(params),
    }


def _query_scale(params: SpectrumParams) -> dict[str, Any] | None:
    """The query scale against position 0 … max(T, Lmax) − 1, as steps (bounded: at most 400)."""
    length = max(params.seq_len, params.max_position_embeddings)
    base = query_scale_of(params.query_scale_beta, params.query_scale_interval, params.query_scale_offset,
                          params.max_position_embeddings)
    if base is None:
        return None
    curve = model_families.query_scale_curve(params.query_scale_beta, params.query_scale_interval, params.query_scale_offset, length)
    at_target = model_families.query_scale(params.seq_len - 1, params.query_scale_beta, params.query_scale_interval, params.query_scale_offset)
    return {**base, **curve, "length": length, "at_target": float(at_target)}


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
        template_context={"rope_presets": preset_links},
        routes=(list_presets,),
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



"""Hugging Face's RoPE scaling fields (``rope_parameters``) as query parameters, shared by the
ladder (``/api/rope/frequencies``, fields hidden on its page) and the spectrum page (controls).

Not a lesson: it registers no view (``discover`` imports it like any module of ``app.views``,
which is harmless).  Each field has one annotated type here, named after it (``factor`` →
:data:`Factor`), and a twin that keeps it off a page's controls (:data:`HiddenFactor`, the same
type, range and rules).  A model lists its own fields first and the method-specific ones
(:data:`METHOD_FIELD_DEFAULTS`' order) last: the cross-field rules (``beta_slow`` reads
``rope_type``) and the URL order need them there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.core import scaling
from app.web.params import UI, Params
from app.web.rules import Bound, Require

MAX_LENGTH = 1 << 27
LLAMA3_BANDS = scaling.LLAMA3_BANDS  # the core's reason, shown by the bound's message
# The scaling registry is the one list of methods: a method added there is a choice here.  A
# Literal built from a registry is a run-time type, so mypy reads the field as the str it is.
if TYPE_CHECKING:
    MethodName: TypeAlias = str
else:
    MethodName = Literal[tuple(scaling.METHODS)]


def hidden(ui: UI) -> UI:
    """The control ``ui`` kept off a page (the ladder's page draws none of the scaling fields)."""
    return UI(ui.label, kind="hidden")


def per_pair(name: str) -> Require:
    return Require(
        f"len({name}) == int(head_dim * partial_rotary_factor) // 2",
        f"{name} needs one value per rotated pair: {{int(head_dim * partial_rotary_factor) // 2}} values (got {{len({name})}})",
        when="rope_type == 'longrope'",
    )


# ---- the fields every model takes (each declares its own default or place) ---------------------

_RopeType = Annotated[
    MethodName,
    Field(
        description="Scaling method: "
        + "; ".join(f"'{m.name}' {m.title}" + ("" if m.hf_rope_type else " (not a transformers rope_type)") for m in scaling.METHODS.values())
        + "."
    ),
]
_ROPE_TYPE_UI = UI("Scaling method (rope_type)")
_ROPE_TYPE_RULE = Require(
    "rope_type not in ('dynamic', 'ntk') or int(head_dim * partial_rotary_factor) > 2",
    scaling.ROTARY_ABOVE_TWO.format(rope_type="{rope_type}", rotary_dim="{int(head_dim * partial_rotary_factor)}"),
)
RopeType = Annotated[_RopeType, _ROPE_TYPE_UI, _ROPE_TYPE_RULE]
HiddenRopeType = Annotated[_RopeType, hidden(_ROPE_TYPE_UI), _ROPE_TYPE_RULE]

_Factor = Annotated[float, Field(ge=1, le=1e4, allow_inf_nan=False, description="Scale factor s (for 'ntk': α).")]
_FACTOR_UI = UI("Scale factor s", kind="number", step=0.5)
Factor = Annotated[_Factor, _FACTOR_UI]
HiddenFactor = Annotated[_Factor, hidden(_FACTOR_UI)]

_OriginalMaxPositionEmbeddings = Annotated[
    int, Field(ge=2, le=MAX_LENGTH, description="Training length L0 (yarn, longrope, llama3).")
]
_ORIGINAL_MAX_POSITION_EMBEDDINGS_UI = UI("Training length L0", kind="log", unit="tokens")
OriginalMaxPositionEmbeddings = Annotated[_OriginalMaxPositionEmbeddings, _ORIGINAL_MAX_POSITION_EMBEDDINGS_UI]
HiddenOriginalMaxPositionEmbeddings = Annotated[_OriginalMaxPositionEmbeddings, hidden(_ORIGINAL_MAX_POSITION_EMBEDDINGS_UI)]

_MaxPositionEmbeddings = Annotated[
    int, Field(ge=1, le=MAX_LENGTH, description="max_position_embeddings: dynamic NTK's reference length Lmax.")
]
_MAX_POSITION_EMBEDDINGS_UI = UI("max_position_embeddings", kind="log", unit="tokens", help="Dynamic NTK scales only past this length.")
MaxPositionEmbeddings = Annotated[_MaxPositionEmbeddings, _MAX_POSITION_EMBEDDINGS_UI]
HiddenMaxPositionEmbeddings = Annotated[_MaxPositionEmbeddings, hidden(_MAX_POSITION_EMBEDDINGS_UI)]

# The spectrum declares its own seq_len (a target length, never 0); the ladder takes this one.
_SeqLen = Annotated[
    int,
    Field(ge=0, le=MAX_LENGTH, description="Current sequence length (dynamic, longrope); 0 (the default) = not given, as at model init."),
]
_SEQ_LEN_UI = UI("Current length", kind="log", unit="tokens")
SeqLen = Annotated[_SeqLen, _SEQ_LEN_UI]
HiddenSeqLen = Annotated[_SeqLen, hidden(_SEQ_LEN_UI)]

# ---- the method-specific fields, last in every model ---------------------------------------------

_AttentionFactor = Annotated[
    float,
    Field(ge=0, le=100, allow_inf_nan=False, description="Explicit attention factor (yarn, longrope); 0 = derived by the method."),
]
_ATTENTION_FACTOR_UI = UI("attention_factor (0 = derived)", kind="number", step=0.01)
AttentionFactor = Annotated[_AttentionFactor, _ATTENTION_FACTOR_UI]
HiddenAttentionFactor = Annotated[_AttentionFactor, hidden(_ATTENTION_FACTOR_UI)]

_BetaFast = Annotated[
    float, Field(ge=0, le=1e6, allow_inf_nan=False, description="YaRN β: turns over L0 above which a pair is kept (0 = 32).")
]
_BETA_FAST_UI = UI("beta_fast", kind="number")
BetaFast = Annotated[_BetaFast, _BETA_FAST_UI]
HiddenBetaFast = Annotated[_BetaFast, hidden(_BETA_FAST_UI)]

_BetaSlow = Annotated[
    float, Field(ge=0, le=1e6, allow_inf_nan=False, description="YaRN α: turns over L0 below which a pair is divided by s (0 = 1).")
]
_BETA_SLOW_UI = UI("beta_slow", kind="number")
_BETA_ORDER_RULE = Require(
    "(beta_slow or 1) <= (beta_fast or 32)",
    scaling.BETA_ORDER.format(beta_slow="{beta_slow or 1}", beta_fast="{beta_fast or 32}"),
    when="rope_type == 'yarn'",
)
BetaSlow = Annotated[_BetaSlow, _BETA_SLOW_UI, _BETA_ORDER_RULE]
HiddenBetaSlow = Annotated[_BetaSlow, hidden(_BETA_SLOW_UI), _BETA_ORDER_RULE]

_Mscale = Annotated[
    float, Field(ge=0, le=1000, allow_inf_nan=False, description="YaRN mscale (used only together with mscale_all_dim).")
]
_MSCALE_UI = UI("mscale", kind="number", step=0.001)
Mscale = Annotated[_Mscale, _MSCALE_UI]
HiddenMscale = Annotated[_Mscale, hidden(_MSCALE_UI)]

_MscaleAllDim = Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False, description="YaRN mscale_all_dim.")]
_MSCALE_ALL_DIM_UI = UI("mscale_all_dim", kind="number", step=0.001)
MscaleAllDim = Annotated[_MscaleAllDim, _MSCALE_ALL_DIM_UI]
HiddenMscaleAllDim = Annotated[_MscaleAllDim, hidden(_MSCALE_ALL_DIM_UI)]

_Truncate = Annotated[bool, Field(description="YaRN: round the correction range to whole pairs.")]
_TRUNCATE_UI = UI("truncate (YaRN)")
Truncate = Annotated[_Truncate, _TRUNCATE_UI]
HiddenTruncate = Annotated[_Truncate, hidden(_TRUNCATE_UI)]

_LowFreqFactor = Annotated[
    float, Field(gt=0, le=1e4, allow_inf_nan=False, description="llama3: wavelengths above L0/low_freq_factor are divided by s.")
]
_LOW_FREQ_FACTOR_UI = UI("low_freq_factor", kind="number", step=0.5)
LowFreqFactor = Annotated[_LowFreqFactor, _LOW_FREQ_FACTOR_UI]
HiddenLowFreqFactor = Annotated[_LowFreqFactor, hidden(_LOW_FREQ_FACTOR_UI)]

_HighFreqFactor = Annotated[
    float, Field(gt=0, le=1e4, allow_inf_nan=False, description="llama3: wavelengths below L0/high_freq_factor are kept (not given: 4, or low_freq_factor when larger).")
]
_HIGH_FREQ_FACTOR_UI = UI("high_freq_factor", kind="number", step=0.5)
_LLAMA3_BANDS_BOUND = Bound(ge="low_freq_factor", when="rope_type == 'llama3'", why=LLAMA3_BANDS)
HighFreqFactor = Annotated[_HighFreqFactor, _HIGH_FREQ_FACTOR_UI, _LLAMA3_BANDS_BOUND]
HiddenHighFreqFactor = Annotated[_HighFreqFactor, hidden(_HIGH_FREQ_FACTOR_UI), _LLAMA3_BANDS_BOUND]

_FactorList = Annotated[
    tuple[Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)], ...],
    Field(
        max_length=512,
        validate_default=True,
        description="LongRoPE per-pair divisors (one per rotated pair; repeat the key).",
    ),
]
_SHORT_FACTOR_UI = UI("short_factor", kind="list", help="LongRoPE, one value per pair.")
_LONG_FACTOR_UI = UI("long_factor", kind="list", help="LongRoPE, one value per pair.")
ShortFactor = Annotated[_FactorList, _SHORT_FACTOR_UI, per_pair("short_factor")]
HiddenShortFactor = Annotated[_FactorList, hidden(_SHORT_FACTOR_UI), per_pair("short_factor")]
LongFactor = Annotated[_FactorList, _LONG_FACTOR_UI, per_pair("long_factor")]
HiddenLongFactor = Annotated[_FactorList, hidden(_LONG_FACTOR_UI), per_pair("long_factor")]

# What the model family does around the frequencies (app.core.model_families): the pairing its
# checkpoint uses, whether its attention is DeepSeek-style latent attention, and its query scale.
_Pairing = Annotated[
    Literal["half", "interleaved"],
    Field(description="The model family's pairing: 'half' pairs (x_j, x_(j+r/2)) (GPT-NeoX style, Llama's rotate_half), "
          "'interleaved' adjacent (x_2j, x_2j+1) (GPT-J style). It does not change a frequency; it says which "
          "dimensions of the checkpoint turn together (/conventions)."),
]
_PAIRING_UI = UI("Pairing of the model", help="Which dimensions turn together; see /conventions.")
FamilyPairing = Annotated[_Pairing, _PAIRING_UI]
HiddenFamilyPairing = Annotated[_Pairing, hidden(_PAIRING_UI)]

_LatentAttention = Annotated[
    bool,
    Field(description="DeepSeek-V2/V3-style latent attention (DeepSeek, Kimi-K2): its softmax scale is also multiplied by "
          "get_mscale(s, mscale_all_dim)². Other families use plain 1/√d and do not."),
]
_LATENT_ATTENTION_UI = UI("Latent attention (DeepSeek)")
LatentAttention = Annotated[_LatentAttention, _LATENT_ATTENTION_UI]
HiddenLatentAttention = Annotated[_LatentAttention, hidden(_LATENT_ATTENTION_UI)]

_QueryScaleBeta = Annotated[
    float,
    Field(ge=0, le=10, allow_inf_nan=False, description="β of a query scale 1 + β·ln(1 + ⌊(pos + offset)/interval⌋) "
          "(Ministral 3's llama_4_scaling_beta, Llama 4's attn_scale on its NoPE layers); 0 = none."),
]
_QUERY_SCALE_BETA_UI = UI("Query scale β (0 = none)", kind="number", step=0.01)
QueryScaleBeta = Annotated[_QueryScaleBeta, _QUERY_SCALE_BETA_UI]
HiddenQueryScaleBeta = Annotated[_QueryScaleBeta, hidden(_QUERY_SCALE_BETA_UI)]

_QueryScaleInterval = Annotated[
    int,
    Field(ge=1, le=MAX_LENGTH, description="The query scale's interval: Ministral 3's original_max_position_embeddings, "
          "Llama 4's floor_scale."),
]
_QUERY_SCALE_INTERVAL_UI = UI("Query scale interval", kind="log", unit="tokens")
QueryScaleInterval = Annotated[_QueryScaleInterval, _QUERY_SCALE_INTERVAL_UI]
HiddenQueryScaleInterval = Annotated[_QueryScaleInterval, hidden(_QUERY_SCALE_INTERVAL_UI)]

_QueryScaleOffset = Annotated[
    int, Field(ge=0, le=1, description="Added to the 0-based position before dividing: 0 in Ministral 3, 1 in Llama 4.")
]
_QUERY_SCALE_OFFSET_UI = UI("Query scale offset", kind="number")
QueryScaleOffset = Annotated[_QueryScaleOffset, _QUERY_SCALE_OFFSET_UI]
HiddenQueryScaleOffset = Annotated[_QueryScaleOffset, hidden(_QUERY_SCALE_OFFSET_UI)]


# The method-specific fields and their defaults, in the order every model lists them last.
METHOD_FIELD_DEFAULTS: dict[str, Any] = {
    "attention_factor": 0.0,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "mscale": 0.0,
    "mscale_all_dim": 0.0,
    "truncate": True,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "short_factor": (),
    "long_factor": (),
    "pairing": "half",
    "latent_attention": False,
    "query_scale_beta": 0.0,
    "query_scale_interval": 8192,
    "query_scale_offset": 0,
}


def high_freq_default(data: dict[str, Any]) -> float:
    """high_freq_factor when not given: 4 (Llama 3.1's), or low_freq_factor when that is larger, so
    the smoothing band is never inverted by a default (the models' ``default_factory``)."""
    return max(METHOD_FIELD_DEFAULTS["high_freq_factor"], data.get("low_freq_factor", 1.0))


class ScalingChecks(Params):
    """The whole configuration checked as transformers would read it (``scaling.validate``), its
    error located at the field it names.  The rules a control can run into are also declared on
    the fields (their types above), so the page knows them before it asks."""

    @model_validator(mode="after")
    def _whole_config(self):
        try:
            scaling.validate(rope_config_of(self), self.seq_len or None)
        except scaling.ScalingError as error:
            name = QUERY_NAMES.get(error.field, error.field)
            raise ValidationError.from_exception_data(
                type(self).__name__,
                [
                    InitErrorDetails(
                        type=PydanticCustomError("rule", "{message}", {"message": error.message}),
                        loc=(name,) if name in type(self).model_fields else (),
                        input=getattr(self, name, None),
                    )
                ],
            ) from None
        return self


# HF's names of the fields whose query name differs.
QUERY_NAMES = {"rope_theta": "base"}


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

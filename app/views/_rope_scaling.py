"""Hugging Face's RoPE scaling fields (``rope_parameters``) as query parameters, shared by the
ladder (``/api/rope/frequencies``, fields hidden on its page) and the spectrum page (controls).

Not a lesson: it registers no view (``discover`` imports it like any module of ``app.views``,
which is harmless).  Each model declares the fields whose default or
place differs (``rope_type``, ``factor``, the lengths) with :func:`scaling_fields`' types;
:func:`with_method_fields` appends the method-specific rest, the same for both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, ValidationError, create_model, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.core import scaling
from app.web.params import UI, Params
from app.web.rules import Bound, Require

MAX_LENGTH = 1 << 27
LLAMA3_BANDS = scaling.LLAMA3_BANDS  # the core's reason, shown by the bound's message
# The scaling registry is the one list of methods: a method added there is a choice here.
RopeType = Literal.__getitem__(tuple(scaling.METHODS))  # type: ignore[attr-defined]


def per_pair(name: str) -> Require:
    return Require(
        f"len({name}) == int(head_dim * partial_rotary_factor) // 2",
        f"{name} needs one value per rotated pair: {{int(head_dim * partial_rotary_factor) // 2}} values (got {{len({name})}})",
        when="rope_type == 'longrope'",
    )


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
            Field(
                description="Scaling method: "
                + "; ".join(f"'{m.name}' {m.title}" + ("" if m.hf_rope_type else " (not a transformers rope_type)") for m in scaling.METHODS.values())
                + "."
            ),
            ui("Scaling method (rope_type)"),
            Require(
                "rope_type not in ('dynamic', 'ntk') or int(head_dim * partial_rotary_factor) > 2",
                scaling.ROTARY_ABOVE_TWO.format(rope_type="{rope_type}", rotary_dim="{int(head_dim * partial_rotary_factor)}"),
            ),
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
            Field(ge=0, le=MAX_LENGTH, description="Current sequence length (dynamic, longrope); 0 (the default) = not given, as at model init."),
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
            Require(
                "(beta_slow or 1) <= (beta_fast or 32)",
                scaling.BETA_ORDER.format(beta_slow="{beta_slow or 1}", beta_fast="{beta_fast or 32}"),
                when="rope_type == 'yarn'",
            ),
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
            float, Field(gt=0, le=1e4, allow_inf_nan=False, description="llama3: wavelengths below L0/high_freq_factor are kept (not given: 4, or low_freq_factor when larger)."),
            ui("high_freq_factor", kind="number", step=0.5),
            Bound(ge="low_freq_factor", when="rope_type == 'llama3'", why=LLAMA3_BANDS),
        ],
        "short_factor": Annotated[factor_list, ui("short_factor", kind="list", help="LongRoPE, one value per pair."), per_pair("short_factor")],
        "long_factor": Annotated[factor_list, ui("long_factor", kind="list", help="LongRoPE, one value per pair."), per_pair("long_factor")],
        # What the model family does around the frequencies (app.core.model_families): the pairing its
        # checkpoint uses, whether its attention is DeepSeek-style latent attention, and its query scale.
        "pairing": Annotated[
            Literal["half", "interleaved"],
            Field(description="The model family's pairing: 'half' pairs (x_j, x_(j+r/2)) (GPT-NeoX style, Llama's rotate_half), "
                  "'interleaved' adjacent (x_2j, x_2j+1) (GPT-J style). It does not change a frequency; it says which "
                  "dimensions of the checkpoint turn together (/conventions)."),
            ui("Pairing of the model", help="Which dimensions turn together; see /conventions."),
        ],
        "latent_attention": Annotated[
            bool,
            Field(description="DeepSeek-V2/V3-style latent attention (DeepSeek, Kimi-K2): its softmax scale is also multiplied by "
                  "get_mscale(s, mscale_all_dim)². Other families use plain 1/√d and do not."),
            ui("Latent attention (DeepSeek)"),
        ],
        "query_scale_beta": Annotated[
            float,
            Field(ge=0, le=10, allow_inf_nan=False, description="β of a query scale 1 + β·ln(1 + ⌊(pos + offset)/interval⌋) "
                  "(Ministral 3's llama_4_scaling_beta, Llama 4's attn_scale on its NoPE layers); 0 = none."),
            ui("Query scale β (0 = none)", kind="number", step=0.01),
        ],
        "query_scale_interval": Annotated[
            int,
            Field(ge=1, le=MAX_LENGTH, description="The query scale's interval: Ministral 3's original_max_position_embeddings, "
                  "Llama 4's floor_scale."),
            ui("Query scale interval", kind="log", unit="tokens"),
        ],
        "query_scale_offset": Annotated[
            int,
            Field(ge=0, le=1, description="Added to the 0-based position before dividing: 0 in Ministral 3, 1 in Llama 4."),
            ui("Query scale offset", kind="number"),
        ],
    }


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

M = TypeVar("M", bound="ScalingChecks")


def high_freq_default(data: dict[str, Any]) -> float:
    """high_freq_factor when not given: 4 (Llama 3.1's), or low_freq_factor when that is larger, so
    the smoothing band is never inverted by a default."""
    return max(METHOD_FIELD_DEFAULTS["high_freq_factor"], data.get("low_freq_factor", 1.0))


def with_method_fields(types: dict[str, Any]) -> Callable[[type[M]], type[M]]:
    """Class decorator: the model with :data:`METHOD_FIELD_DEFAULTS`' fields (typed by ``types``, a
    :func:`scaling_fields` result) appended after its own.

    A base class cannot do this: pydantic lists a base's fields before the subclass's, and the
    cross-field rules (``beta_slow`` reads ``rope_type``) and the URL order need these fields last.
    """

    def append(model: type[M]) -> type[M]:
        fields: dict[str, Any] = {name: (types[name], default) for name, default in METHOD_FIELD_DEFAULTS.items()}
        # A default that depends on another field follows it: high_freq_factor is never below low_freq_factor.
        fields["high_freq_factor"] = (types["high_freq_factor"], Field(default_factory=high_freq_default))
        return create_model(
            model.__name__,
            __base__=model,
            __module__=model.__module__,
            __qualname__=model.__qualname__,
            __doc__=model.__doc__,
            **fields,
        )

    return append


class ScalingChecks(Params):
    """The whole configuration checked as transformers would read it (``scaling.validate``), its
    error located at the field it names.  The rules a control can run into are also declared on
    the fields (:func:`scaling_fields`), so the page knows them before it asks."""

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

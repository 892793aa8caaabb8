"""Declared answers: the JSON body of every operation as a pydantic model.

Each view declares its answer beside its compute function (``View.answer``, ``Operation.answer``);
the OpenAPI document, /docs, generated clients and the tests read these models.  They are never
run on a request: an answer is a dict of numpy arrays written by orjson, and validating a 512 × 512
table per request would cost more than computing it.  The tests validate real answers against the
declared schemas instead (tests/api/test_openapi_answers.py, tests/fuzz).

Conventions: a JSON number that is always whole is ``int``; ``null`` appears only where a value can
be missing (a masked score, NaN or ±inf, which JSON cannot carry, a quantity that does not apply),
and is declared there; a key present only for some parameters has a default of ``None`` (not
required, never sent as null).  Keys a view adds later are allowed (no ``additionalProperties:
false``), so a client generated today keeps working.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from app.web.params import UI
from app.web.rules import Bound, Require

Floats = list[float]
Ints = list[int]
Matrix = list[list[float]]
MaskedMatrix = list[list[float | None]]
"""Rows of numbers where a cell can be null: masked (causal) cells, or ±inf/NaN."""


class _EchoMark:
    def __repr__(self) -> str:
        return "Echo"


Echo = Annotated[Any, _EchoMark()]
"""The type of an answer field that echoes a parameter: ``class XAnswer(Answer, echoes=XParams)``
with ``head_dim: Echo`` gives the field the parameter's own type and constraints (an enum for a
``Literal``, its bounds, its item types) and its description, instead of a retyped copy."""

# Metadata of a parameter that is about the page or the query, not about the value's type.
_NOT_TYPE = (UI, Bound, Require)


class Answer(BaseModel):
    """Base of every declared answer.

    ``echoes``: the parameter model(s) whose fields this answer echoes; each field annotated
    :data:`Echo` takes the type of the parameter of that name (the first model that has it), and,
    unless it gives its own ``doc(...)``, that parameter's description.
    """

    def __init_subclass__(cls, *, echoes: type[BaseModel] | tuple[type[BaseModel], ...] = (), **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        models = echoes if isinstance(echoes, tuple) else (echoes,)
        annotations = cls.__annotations__  # this class's own (Python ≥ 3.10), before pydantic reads them
        for name, annotation in list(annotations.items()):
            if annotation != "Echo" and annotation is not Echo:
                continue
            source = next((model.model_fields[name] for model in models if name in model.model_fields), None)
            if source is None:
                raise TypeError(f"{cls.__name__}.{name} is an Echo, but no model in echoes= has a field {name!r}")
            annotations[name] = echo_type(source)
            given = cls.__dict__.get(name)
            if not isinstance(given, FieldInfo):
                setattr(cls, name, Field(description=f"As given (or defaulted): {source.description}" if source.description else None))


def echo_type(source: FieldInfo) -> Any:
    """The type of an answer field echoing the parameter ``source``: its annotation and the
    constraints pydantic reads (bounds, strictness, lengths) and any schema it adds, without the
    page's metadata."""
    kept: list[Any] = [item for item in source.metadata if not isinstance(item, _NOT_TYPE)]
    if source.json_schema_extra is not None:  # e.g. the enum of an integer with few allowed values
        kept.append(Field(json_schema_extra=source.json_schema_extra))
    return Annotated[(source.annotation, *kept)] if kept else source.annotation


def doc(description: str, *, optional: bool = False) -> Any:
    """A field's description; ``optional``: the key is absent for some parameters."""
    if optional:
        return Field(default=None, description=description)
    return Field(description=description)


# Quantities many answers carry, described once.
COMMON = {
    "rotary_dim": "Dimensions that rotate, r = int(head_dim × partial_rotary_factor); r/2 pairs.",
    "pair": "Pair index j, 0 … r/2 − 1.",
    "pairs": "The pair indices shown.",
    "inv_freq": "θ_j of each pair, in radians per position.",
    "unscaled_inv_freq": "θ_j = b^(−2j/r) before any scaling.",
    "wavelength": "2π/θ_j of each pair, in positions.",
    "scale": "The factor the values are divided by, or θ'_j/θ_j per pair for a scaling method.",
    "positions": "The positions, in order.",
    "query_positions": "Position of each query.",
    "key_positions": "Position of each key.",
    "rope_type": "The RoPE scaling method (Hugging Face's rope_type).",
    "seq_len": "Sequence length (null: not given).",
    "tokens": "Number of tokens, or the tokens' text.",
    "score": "q·k for the chosen query and key.",
    "version": "The app's version.",
}


def describe_echoes(answer: type[BaseModel], *models: type[BaseModel]) -> None:
    """Fields of ``answer`` without a description get the description of the parameter they echo,
    else the common one of :data:`COMMON`."""
    changed = False
    for name, field in answer.model_fields.items():
        if field.description:
            continue
        source = next((model.model_fields[name] for model in models if name in model.model_fields), None)
        if source is not None and source.description:
            field.description = f"As given (or defaulted): {source.description}"
        elif name in COMMON:
            field.description = COMMON[name]
        else:
            continue
        changed = True
    if changed:
        answer.model_rebuild(force=True)

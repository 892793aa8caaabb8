"""Base parameter models and control metadata shared by every view.

One model per view validates both the page route and the JSON route.  Constraints are
per-field (``Field(ge=…, le=…, multiple_of=…)``) so that a 422 names the field and the rule
appears in OpenAPI.  ``UI`` metadata in ``Annotated`` tells the page how to draw the control
without leaking into the schema.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.web.rules import RuleError, describe, reads, rules_of, violations

F = TypeVar("F", bound=Callable[..., Any])


def per_process(func: F) -> F:
    """Memoise a function whose result depends on the code alone (a model's schema, a fixed
    formula, the static files), never on a request.  The first call pays; the marker lets the
    benchmarks keep these warm when they time requests for new parameters."""
    cached = functools.lru_cache(maxsize=None)(func)
    cached.per_process = True  # type: ignore[attr-defined]  # the marker the benchmarks look for
    return cached  # type: ignore[return-value]  # lru_cache keeps the signature it wraps


@per_process
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, built once per model (pydantic rebuilds it on every call,
    a few milliseconds for the larger views).  Callers must not modify the result."""
    return model.model_json_schema()


def resolve(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """``schema``, or the definition its ``$ref`` names (``#/$defs/X``, ``#/components/schemas/X``)."""
    if "$ref" in schema:
        return definitions.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return schema


@per_process
def field_schemas(model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    """The JSON schema of each field of ``model``, references resolved (built once per model)."""
    schema = schema_of(model)
    return {name: resolve(prop, schema.get("$defs", {})) for name, prop in schema.get("properties", {}).items()}


class Params(BaseModel):
    """Parameters of one computation: frozen (hashable, memoisable) and strict about names.

    Rules that tie a field to others (``app.web.rules``: ``Bound``, ``Require`` in the field's
    ``Annotated`` metadata) are checked here after every field is valid on its own; a broken rule
    is an error located at the field that carries it, and each rule is appended to its field's
    description, so the OpenAPI document states it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        changed = False
        for name, rule in rules_of(cls):
            unknown = reads(rule) - set(cls.model_fields)
            if unknown:
                raise RuleError(f"{cls.__name__}.{name}: a rule reads {sorted(unknown)}, which the model does not have")
            field = cls.model_fields[name]
            line = describe(rule)
            if line not in (field.description or ""):
                field.description = f"{field.description or ''} {line}".strip()
                changed = True
        if changed:
            cls.model_rebuild(force=True)

    @model_validator(mode="after")
    def _check_rules(self) -> Params:
        broken = violations(type(self), self.__dict__)
        if broken:
            raise ValidationError.from_exception_data(
                type(self).__name__,
                [
                    InitErrorDetails(type=PydanticCustomError("rule", "{message}", {"message": message}), loc=(name,), input=value)
                    for name, message, value in broken
                ],
            )
        return self


class Display(Params):
    """Page-only controls that change what is drawn, not what is computed.

    ``embed`` strips the page to plot and controls for an iframe; ``presenter`` enlarges text and
    lines for a projector.  Views add their own display fields by subclassing.
    """

    embed: bool = False
    presenter: bool = False


@dataclass(frozen=True)
class UI:
    """How a field is drawn on a page.

    kind: ``slider`` (range + number box), ``log`` (range over log10 of the value + number box),
    ``number`` (box only), ``select``, ``checkbox``, ``list`` (comma-separated numbers), ``text``,
    ``hidden``.  ``None`` picks one from the type.
    """

    label: str
    kind: str | None = None
    step: float | None = None
    help: str = ""
    unit: str = ""
    options: tuple | None = None
    """The choices a select offers when they are fewer than the schema's enum (a value this server
    refuses, e.g. a text of your own without the model, is in the schema but not offered)."""


def allowed_text(schema: dict[str, Any]) -> str:
    """Describe a field's JSON schema as a short sentence of what is allowed."""
    if "anyOf" in schema:
        return " or ".join(allowed_text(option) for option in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join(repr(value) for value in schema["enum"])
    if "const" in schema:
        return repr(schema["const"])
    kind = schema.get("type", "value")
    parts: list[str] = []
    if kind == "integer":
        parts.append("an even integer" if schema.get("multipleOf") == 2 else "an integer")
    elif kind == "number":
        parts.append("a number")
    elif kind == "boolean":
        return "true or false"
    elif kind == "array":
        items = allowed_text(schema.get("items", {}))
        count = []
        if "minItems" in schema:
            count.append(f"at least {schema['minItems']}")
        if "maxItems" in schema:
            count.append(f"at most {schema['maxItems']}")
        return f"a list ({', '.join(count) or 'any length'}) of {items}"
    else:
        parts.append(f"a {kind}")
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None:
        parts.append(f"{'>' if 'exclusiveMinimum' in schema else '≥'} {_fmt(low)}")
    if high is not None:
        parts.append(f"{'<' if 'exclusiveMaximum' in schema else '≤'} {_fmt(high)}")
    if schema.get("multipleOf") not in (None, 1, 2):
        parts.append(f"a multiple of {_fmt(schema['multipleOf'])}")
    return " ".join(parts[:1]) + (" " + " and ".join(parts[1:]) if len(parts) > 1 else "")


def _fmt(value: float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        value = int(value)
    return f"{value:g}" if isinstance(value, float) else str(value)

"""Every API operation of the app, with a parameter set at its defaults and one at its largest sizes.

Operations come from the running app's OpenAPI document (every ``GET``/``POST`` under ``/api``),
so views and operations added later are benchmarked without editing this file.  Each operation's
parameter model is the one the framework validates with (``app.web.routing.validating_models``).

* ``default``: no query at all (GET), or a POST body made of each field's default and, for
  required fields, the smallest value the schema allows.
* ``largest``: starting from the defaults, every bounded field is pushed, in order, to the largest
  value the model still accepts (cross-field rules such as ``seq_len × dim ≤ 262144`` are
  respected by binary search on validity); choices (enums, booleans) are tried one at a time and
  the variant that costs most is kept (``worst_case`` times them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ValidationError


@dataclass
class Operation:
    method: str
    path: str
    model: type[BaseModel] | None
    view: Any = None  # the View whose twin this is, if any
    default: dict[str, Any] = field(default_factory=dict)
    largest: dict[str, Any] | None = None
    variants: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


def discover_operations(app) -> list[Operation]:
    from app.web.routing import validating_models
    from app.web.views import ordered

    twins = {view.api_path: view for view in ordered()}
    spec = app.openapi()
    ops: list[Operation] = []
    for path, methods in spec["paths"].items():
        if not path.startswith("/api/"):
            continue
        for method in methods:
            if method.upper() not in ("GET", "POST"):
                continue
            models = validating_models(app).get(path) or []
            model = models[0] if models else None
            op = Operation(method.upper(), path, model, twins.get(path))
            example = _example_body(methods[method]) if method.upper() == "POST" else None
            if model is not None:
                op.default = minimal_values(model)
                if example is not None:
                    op.default = example
                op.variants = largest_variants(model, op.default)
                op.largest = op.variants[0] if op.variants else None
            ops.append(op)
    return ops


def _example_body(operation: dict[str, Any]) -> dict[str, Any] | None:
    """The body given as "Example body: `{...}`" in an operation's description, if any."""
    import json
    import re

    match = re.search(r"Example body: `(\{.*?\})`", operation.get("description", ""), re.S)
    if not match:
        return None
    try:
        return json.loads(match.group(1))
    except ValueError:
        return None


# ---- JSON-schema driven values -----------------------------------------------------------------


def _props(model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    schema = model.model_json_schema()
    return schema.get("properties", {})


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an ``X | None`` schema."""
    if "anyOf" in prop:
        for option in prop["anyOf"]:
            if option.get("type") != "null":
                return {**option, **{k: v for k, v in prop.items() if k != "anyOf"}}
    return prop


def _bounds(prop: dict[str, Any]) -> tuple[float | None, float | None]:
    low = prop.get("minimum")
    if low is None and "exclusiveMinimum" in prop:
        low = prop["exclusiveMinimum"]
        low = low + 1 if prop.get("type") == "integer" else low * (1 + 1e-9) + 1e-9
    high = prop.get("maximum")
    if high is None and "exclusiveMaximum" in prop:
        high = prop["exclusiveMaximum"]
        high = high - 1 if prop.get("type") == "integer" else high * (1 - 1e-9)
    return low, high


def _scalar(prop: dict[str, Any], largest: bool) -> Any:
    prop = _plain(prop)
    if "enum" in prop:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    kind = prop.get("type")
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        low, high = _bounds(prop)
        value = (high if largest else None) if high is not None else None
        if value is None:
            value = 1 if low is None else max(low, 1) if (high is None or high >= 1) else low
        step = prop.get("multipleOf")
        if step:
            value = math.floor(value / step) * step
            if low is not None and value < low:
                value += step
        return int(value) if kind == "integer" else float(value)
    if kind == "string":
        return "a" * max(prop.get("minLength", 1), 1)
    if kind == "array":
        items = prop.get("items", {})
        count = prop.get("maxItems" if largest else "minItems", 1 if not largest else 8)
        return [_scalar(items, largest) for _ in range(count)]
    return None


def minimal_values(model: type[BaseModel]) -> dict[str, Any]:
    """Defaults, plus the smallest allowed value of each required field."""
    values: dict[str, Any] = {}
    props = _props(model)
    for name, info in model.model_fields.items():
        if info.is_required():
            values[name] = _scalar(props.get(name, {}), largest=False)
    _check(model, values)
    return values


def _check(model: type[BaseModel], values: dict[str, Any]) -> bool:
    try:
        model.model_validate(values)
        return True
    except ValidationError:
        return False


def _maximise(model: type[BaseModel], start: dict[str, Any], skip: AbstractSet[str] = frozenset()) -> dict[str, Any]:
    """Push each bounded field, in order, to the largest value the model accepts."""
    values = dict(start)
    props = _props(model)
    for name, info in model.model_fields.items():
        if name in skip or name not in props:
            continue
        prop = _plain(props[name])
        kind = prop.get("type")
        current = values.get(name, info.get_default(call_default_factory=True, validated_data=values))
        if kind in ("integer", "number"):
            low, high = _bounds(prop)
            if high is None:
                continue
            if current is None:
                current = low if low is not None else 0
            step = prop.get("multipleOf") or (1 if kind == "integer" else None)
            best = _largest_valid(model, values, name, float(current), float(high), step, kind)
            if best is None and low is not None:  # the current value no longer fits: search from the minimum
                best = _largest_valid(model, values, name, float(low), float(high), step, kind)
            if best is not None:
                values[name] = best
        elif kind == "array" and "maxItems" in prop:
            items = prop.get("items", {})
            current_len = len(current) if current else prop.get("minItems", 1)
            filler = current[0] if current else _scalar(items, False)
            best = _largest_valid(model, values, name, current_len, prop["maxItems"], 1, "integer",
                                  make=lambda n, filler=filler: [filler] * int(n))
            if best is not None:
                values[name] = best
    return values


def _largest_valid(model, values, name, low, high, step, kind, make: Callable | None = None):
    make = make or ((lambda v: int(v)) if kind == "integer" else (lambda v: float(v)))

    def snap(v):
        return math.floor(v / step) * step if step else v

    def ok(v):
        # Only this field's own errors count: rules tying it to a later field are fixed when that
        # later field is maximised (cross-field validators sit on the later field by convention).
        try:
            model.model_validate({**values, name: make(v)})
            return True
        except ValidationError as exc:
            return not any(error.get("loc") and error["loc"][0] == name for error in exc.errors())

    if ok(snap(high)):
        return make(snap(high))
    if not ok(low):
        return None  # leave the field as it is
    lo, hi = low, high
    for _ in range(60):
        mid = snap((lo + hi) / 2)
        if mid <= lo or mid >= hi:
            break
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return make(lo)


def _repair(model: type[BaseModel], start: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Undo the latest maximisations until the whole model validates (a later field could not follow)."""
    values = dict(values)
    changed = [name for name in model.model_fields if name in values and values.get(name) != start.get(name)]
    while not _check(model, values) and changed:
        name = changed.pop()
        if name in start:
            values[name] = start[name]
        else:
            values.pop(name, None)
    return values if _check(model, values) else None


def largest_variants(model: type[BaseModel], default: dict[str, Any]) -> list[dict[str, Any]]:
    """The maximised defaults, and the same with each choice field switched to each other value."""
    props = _props(model)
    base = _repair(model, default, _maximise(model, default))
    variants = [base] if base is not None else []
    for name, info in model.model_fields.items():
        prop = _plain(props.get(name, {}))
        if "enum" in prop:
            choices = prop["enum"]
        elif prop.get("type") == "boolean":
            choices = [False, True]
        else:
            continue
        current = default.get(name, info.get_default(call_default_factory=True, validated_data=default))
        for choice in choices:
            if choice == current:
                continue
            start = {**default, name: choice}
            variant = _repair(model, start, _maximise(model, start))
            if variant is not None and variant.get(name) == choice:
                variants.append(variant)
    return variants


# ---- requests --------------------------------------------------------------------------------------


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    return value


def query_string(values: dict[str, Any]) -> str:
    items: list[tuple[str, Any]] = []
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            items += [(name, _query_value(item)) for item in value]
        else:
            items.append((name, _query_value(value)))
    return urlencode(items)


def url_for(op: Operation, values: dict[str, Any]) -> str:
    query = query_string(values) if op.method == "GET" else ""
    return op.path + ("?" + query if query else "")


def body_for(op: Operation, values: dict[str, Any]) -> bytes:
    import json

    return json.dumps(values).encode() if op.method == "POST" else b""


def describe(values: dict[str, Any], limit: int = 90) -> str:
    parts = []
    for name, value in values.items():
        if isinstance(value, (list, tuple)):
            parts.append(f"{name}=[{len(value)}]")
        else:
            parts.append(f"{name}={value}")
    text = ", ".join(parts) or "defaults"
    return text if len(text) <= limit else text[: limit - 1] + "…"

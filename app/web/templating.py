"""Jinja2 environment, server-side MathML, and the controls drawn from a parameters model."""

from __future__ import annotations

import math
from typing import Any

from fastapi.templating import Jinja2Templates
from latex2mathml.converter import convert as latex_to_mathml
from markupsafe import Markup
from pydantic import BaseModel

from app import __version__
from app.settings import STATIC_DIR, TEMPLATES_DIR
from app.web.errors import allowed_by_field
from app.web.params import UI, field_schemas, per_process, schema_of
from app.web.views import by_section

templates = Jinja2Templates(directory=str(TEMPLATES_DIR))


@per_process
def mathml(latex: str, display: str = "block") -> Markup:
    """LaTeX → MathML, rendered once per formula (browsers draw MathML natively)."""
    return Markup(latex_to_mathml(latex, display=display))


templates.env.filters["mathml"] = mathml


@per_process
def static_version() -> str:
    """Cache-busting token for static assets: the newest modification time under static/."""
    newest = max((path.stat().st_mtime_ns for path in STATIC_DIR.rglob("*") if path.is_file()), default=0)
    return f"{__version__}-{newest:x}"


templates.env.globals["static_version"] = static_version


def asset(path: str) -> str:
    """The versioned URL of a file under static/ (cached for a year; see app/main.py)."""
    return f"/s/{static_version()}/{path}"


@per_process
def lib_modules() -> list[str]:
    """static/js/lib/**/*.js (the library and its marks), which page scripts import: preloaded from
    the page's head."""
    lib = STATIC_DIR / "js" / "lib"
    return sorted(f"js/lib/{path.relative_to(lib).as_posix()}" for path in lib.rglob("*.js"))


templates.env.globals["asset"] = asset
templates.env.globals["lib_modules"] = lib_modules
templates.env.globals["by_section"] = by_section


def url_value(value: Any) -> str:
    """How a value is written in a URL; JavaScript's ``String(x)`` gives the same text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


def canonical_items(values: BaseModel, model: type[BaseModel]) -> list[tuple[str, str]]:
    """Query items for the values that differ from the defaults, in field order."""
    defaults = model()
    items: list[tuple[str, str]] = []
    for name in model.model_fields:
        value = getattr(values, name)
        if value == getattr(defaults, name):
            continue
        if isinstance(value, (list, tuple)):
            items.extend((name, url_value(item)) for item in value)
        else:
            items.append((name, url_value(value)))
    return items


_CONSTRAINTS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "enum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
)


@per_process
def field_specs(model: type[BaseModel], role: str) -> list[dict[str, Any]]:
    """What the page script needs of each field: how to read and write it in the URL (type,
    default) and what the server accepts (the JSON-schema constraints, the label its messages
    use), so that static/js/lib/rules.js can refuse a value before any request is sent."""
    specs = []
    defaults = model()
    allowed = allowed_by_field(model)
    for name in model.model_fields:
        prop = field_schemas(model).get(name, {})
        nullable = False
        if "anyOf" in prop:
            options = [option for option in prop["anyOf"] if option.get("type") != "null"]
            nullable = len(options) < len(prop["anyOf"])
            prop = options[0] if len(options) == 1 else prop
        spec: dict[str, Any] = {
            "name": name,
            "role": role,
            "type": _value_type(model, name),
            "default": _jsonable(getattr(defaults, name)),
            "allowed": allowed.get(name, ""),
        }
        if nullable:
            spec["nullable"] = True
        spec.update({key: prop[key] for key in _CONSTRAINTS if key in prop})
        items = prop.get("items", {})
        if items:
            spec["items"] = {key: items[key] for key in _CONSTRAINTS if key in items}
        specs.append(spec)
    return specs


def controls_for(model: type[BaseModel], values: BaseModel, errors: dict[str, str], role: str) -> list[dict[str, Any]]:
    """Everything a template needs to draw one control per field that has ``UI`` metadata."""
    properties = field_schemas(model)
    allowed = allowed_by_field(model)
    controls = []
    for name, field in model.model_fields.items():
        ui = next((item for item in field.metadata if isinstance(item, UI)), None)
        if ui is None or ui.kind == "hidden":
            continue
        prop = properties.get(name, {})
        value = getattr(values, name)
        kind = ui.kind or _auto_kind(prop)
        low = prop.get("minimum", prop.get("exclusiveMinimum"))
        high = prop.get("maximum", prop.get("exclusiveMaximum"))
        integer = prop.get("type") == "integer"
        step = ui.step if ui.step is not None else (prop.get("multipleOf", 1) if integer else "any")
        control = {
            "name": name,
            "label": ui.label,
            "kind": kind,
            "role": role,
            "min": low,
            "max": high,
            "step": step,
            "value": value,
            "text": ", ".join(url_value(v) for v in value) if isinstance(value, (list, tuple)) else url_value(value),
            "options": list(ui.options) if ui.options is not None else prop.get("enum", []),
            "help": ui.help,
            "unit": ui.unit,
            "allowed": allowed.get(name, ""),
            "error": errors.get(name, ""),
        }
        control["min_text"] = url_value(low) if low is not None else ""
        control["max_text"] = url_value(high) if high is not None else ""
        if kind == "log":
            control["log_min"] = math.log10(low) if low and low > 0 else 0.0
            control["log_max"] = math.log10(high) if high else 9.0
            control["log_value"] = math.log10(value) if value and value > 0 else control["log_min"]
        controls.append(control)
    return controls


def _auto_kind(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "select"
    kind = prop.get("type")
    if kind == "boolean":
        return "checkbox"
    if kind == "array":
        return "list"
    if kind in ("integer", "number"):
        has_range = ("minimum" in prop or "exclusiveMinimum" in prop) and ("maximum" in prop or "exclusiveMaximum" in prop)
        return "slider" if has_range else "number"
    return "text"


def _value_type(model: type[BaseModel], name: str) -> str:
    prop = schema_of(model).get("properties", {}).get(name, {})
    kind = prop.get("type")
    if kind == "array":
        return "list:" + prop.get("items", {}).get("type", "number")
    if "enum" in prop and kind == "integer":
        return "integer"  # a choice of whole numbers (e.g. the shipped layers) is read and sent as a number
    if "enum" in prop or "$ref" in prop:
        return "string"
    return kind or "string"


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value

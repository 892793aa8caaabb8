"""The API's documentation: OpenAPI from the declared answer models, and the self-hosted /docs.

Every JSON operation declares its 200 answer as a pydantic model beside its compute function
(app/web/answers.py); FastAPI writes them into the document.  The tests (tests/api/test_openapi_*.py,
tests/fuzz) check real answers against these schemas, and that generated clients keep every model.

/docs is drawn on the server from the same document (no CDN, no script: the CSP allows neither),
its Markdown rendered by markdown-it-py with raw HTML off.
"""

from __future__ import annotations

from typing import Any

from fastapi.openapi.utils import get_openapi
from markdown_it import MarkdownIt
from markupsafe import Markup

from app.web.params import allowed_text, resolve

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False})

# The 4xx body of every operation (app/web/errors.py), documented in place of FastAPI's.
ERROR_ITEM = {
    "type": "object",
    "title": "ValidationError",
    "required": ["type", "loc", "param", "msg"],
    "properties": {
        "type": {"type": "string", "description": "pydantic's error type, or e.g. extra_forbidden, too_many_errors"},
        "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "param": {"type": "string", "description": "The parameter at fault ('' when none is)."},
        "msg": {"type": "string"},
        "allowed": {"type": "string", "description": "What the parameter allows."},
        "input": {"description": "The value given, when short."},
    },
}


def markdown(text: str) -> Markup:
    return Markup(_markdown.render(text))


# ---- the document --------------------------------------------------------------------------------


def openapi_document(app) -> dict[str, Any]:
    """``app.openapi()``: FastAPI's document, whose 200 answers are the models each operation
    declares (``View.answer``, app/web/answers.py), with the app's own 4xx item and CSV bodies."""
    if app.openapi_schema:
        return app.openapi_schema
    spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    spec.setdefault("components", {}).setdefault("schemas", {})["ValidationError"] = ERROR_ITEM
    for methods in spec["paths"].values():
        for operation in methods.values():
            content = operation.get("responses", {}).get("200", {}).get("content", {})
            if "text/csv" in content:
                content["text/csv"]["schema"] = {"type": "string", "description": "CSV: a header row, then one row per line."}
    app.openapi_schema = spec
    return spec


# ---- /docs ---------------------------------------------------------------------------------------


def _type_text(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(k for k in kind)
    if kind == "array":
        return "list of " + _type_text(schema.get("items", {})) if schema.get("items") else "list"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "map of " + _type_text(schema["additionalProperties"])
    if "anyOf" in schema:
        return " or ".join(_type_text(option) for option in schema["anyOf"])
    return kind or "any"


def _allowed(schema: dict[str, Any]) -> str:
    text = allowed_text(schema)
    if schema.get("type") == "array":
        text += "; repeat the parameter once per value"
    return text


def operations(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    components = openapi.get("components", {}).get("schemas", {})
    result = []
    for path, methods in openapi.get("paths", {}).items():
        for method, operation in methods.items():
            params = []
            for parameter in operation.get("parameters", []):
                schema = resolve(parameter.get("schema", {}), components)
                params.append(
                    {
                        "name": parameter["name"],
                        "where": parameter.get("in", "query"),
                        "allowed": _allowed(schema),
                        "default": schema.get("default"),
                        "description": parameter.get("description") or schema.get("description", ""),
                    }
                )
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                body = resolve(body, components)
                for name, schema in body.get("properties", {}).items():
                    schema = resolve(schema, components)
                    params.append(
                        {
                            "name": name,
                            "where": "body" + (" (required)" if name in body.get("required", []) else ""),
                            "allowed": allowed_text(schema),
                            "default": schema.get("default"),
                            "description": schema.get("description", ""),
                        }
                    )
            answer = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
            answer = resolve(answer, components)
            returns = [
                (name, _type_text(prop) + (f" — {prop['description']}" if prop.get("description") else "") + ("" if name in answer.get("required", ()) else " (not always present)"))
                for name, prop in answer.get("properties", {}).items()
            ]
            result.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": operation.get("summary", ""),
                    "description": markdown(operation.get("description", "")),
                    "tags": operation.get("tags", []),
                    "params": params,
                    "returns": returns,
                }
            )
    return result

"""The API's documentation: OpenAPI with the shape of every JSON answer, and the self-hosted /docs.

Response shapes are not hand-written models beside each view (they would drift from the dicts the
views return): each JSON operation's 200 schema is inferred from the app's own answers to the
requests its documentation shows (the defaults, every ``path?query`` example in its description,
the "Example body" of a POST), asked in-process once per process.  Any value may be ``null`` (NaN
and ±inf are sent as null, and a quantity that does not apply to the parameters is null), and no
key is marked required (some appear only for some parameters, e.g. ALiBi's ``bias`` with ``seq_len``).  The fuzz tests
(tests/fuzz) check every answer against these schemas.

/docs is drawn on the server from the same document (no CDN, no script: the CSP allows neither),
its Markdown rendered by markdown-it-py with raw HTML off.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi.openapi.utils import get_openapi
from markdown_it import MarkdownIt
from markupsafe import Markup

from app.web.params import allowed_text

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False})
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

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


# ---- response shapes ---------------------------------------------------------------------------


def shape(values: list[Any]) -> dict[str, Any]:
    """A JSON schema that every one of ``values`` (decoded JSON) satisfies."""
    kinds: dict[str, list[Any]] = {}
    for value in values:
        kinds.setdefault(_kind(value), []).append(value)
    kinds.pop("null", None)
    options = [_shape_of_kind(kind, items) for kind, items in kinds.items()] + [{"type": "null"}]
    if len(options) == 1:
        return {}  # only nulls seen: anything
    if all(set(option) == {"type"} for option in options):
        return {"type": [option["type"] for option in options]}
    return {"anyOf": options}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"  # a count is an integer, but a quantity integral in one example may not be in another
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _shape_of_kind(kind: str, values: list[Any]) -> dict[str, Any]:
    if kind == "array":
        items = [item for value in values for item in value]
        return {"type": "array", "items": shape(items)} if items else {"type": "array"}
    if kind != "object":
        return {"type": kind}
    keys = list(dict.fromkeys(key for value in values for key in value))
    if not all(_IDENTIFIER.match(key) for key in keys):  # keyed by data (a base, a dtype value): a map
        return {"type": "object", "additionalProperties": shape([v for value in values for v in value.values()])}
    return {"type": "object", "properties": {key: shape([value[key] for value in values if key in value]) for key in keys}}


def _examples(path: str, method: str, operation: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(url, body) of the requests the operation's documentation shows."""
    description = operation.get("description", "")
    if method == "post":
        bodies = re.findall(r"Example body: `(\{.*?\})`", description, re.S)
        return [(path, body.encode()) for body in bodies]
    queries = re.findall(re.escape(path) + r"\?([^`\s]+)`", description)
    return [(path, b"")] + [(f"{path}?{query}", b"") for query in queries]


async def _answer(app, method: str, url: str, body: bytes) -> bytes | None:
    path, _, query = url.partition("?")
    headers = [(b"host", b"docs.local"), (b"accept", b"application/json"), (b"accept-encoding", b"identity")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method.upper(), "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 0), "server": ("docs.local", 80), "state": {}}
    sent, status, chunks = False, 0, []

    async def receive():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return b"".join(chunks) if status == 200 else None


def _answers(app, requests: list[tuple[str, str, bytes]]) -> list[bytes | None]:
    async def all_of_them():
        return [await _answer(app, method, url, body) for method, url, body in requests]

    # A fresh event loop in a thread of its own: this may be called from within a request.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, all_of_them()).result()


def openapi_with_shapes(app) -> dict[str, Any]:
    """``app.openapi()``: FastAPI's document, plus the 200 shape of every JSON operation and the
    app's own 4xx item shape."""
    if app.openapi_schema:
        return app.openapi_schema
    spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    spec.setdefault("components", {}).setdefault("schemas", {})["ValidationError"] = ERROR_ITEM
    targets: list[tuple[dict[str, Any], str, str, bytes]] = []
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            content = operation.get("responses", {}).get("200", {}).get("content", {})
            if "text/csv" in content:
                content["text/csv"]["schema"] = {"type": "string", "description": "CSV: a header row, then one row per line."}
            if "application/json" in content:
                targets += [(content["application/json"], method, url, body) for url, body in _examples(path, method, operation)]
    bodies = _answers(app, [(method, url, body) for _, method, url, body in targets])
    found: dict[int, tuple[dict[str, Any], list[Any]]] = {}
    for (media, *_), body in zip(targets, bodies):
        if body is not None:
            found.setdefault(id(media), (media, []))[1].append(json.loads(body))
    for media, answers in found.values():
        media["schema"] = shape(answers)
    app.openapi_schema = spec
    return spec


# ---- /docs ---------------------------------------------------------------------------------------


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return components.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return schema


def _type_text(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(k for k in kind)
    if kind == "array":
        return "list of " + _type_text(schema.get("items", {})) if schema.get("items") else "list"
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
                schema = _resolve(parameter.get("schema", {}), components)
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
                body = _resolve(body, components)
                for name, schema in body.get("properties", {}).items():
                    schema = _resolve(schema, components)
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
            returns = [(name, _type_text(prop)) for name, prop in answer.get("properties", {}).items()]
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

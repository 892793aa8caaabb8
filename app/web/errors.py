"""Error responses: 4xx JSON under /api naming the parameter and what is allowed; HTML elsewhere.

Every validation error item carries ``param`` (the field) and, when known, ``allowed`` (a
sentence built from the field's constraints), besides FastAPI's usual ``loc``/``msg``/``type``.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from app.web.params import allowed_text
from app.web.responses import JSONBytes, dumps

log = logging.getLogger("app.errors")

# Filled by the routing module: path → the models that validate it.
MODELS_BY_PATH: dict[str, list[type[BaseModel]]] = {}


def allowed_by_field(model: type[BaseModel]) -> dict[str, str]:
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    allowed = {}
    for name, field_schema in schema.get("properties", {}).items():
        if "$ref" in field_schema:
            field_schema = definitions.get(field_schema["$ref"].rsplit("/", 1)[-1], field_schema)
        allowed[name] = allowed_text(field_schema)
    return allowed


def describe_errors(errors: list[dict[str, Any]], models: list[type[BaseModel]]) -> list[dict[str, Any]]:
    """Turn pydantic error dicts into JSON-safe items naming the parameter and the allowed values."""
    allowed: dict[str, str] = {}
    known: list[str] = []
    for model in models:
        allowed.update(allowed_by_field(model))
        known.extend(model.model_fields)
    items = []
    for error in errors:
        loc = [part if isinstance(part, (str, int)) else str(part) for part in error.get("loc", ())]
        fields = [part for part in loc if isinstance(part, str) and part not in ("query", "body", "path")]
        param = fields[0] if fields else ("body" if loc[:1] == ["body"] else "")
        item: dict[str, Any] = {"type": error.get("type", "value_error"), "loc": loc, "param": param}
        if error.get("type") == "extra_forbidden":
            item["msg"] = f"Unknown parameter {param!r}"
            item["allowed"] = "one of " + ", ".join(known) if known else "no parameters"
        else:
            item["msg"] = str(error.get("msg", "Invalid value")).removeprefix("Value error, ")
            if param in allowed:
                item["allowed"] = allowed[param]
        value = error.get("input")
        if isinstance(value, (str, int, bool)) and len(str(value)) <= 200 or isinstance(value, float) and math.isfinite(value):
            item["input"] = value
        items.append(item)
    return items


def validation_response(errors: list[dict[str, Any]], models: list[type[BaseModel]]) -> Response:
    return JSONBytes(dumps({"detail": describe_errors(errors, models)}), status_code=422)


def install(app: FastAPI, render_error_page) -> None:
    """Register the exception handlers.  ``render_error_page(request, status, message)`` draws HTML."""

    @app.exception_handler(RequestValidationError)
    async def request_validation(request: Request, exc: RequestValidationError) -> Response:
        models = MODELS_BY_PATH.get(request.url.path, [])
        return validation_response(list(exc.errors()), models)

    @app.exception_handler(ValidationError)
    async def model_validation(request: Request, exc: ValidationError) -> Response:
        return validation_response(exc.errors(include_url=False), [])

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api") or not _wants_html(request):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        return render_error_page(request, exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s", request.url.path)
        if request.url.path.startswith("/api") or not _wants_html(request):
            return JSONResponse({"detail": "Internal error; this is a bug, please report it."}, status_code=500)
        return render_error_page(request, 500, "Something went wrong on our side.")


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "text/html")

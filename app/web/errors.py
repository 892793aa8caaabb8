"""Error responses: 4xx JSON under /api naming the parameter and what is allowed; HTML elsewhere.

Every validation error item carries ``param`` (the field) and, when known, ``allowed`` (a
sentence built from the field's constraints), besides FastAPI's usual ``loc``/``msg``/``type``.
Every other 4xx JSON body has the same shape, ``{"detail": [{"type", "loc", "param", "msg",
"allowed"?}]}``: an unknown path names ``path``, a wrong method names ``method``, and a body
that cannot be parsed (invalid UTF-8, JSON nested too deeply) is a 422 naming ``body``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match

from app.web.params import allowed_text, field_schemas, per_process
from app.web.responses import JSONBytes, dumps

log = logging.getLogger("app.errors")

def _models_of(request: Request) -> list[type[BaseModel]]:
    """The models that validate the matched operation: its endpoint carries them (routing.api_router)."""
    return list(getattr(request.scope.get("endpoint"), "validated_by", ()))


def error_item(kind: str, loc: list[Any], param: str, msg: str, allowed: str | None = None) -> dict[str, Any]:
    """The one shape of a 4xx item (API answers and page problems alike)."""
    item: dict[str, Any] = {"type": kind, "loc": loc, "param": param, "msg": msg}
    if allowed:
        item["allowed"] = allowed
    return item


def error_body(*items: dict[str, Any]) -> bytes:
    return dumps({"detail": list(items)})


def error_response(status: int, *items: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return JSONBytes(error_body(*items), status_code=status, headers=headers)


@per_process
def allowed_by_field(model: type[BaseModel]) -> dict[str, str]:
    """What each field of ``model`` allows, as a sentence (built once per model)."""
    return {name: allowed_text(schema) for name, schema in field_schemas(model).items()}


def describe_errors(errors: Sequence[Mapping[str, Any]], models: list[type[BaseModel]]) -> list[dict[str, Any]]:
    """Turn pydantic error dicts into JSON-safe items naming the parameter and the allowed values."""
    allowed: dict[str, str] = {}
    known: list[str] = []
    for model in models:
        allowed.update(allowed_by_field(model))
        known.extend(model.model_fields)
    items = []
    for error in errors:
        if error.get("type") == "default_factory_not_called":
            # A default computed from other fields (e.g. high_freq_factor from low_freq_factor) is only
            # skipped because one of those fields failed; that field's own error says what to change.
            continue
        loc = [part if isinstance(part, (str, int)) else str(part) for part in error.get("loc", ())]
        fields = [part for part in loc if isinstance(part, str) and part not in ("query", "body", "path")]
        named = getattr((error.get("ctx") or {}).get("error"), "field", None)
        if not fields and isinstance(named, str) and named in known:
            # A whole-model rule (app.core.scaling.ScalingError) names the field it concerns.
            fields, loc = [named], [*loc, named]
        param = fields[0] if fields else ("body" if loc[:1] == ["body"] else "")
        kind = error.get("type", "value_error")
        if param == "body" and fields == []:
            item = error_item(kind, loc, param, _body_message(error), "a JSON object" + (" with the fields " + ", ".join(known) if known else ""))
        elif kind == "extra_forbidden":
            item = error_item(kind, loc, param, f"Unknown parameter {param!r}", "one of " + ", ".join(known) if known else "no parameters")
        else:
            item = error_item(kind, loc, param, str(error.get("msg", "Invalid value")).removeprefix("Value error, "), allowed.get(param))
        value = error.get("input")
        at = loc.index(param) if param in loc else -1
        if at >= 0 and len(loc) > at + 1 and isinstance(loc[at + 1], int) and isinstance(value, str) and "," in value:
            # One item of a list parameter holds a comma: the query gives a list by repeating its name.
            parts = [part.strip() for part in value.split(",")][:3]
            item["msg"] += f"; a list is given by repeating the name ({'&'.join(f'{param}={part}' for part in parts)}), not with commas"
        # The refused value is echoed when JSON can carry it as it is: short text, a finite float,
        # an integer within 64 bits (a body of -9223372036854775809 is refused, not echoed).
        if (
            (isinstance(value, (str, bool))
            and len(str(value)) <= 200)
            or (isinstance(value, int)
            and -(2**63) <= value < 2**64)
            or (isinstance(value, float)
            and math.isfinite(value))
        ):
            item["input"] = value
        items.append(item)
    return items


# At most one item per parameter and this many items in one error answer (more than any model has
# fields): 12 000 unknown parameters once cost 475 ms of CPU and 2 MB of answer, one item each, and a
# list of 1024 bad values one item per value.  What is left out is counted in one last item.
MAX_ERROR_ITEMS = 64


def capped(items: list[dict[str, Any]], total: int | None = None) -> list[dict[str, Any]]:
    """The first item of each parameter, at most :data:`MAX_ERROR_ITEMS` of them, and one item
    saying how many of the ``total`` problems were left out."""
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in items:
        if len(kept) == MAX_ERROR_ITEMS:
            break
        if item["param"] not in seen or not item["param"]:
            seen.add(item["param"])
            kept.append(item)
    more = (len(items) if total is None else total) - len(kept)
    if more > 0:
        kept.append(error_item("too_many_errors", [], "", f"{more} more problem{'s' if more > 1 else ''} not listed"))
    return kept


def unknown_parameters(names: list[str]) -> list[dict[str, Any]]:
    """Page problems for query names no model knows (the page ignores them and still draws)."""
    return [error_item("extra_forbidden", ["query", name], name, f"Unknown parameter {name!r}; it was ignored.") for name in names]


def validation_response(errors: Sequence[Mapping[str, Any]], models: list[type[BaseModel]]) -> Response:
    errors = [error for error in errors if error.get("type") != "default_factory_not_called"]
    first: dict[Any, Mapping[str, Any]] = {}
    for error in errors:  # one per parameter before describing them: the cost stays bounded too
        first.setdefault(tuple(error.get("loc", ()))[:2], error)
        if len(first) > MAX_ERROR_ITEMS:
            break
    return error_response(422, *capped(describe_errors(list(first.values()), models), len(errors)))


def install(app: FastAPI, render_error_page) -> None:
    """Register the exception handlers.  ``render_error_page(request, status, message)`` draws HTML."""

    @app.exception_handler(RequestValidationError)
    async def request_validation(request: Request, exc: RequestValidationError) -> Response:
        if request.method == "POST" and not _json_content_type(request.headers.get("content-type", "application/json")):
            # FastAPI reads a body of another media type as bytes, then calls it an invalid object.
            item = error_item("unsupported_media_type", ["header", "content-type"], "content-type",
                              f"The body must be JSON, not {request.headers['content-type'][:100]!r}", "application/json")
            return error_response(415, item, headers={"Accept-Post": "application/json"})
        return validation_response(list(exc.errors()), _models_of(request))

    @app.exception_handler(ValidationError)
    async def model_validation(request: Request, exc: ValidationError) -> Response:
        return validation_response(exc.errors(include_url=False), [])

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api") or not _wants_html(request):
            cause = exc.__cause__
            if exc.status_code == 400 and cause is not None:
                # FastAPI turns any failure to read or decode a body into a bare 400.
                if type(cause).__name__ == "BodyTooLarge":
                    return _body_too_large()
                problem = {"type": "json_invalid", "loc": ("body",), "ctx": {"error": _parse_failure(cause)}}
                return validation_response([problem], _models_of(request))
            headers = dict(exc.headers or {})
            if exc.status_code == 405:
                headers["Allow"] = _allowed_methods(request)
            return error_response(exc.status_code, _http_item(request, exc, headers), headers=headers)
        return render_error_page(request, exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s", request.url.path)
        if request.url.path.startswith("/api") or not _wants_html(request):
            return JSONResponse({"detail": "Internal error; this is a bug, please report it."}, status_code=500)
        return render_error_page(request, 500, "Something went wrong on our side.")


def _body_message(error: Mapping[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        reason = (error.get("ctx") or {}).get("error")
        return "The body is not valid JSON" + (f" ({reason})" if reason else "")
    if error.get("type") == "missing":
        return "A JSON body is required"
    return str(error.get("msg", "Invalid body")).removeprefix("Value error, ")


def _parse_failure(cause: BaseException) -> str:
    if isinstance(cause, RecursionError):
        return "too deeply nested"
    if isinstance(cause, UnicodeDecodeError):
        return "not UTF-8"
    return type(cause).__name__


def _json_content_type(value: str) -> bool:
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _allowed_methods(request: Request) -> str:
    """Every method some route takes at this path (the router reports only the first route's), HEAD with GET."""
    routes = request.app.router.routes
    methods = {m for m in ("GET", "POST", "PUT", "PATCH", "DELETE") if any(r.matches({**request.scope, "method": m})[0] == Match.FULL for r in routes)}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


def _http_item(request: Request, exc: HTTPException, headers: dict[str, str]) -> dict[str, Any]:
    status = exc.status_code
    if status == 404:
        message = exc.detail if exc.detail != "Not Found" else f"Nothing here: {request.url.path}"
        return error_item("not_found", ["path"], "path", message, "the paths listed at /docs (and in /openapi.json)")
    if status == 405:
        return error_item("method_not_allowed", ["method"], "method", f"Method {request.method} is not allowed here", headers.get("Allow") or "see /docs")
    return error_item(f"http_{status}", [], "", str(exc.detail))


def _body_too_large() -> Response:
    from app.settings import MAX_BODY_BYTES

    return error_response(413, error_item("too_large", ["body"], "body", "Request body too large", f"at most {MAX_BODY_BYTES} bytes"))


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "text/html")

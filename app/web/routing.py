"""Routes generated from the view registry: ``GET /api/...`` and ``GET /{name}`` per view.

Both faces validate with the same ``view.params`` model and call the same memoised
``view.compute``; the page embeds the result in its HTML for the first paint and links the
JSON twin.  (No ``from __future__ import annotations`` here: FastAPI must see the real
annotation of each generated endpoint.)
"""

import csv
import io
import threading
from collections import OrderedDict
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from app.web import errors
from app.web.params import Params
from app.settings import RESPONSE_CACHE_BYTES
from app.web.responses import (
    COMPACT_MEDIA_TYPE,
    cached_json,
    compress,
    dumps,
    dumps_compact,
    embed_json,
    etag_for,
    is_deflated,
    wants_compact,
)
from app.web.security import content_security_policy
from app.web.templating import canonical_items, controls_for, field_specs, mathml, templates
from app.web.views import View, ordered


class ByteBudgetCache:
    """Least-recently-used cache of response bodies, bounded by their total size in bytes.

    A count bound alone would let 256 maximum-size tables hold gigabytes; this keeps the whole
    cache under ``max_bytes`` whatever is asked for.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self.entries: OrderedDict[Any, tuple[bytes, str, bytes | None]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any) -> tuple[bytes, str, bytes | None] | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: Any, entry: tuple[bytes, str, bytes | None]) -> None:
        size = len(entry[0]) + len(entry[2] or b"")
        if size > self.max_bytes // 4:
            return  # one giant body would evict everything else
        with self.lock:
            if key in self.entries:
                return
            self.entries[key] = entry
            self.used += size
            while self.used > self.max_bytes:
                _, (body, _, compressed) = self.entries.popitem(last=False)
                self.used -= len(body) + len(compressed or b"")

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.used = 0


RESPONSE_CACHE = ByteBudgetCache(RESPONSE_CACHE_BYTES)


def computed(view_name: str, params: Params) -> tuple[bytes, str, bytes | None]:
    """JSON body, ETag and gzipped body of a view's result: computed once per distinct parameters."""
    from app.web.views import REGISTRY

    key = (view_name, params)
    entry = RESPONSE_CACHE.get(key)
    if entry is None:
        body = dumps(REGISTRY[view_name].compute(params))
        entry = (body, etag_for(body), compress(body))
        RESPONSE_CACHE.put(key, entry)
    return entry


def computed_compact(view_name: str, params: Params) -> tuple[bytes, str, bytes | None]:
    """Like :func:`computed`, in the compact encoding the pages ask for (``responses.compact``)."""
    from app.web.views import REGISTRY

    key = ("compact", view_name, params)
    entry = RESPONSE_CACHE.get(key)
    if entry is None:
        body = dumps_compact(REGISTRY[view_name].compute(params))
        # Its own ETag even when no array was large enough to change the bytes: another media type.
        entry = (body, etag_for(body)[:-1] + '-c"', None if is_deflated(body) else compress(body))
        RESPONSE_CACHE.put(key, entry)
    return entry


class UrlCache:
    """Finished 200 responses of the JSON twins by URL and negotiated variant, bounded in bytes.

    A twin's response is a pure function of its URL (and of Accept / Accept-Encoding, which it
    names in Vary), so a repeated URL can be answered before FastAPI parses and validates the
    query again and before the thread-pool hop of a ``def`` endpoint: what a class of students
    on the same lesson mostly sends.  Only successful responses are kept.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self.entries: OrderedDict[Any, tuple[bytes, list[tuple[bytes, bytes]], str, int]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any):
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: Any, body: bytes, raw_headers: list[tuple[bytes, bytes]], etag: str) -> None:
        size = len(body) + len(key[1]) + 512
        if size > self.max_bytes // 8:
            return
        with self.lock:
            if key in self.entries:
                return
            self.entries[key] = (body, raw_headers, etag, size)
            self.used += size
            while self.used > self.max_bytes:
                _, (_, _, _, dropped) = self.entries.popitem(last=False)
                self.used -= dropped

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.used = 0


URL_CACHE = UrlCache(RESPONSE_CACHE_BYTES // 4)
_NOT_MODIFIED_DROP = {b"content-length", b"content-type", b"content-encoding"}


class CachedTwinRoute(APIRoute):
    """The twins' route class: a GET whose URL was answered before is served from ``URL_CACHE``."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            if request.method != "GET":
                return await handler(request)
            headers = request.headers
            key = (request.url.path, request.scope.get("query_string", b""), wants_compact(request), "gzip" in headers.get("accept-encoding", ""))
            entry = URL_CACHE.get(key)
            if entry is not None:
                body, raw_headers, etag, _ = entry
                if etag in headers.get("if-none-match", ""):
                    response = Response(status_code=304)
                    response.raw_headers = [item for item in raw_headers if item[0] not in _NOT_MODIFIED_DROP]
                    return response
                response = Response(body)
                response.raw_headers = list(raw_headers)
                return response
            response = await handler(request)
            etag = response.headers.get("etag")
            if response.status_code == 200 and etag and isinstance(getattr(response, "body", None), bytes):
                URL_CACHE.put(key, response.body, list(response.raw_headers), etag)
            return response

        return route


def api_router(views: list[View]) -> APIRouter:
    router = APIRouter(route_class=CachedTwinRoute)
    for view in views:
        _add_api_route(router, view)
        if view.csv is not None:
            _add_csv_route(router, view)
    return router


def _add_csv_route(router: APIRouter, view: View) -> None:
    model = view.params

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]
        # One computation: the CSV is built from the result directly and its ETag hashes the CSV
        # itself (building the JSON body only to hash it doubled the cost of every export).
        header, rows = view.csv(view.compute(params))
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        body = buffer.getvalue().encode()
        return Response(
            body,
            media_type="text/csv; charset=utf-8",
            headers={"ETag": etag_for(body), "Cache-Control": "public, max-age=3600"},
        )

    router.add_api_route(
        view.api_path + ".csv",
        endpoint,
        methods=["GET"],
        name=f"csv_{view.name}",
        summary=f"{view.title} (CSV)",
        description=f"The data of `{view.api_path}` as CSV, with the same parameters.",
        tags=[view.section],
        response_class=Response,
        responses={200: {"content": {"text/csv": {}}, "description": "The plotted data as a table."}},
    )
    errors.MODELS_BY_PATH[view.api_path + ".csv"] = [model]


def _add_api_route(router: APIRouter, view: View) -> None:
    model = view.params

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]
        # The body depends on Accept (plain JSON, or the pages' compact encoding).
        if wants_compact(request):
            return cached_json(
                request, *computed_compact(view.name, params), media_type=COMPACT_MEDIA_TYPE, vary="Accept, Accept-Encoding"
            )
        return cached_json(request, *computed(view.name, params), vary="Accept, Accept-Encoding")

    description = view.api_description or view.summary
    if view.examples:
        description += "\n\nExamples:\n\n" + "\n".join(f"- `{view.api_path}?{example}`" for example in view.examples)
    router.add_api_route(
        view.api_path,
        endpoint,
        methods=["GET"],
        name=f"api_{view.name}",
        summary=view.title,
        description=description,
        tags=[view.section],
        response_class=Response,
        responses={200: {"content": {"application/json": {}}, "description": "The data the page plots."}},
    )
    errors.MODELS_BY_PATH[view.api_path] = [model]


def page_router(views: list[View]) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    for view in views:
        _add_page_route(router, view)
    return router


def _add_page_route(router: APIRouter, view: View) -> None:
    def endpoint(request: Request) -> Response:
        return render_view(request, view)

    router.add_api_route(f"/{view.name}", endpoint, methods=["GET"], name=f"page_{view.name}")


def parse_query(model: type[BaseModel], request: Request, names: list[str]) -> tuple[Any, list[dict[str, Any]]]:
    """Validate the query items named ``names`` with ``model``; list fields take repeated keys.

    Returns the model (invalid fields fall back to their defaults, so the page still draws) and
    the errors found.
    """
    raw: dict[str, Any] = {}
    for name in names:
        values = request.query_params.getlist(name)
        field = model.model_fields.get(name)
        is_list = field is not None and getattr(field.annotation, "__origin__", None) in (list, tuple)
        raw[name] = values if is_list else values[-1]
    try:
        return model.model_validate(raw), []
    except ValidationError as exc:
        found = exc.errors(include_url=False)
    bad = {str(error["loc"][0]) for error in found if error.get("loc")}
    kept = {name: value for name, value in raw.items() if name not in bad and name in model.model_fields}
    try:
        return model.model_validate(kept), found
    except ValidationError:
        return model(), found


def render_view(request: Request, view: View) -> Response:
    compute_fields = list(view.params.model_fields)
    display_fields = list(view.display.model_fields)
    query_names = list(dict.fromkeys(request.query_params.keys()))
    unknown = [name for name in query_names if name not in compute_fields and name not in display_fields]
    params, compute_errors = parse_query(view.params, request, [n for n in query_names if n in compute_fields])
    display, display_errors = parse_query(view.display, request, [n for n in query_names if n in display_fields])
    problems = errors.describe_errors(compute_errors, [view.params]) + errors.describe_errors(display_errors, [view.display])
    problems += [
        {"param": name, "msg": f"Unknown parameter {name!r}; it was ignored.", "loc": ["query", name]} for name in unknown
    ]
    by_field = {item["param"]: item["msg"] + (f" (allowed: {item['allowed']})" if item.get("allowed") else "") for item in problems}

    body, _, _ = computed(view.name, params)
    compute_query = canonical_items(params, view.params)
    page_query = compute_query + canonical_items(display, view.display)
    full_query = [(name, value) for name, value in page_query if name != "embed"]
    api_url = view.api_path + ("?" + urlencode(compute_query) if compute_query else "")
    boot = {
        "name": view.name,
        "api": view.api_path,
        "fields": field_specs(view.params, "compute") + field_specs(view.display, "display"),
        "state": {**params.model_dump(mode="json"), **display.model_dump(mode="json")},
        "errors": problems,
    }
    context = {
        "view": view,
        "nav": ordered(),
        "controls": controls_for(view.params, params, by_field, "compute"),
        "display_controls": controls_for(view.display, display, by_field, "display"),
        "general_errors": [item for item in problems if item["param"] not in _drawn(view) or item["param"] in unknown],
        "formulas": [mathml(latex) for latex in view.formulas],
        "boot_json": embed_json(boot, data=body),
        "api_url": api_url,
        "page_url": f"/{view.name}" + ("?" + urlencode(page_query) if page_query else ""),
        "full_url": f"/{view.name}" + ("?" + urlencode(full_query) if full_query else ""),
        "embed": getattr(display, "embed", False),
        "presenter": getattr(display, "presenter", False),
    }
    response = templates.TemplateResponse(
        request, f"pages/{view.name}.html", context, status_code=422 if problems else 200
    )
    response.headers["Link"] = f'<{api_url}>; rel="alternate"; type="application/json"'
    if context["embed"]:
        # Embed mode exists to be framed by course pages on other sites.
        response.headers["Content-Security-Policy"] = content_security_policy(frame_ancestors="*")
    return response


def _drawn(view: View) -> set[str]:
    from app.web.params import UI

    drawn = set()
    for model in (view.params, view.display):
        for name, field in model.model_fields.items():
            if any(isinstance(item, UI) and item.kind != "hidden" for item in field.metadata):
                drawn.add(name)
    return drawn

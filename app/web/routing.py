"""Routes generated from the view registry: ``GET /api/...`` and ``GET /{name}`` per view.

Both faces validate with the same ``view.params`` model and call the same memoised
``view.compute``; the page embeds the result in its HTML for the first paint and links the
JSON twin.  (No ``from __future__ import annotations`` here: FastAPI must see the real
annotation of each generated endpoint.)
"""

import gzip
import threading
from collections import OrderedDict
from typing import Annotated, Any, Callable
from urllib.parse import urlencode

from fastapi import APIRouter, Query
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from app.settings import API_CACHE_SECONDS, GZIP_LEVEL, RESPONSE_CACHE_BYTES
from app.web import errors
from app.web.csv_format import CSV_MEDIA_TYPE, csv_bytes
from app.web.params import Params
from app.web.responses import (
    COMPACT_MEDIA_TYPE,
    cached_json,
    dumps,
    dumps_compact,
    embed_json,
    etag_for,
    wants_compact,
)
from app.web.rules import rule_specs
from app.web.security import content_security_policy
from app.web.templating import canonical_items, controls_for, field_specs, mathml, templates
from app.web.views import View, ordered


# gzip is made on first demand (a page's first paint embeds the JSON body and never sends it gzipped;
# a client that does not accept gzip never pays for it) and kept beside the body.  Measured here
# (float-heavy text, one core): level 4 costs ~30 ms per MiB, level 1 ~15 ms per MiB for ~4 % more
# bytes, so bodies from GZIP_FAST_FROM on use level 1, and bodies above GZIP_MAX_BYTES (the CSV of a
# 512 × 512 table is 5 MB) are sent uncompressed: compressing them would cost more CPU than a whole
# request may use (issue 8, ~50 ms), for a download that shrinks only about 2×.
GZIP_MIN_BYTES = 1024
GZIP_FAST_FROM = 256 * 1024
GZIP_MAX_BYTES = 1024 * 1024
# Compact bodies are mostly base64 of float64 bytes, which gzip shrinks by ~25% at ~50 ms per MiB:
# worth it for the small bodies of everyday slider moves, not for the multi-megabyte ones.
COMPACT_GZIP_MAX_BYTES = 256 * 1024


class Body:
    """A finished response body with its ETag; its gzip is made on first demand (see ``gzipped``)."""

    __slots__ = ("body", "etag", "gz", "gz_done", "cache")

    def __init__(self, body: bytes, etag: str, compressible: bool = True) -> None:
        self.body = body
        self.etag = etag
        self.gz: bytes | None = None
        self.gz_done = not compressible or not GZIP_MIN_BYTES <= len(body) <= GZIP_MAX_BYTES
        self.cache: ByteBudgetCache | None = None

    @property
    def size(self) -> int:
        return len(self.body) + len(self.gz or b"")

    def gzipped(self) -> bytes | None:
        """The body gzipped (made once), or None when it is not worth it (tiny, huge, or mostly incompressible bytes)."""
        if not self.gz_done:
            level = GZIP_LEVEL if len(self.body) < GZIP_FAST_FROM else 1
            compressed = gzip.compress(self.body, level, mtime=0)
            cache = self.cache
            if cache is None:
                self.gz, self.gz_done = compressed, True
            else:
                cache.attach_gzip(self, compressed)
        return self.gz


class ByteBudgetCache:
    """Least-recently-used cache of response bodies, bounded by their total size in bytes.

    A count bound alone would let 256 maximum-size tables hold gigabytes; this keeps the whole
    cache under ``max_bytes`` whatever is asked for (a body's gzip counts from when it is made).
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self.entries: OrderedDict[Any, Body] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any) -> Body | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: Any, entry: Body) -> Body:
        """Keep ``entry`` (unless one giant body would evict everything else); returns the entry
        kept for ``key`` (an earlier one if another thread got there first)."""
        if entry.size > self.max_bytes // 4:
            return entry
        with self.lock:
            if key in self.entries:
                return self.entries[key]
            entry.cache = self
            self.entries[key] = entry
            self.used += entry.size
            self._evict()
        return entry

    def attach_gzip(self, entry: Body, compressed: bytes) -> None:
        """Keep ``entry``'s gzip beside it and count its bytes (once, whichever thread made it)."""
        with self.lock:
            if entry.gz_done:
                return
            entry.gz, entry.gz_done = compressed, True
            if entry.cache is self:
                self.used += len(compressed)
                self._evict()

    def _evict(self) -> None:
        while self.used > self.max_bytes and self.entries:
            _, dropped = self.entries.popitem(last=False)
            dropped.cache = None
            self.used -= dropped.size

    def clear(self) -> None:
        with self.lock:
            for entry in self.entries.values():
                entry.cache = None
            self.entries.clear()
            self.used = 0


RESPONSE_CACHE = ByteBudgetCache(RESPONSE_CACHE_BYTES)


def cached_body(key: Any, make: Callable[[], Body]) -> Body:
    """The body kept for ``key``, made by ``make()`` once per distinct key (while it stays cached)."""
    entry = RESPONSE_CACHE.get(key)
    if entry is None:
        entry = RESPONSE_CACHE.put(key, make())
    return entry


def accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "")


def computed(view_name: str, params: Params) -> Body:
    """JSON body and ETag of a view's result: computed once per distinct parameters."""
    from app.web.views import REGISTRY

    def make() -> Body:
        body = dumps(REGISTRY[view_name].compute(params))
        return Body(body, etag_for(body))

    return cached_body((view_name, params), make)


def computed_compact(view_name: str, params: Params) -> Body:
    """Like :func:`computed`, in the compact encoding the pages ask for (``responses.compact``)."""
    from app.web.views import REGISTRY

    def make() -> Body:
        body = dumps_compact(REGISTRY[view_name].compute(params))
        # Its own ETag even when no array was large enough to change the bytes: another media type.
        return Body(body, etag_for(body, "compact"), compressible=len(body) <= COMPACT_GZIP_MAX_BYTES)

    return cached_body(("compact", view_name, params), make)


def json_response(request: Request, entry: Body, **options: Any) -> Response:
    """``cached_json`` for a cached body: ETag, Cache-Control, 304, gzip when the client takes it."""
    return cached_json(request, entry.body, entry.etag, entry.gzipped() if accepts_gzip(request) else None, **options)


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


def csv_response(request: Request, entry: Body) -> Response:
    """A CSV export: cacheable like the JSON twins (ETag, Cache-Control, 304), gzipped here when the
    client takes it and it is worth it (``Body.gzipped``); the GZip middleware leaves text/csv alone."""
    headers = {"ETag": entry.etag, "Cache-Control": f"public, max-age={API_CACHE_SECONDS}", "Vary": "Accept-Encoding"}
    if entry.etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    compressed = entry.gzipped() if accepts_gzip(request) else None
    if compressed is not None:
        return Response(compressed, media_type=CSV_MEDIA_TYPE, headers={**headers, "Content-Encoding": "gzip"})
    return Response(entry.body, media_type=CSV_MEDIA_TYPE, headers=headers)


def _add_csv_route(router: APIRouter, view: View) -> None:
    model = view.params

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]
        # One computation, formatted in bulk (app/web/csv_format.py), kept like the JSON bodies.
        def make() -> Body:
            body = csv_bytes(*view.csv(view.compute(params)))
            return Body(body, etag_for(body, "csv"))

        return csv_response(request, cached_body(("csv", view.name, params), make))

    router.add_api_route(
        view.api_path + ".csv",
        endpoint,
        methods=["GET"],
        name=f"csv_{view.name}",
        summary=f"{view.title} (CSV)",
        description=(
            f"The data of `{view.api_path}` as CSV, with the same parameters.  Exports over "
            f"{GZIP_MAX_BYTES // (1024 * 1024)} MiB are sent without gzip (compressing them would cost more than the request)."
        ),
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
            return json_response(
                request, computed_compact(view.name, params), media_type=COMPACT_MEDIA_TYPE, vary="Accept, Accept-Encoding"
            )
        return json_response(request, computed(view.name, params), vary="Accept, Accept-Encoding")

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


def api_operation(
    router: APIRouter,
    path: str,
    model: type[BaseModel],
    build: Callable[[Any], Any],
    *,
    name: str,
    summary: str,
    description: str,
    response_description: str,
) -> None:
    """Add an API-only ``GET path`` to ``router``, answered like the JSON twins.

    The query is validated by ``model`` (422s name the field: the model is registered in
    ``errors.MODELS_BY_PATH``); the body is ``dumps(build(params))``, made once per distinct
    parameters and kept in ``RESPONSE_CACHE``; the response has an ETag, Cache-Control and 304 on
    revalidation, is gzipped on demand, and a repeated URL is answered from ``URL_CACHE``.
    """

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]
        def make() -> Body:
            body = dumps(build(params))
            return Body(body, etag_for(body))

        return json_response(request, cached_body(("operation", path, params), make))

    router.add_api_route(
        path,
        endpoint,
        methods=["GET"],
        name=name,
        summary=summary,
        description=description,
        response_class=Response,
        responses={200: {"content": {"application/json": {}}, "description": response_description}},
        route_class_override=CachedTwinRoute,
    )
    errors.MODELS_BY_PATH[path] = [model]


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


# A page embeds its data for the first paint up to this size.  Above it (a 512 × 512 table is ~5 MB
# of JSON text, ~150 ms to gzip) the page fetches the compact twin instead, so its HTML stays small.
EMBED_MAX_BYTES = 256 * 1024


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

    body = computed(view.name, params).body
    compute_query = canonical_items(params, view.params)
    page_query = compute_query + canonical_items(display, view.display)
    full_query = [(name, value) for name, value in page_query if name != "embed"]
    api_url = view.api_path + ("?" + urlencode(compute_query) if compute_query else "")
    boot = {
        "name": view.name,
        "api": view.api_path,
        "fields": field_specs(view.params, "compute") + field_specs(view.display, "display"),
        "rules": rule_specs(view.params) + rule_specs(view.display),
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
        "boot_json": embed_json(boot, data=body if len(body) <= EMBED_MAX_BYTES else b"null"),
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
    if response.status_code == 200:
        # A page is a pure function of its URL (and of the app version): revalidated on every
        # visit (no-cache: a new release must show at once), 304 when nothing changed.
        etag = etag_for(response.body, "page")
        response.headers["ETag"] = etag
        response.headers["Cache-Control"] = "no-cache"
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers={name: value for name, value in response.headers.items() if name not in ("content-length", "content-type")})
    return response


def _drawn(view: View) -> set[str]:
    from app.web.params import UI

    drawn = set()
    for model in (view.params, view.display):
        for name, field in model.model_fields.items():
            if any(isinstance(item, UI) and item.kind != "hidden" for item in field.metadata):
                drawn.add(name)
    return drawn

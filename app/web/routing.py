"""Routes generated from the view registry: ``GET /api/...`` and ``GET /{name}`` per view.

Both faces validate with the same ``view.params`` model and call the same memoised
``view.compute``; the page embeds the result in its HTML for the first paint and links the
JSON twin.  (No ``from __future__ import annotations`` here: FastAPI must see the real
annotation of each generated endpoint.)
"""

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.settings import API_CACHE_SECONDS, MAX_QUERY_ITEMS
from app.web import errors
from app.web.caching import GZIP_MAX_BYTES, cached_response, plain
from app.web.csv_format import CSV_MEDIA_TYPE, csv_bytes
from app.web.params import Params
from app.web.query import read_query_or_defaults
from app.web.responses import COMPACT_MEDIA_TYPE, dumps, dumps_compact, embed_json, wants_compact
from app.web.rules import rule_specs
from app.web.security import PAGE_HEADERS, content_security_policy
from app.web.templating import canonical_items, controls_for, field_specs, mathml, templates
from app.web.views import CsvTable, Route, View, ordered

API_CACHE_CONTROL = f"public, max-age={API_CACHE_SECONDS}"
JSON_MEDIA_TYPE = "application/json"


def json_key(view_name: str, params: Params) -> tuple[str, str, Params]:
    return ("json", view_name, params)


def json_body(view: View, params: Params) -> bytes:
    """The twin's JSON body for ``params`` (made once while cached): the page embeds these bytes."""
    return plain(json_key(view.name, params), lambda: dumps(view.compute(params)), JSON_MEDIA_TYPE, "json").body


def api_router(views: list[View]) -> APIRouter:
    """Every view's JSON twin, its CSV export and its own operations (``View.routes``)."""
    router = APIRouter()
    for view in views:
        for route in (_twin(view), *([_csv(view, view.csv)] if view.csv is not None else []), *view.routes):
            router.add_api_route(
                route.path,
                route.endpoint,
                methods=list(route.methods),
                name=route.name or None,
                summary=route.summary,
                description=route.description,
                tags=[view.section],
                # The endpoints return their own Response (orjson, the compact encoding, CSV), which
                # FastAPI sends as it is: the answer model documents the 200 and is never run.
                response_model=route.answer,
                response_class=JSONResponse if route.answer else Response,
                response_description=route.response_description,
                responses={**({} if route.answer else {200: {"content": {route.media_type: {}}}}),
                           **{status: {"description": text, "model": body} for status, text, body in route.errors}},
            )
            # The error handlers name a refused field with its model's words (app/web/errors.py).
            route.endpoint.validated_by = route.models  # type: ignore[attr-defined]  # read by the error handlers
    return router


def validating_models(app: Any) -> dict[str, list[type[BaseModel]]]:
    """Path → the models that validate its operation (for a path with two methods, the last added),
    read from the app's routes: the benchmarks and the limit tests build requests from them."""
    found: dict[str, list[type[BaseModel]]] = {}

    def walk(routes: list[Any]) -> None:
        for route in routes:
            included = getattr(route, "original_router", None)  # an included router (no prefix here)
            if included is not None:
                walk(included.routes)
            elif models := getattr(getattr(route, "endpoint", None), "validated_by", None):
                found[route.path] = list(models)

    walk(app.routes)
    return found


def _twin(view: View) -> Route:
    model = view.params

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]  # one endpoint per view's model
        # The body depends on Accept: plain JSON, or the pages' compact encoding (app/web/responses.py).
        if wants_compact(request):
            key, make, media_type, kind = ("compact", view.name, params), lambda: dumps_compact(view.compute(params)), COMPACT_MEDIA_TYPE, "compact"
        else:
            key, make, media_type, kind = json_key(view.name, params), lambda: dumps(view.compute(params)), JSON_MEDIA_TYPE, "json"
        return cached_response(request, key, make, media_type, kind, cache_control=API_CACHE_CONTROL, vary="Accept, Accept-Encoding")

    description = view.api_description or view.summary
    if view.examples:
        description += "\n\nExamples:\n\n" + "\n".join(f"- `{view.api_path}?{example}`" for example in view.examples)
    return Route(view.api_path, endpoint, view.answer, view.title, description, "The data the page plots.", models=(model,), name=f"api_{view.name}",
                 errors=view.errors)


def _csv(view: View, table: Callable[[dict[str, Any]], CsvTable]) -> Route:
    """The CSV export of ``view`` (its ``csv``, given when it has one)."""
    model = view.params

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]  # one endpoint per view's model
        make = lambda: csv_bytes(*table(view.compute(params)))
        return cached_response(request, ("csv", view.name, params), make, CSV_MEDIA_TYPE, "csv", cache_control=API_CACHE_CONTROL)

    description = (
        f"The data of `{view.api_path}` as CSV, with the same parameters.  Exports over "
        f"{GZIP_MAX_BYTES // (1024 * 1024)} MiB are sent without gzip (compressing them would cost more than the request)."
    )
    return Route(view.api_path + ".csv", endpoint, None, f"{view.title} (CSV)", description, "The plotted data as a table.",
                 models=(model,), name=f"csv_{view.name}", media_type="text/csv", errors=view.errors)


def api_operation(
    path: str,
    model: type[BaseModel],
    build: Callable[[Any], Any],
    *,
    answer: type[BaseModel],
    name: str,
    summary: str,
    description: str,
    response_description: str,
) -> Route:
    """An API-only ``GET path`` answered like the JSON twins, for ``View.routes``.

    The query is validated by ``model`` (422s name the field); the body is ``dumps(build(params))``,
    made once per distinct parameters and kept in the response cache, with an ETag, Cache-Control
    and 304 on revalidation.
    """

    def endpoint(request: Request, params: Annotated[model, Query()]) -> Response:  # type: ignore[valid-type]  # one endpoint per view's model
        make = lambda: dumps(build(params))
        return cached_response(request, ("operation", path, params), make, JSON_MEDIA_TYPE, "json", cache_control=API_CACHE_CONTROL)

    return Route(path, endpoint, answer, summary, description, response_description, models=(model,), name=name)


def page_router(views: list[View]) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    for view in views:
        _add_page_route(router, view)
    return router


def _add_page_route(router: APIRouter, view: View) -> None:
    def endpoint(request: Request) -> Response:
        return render_view(request, view)

    router.add_api_route(f"/{view.name}", endpoint, methods=["GET"], name=f"page_{view.name}")


# A page embeds its data for the first paint up to this size.  Above it (a 512 × 512 table is ~5 MB
# of JSON text, ~150 ms to gzip) the page fetches the compact twin instead, so its HTML stays small.
EMBED_MAX_BYTES = 256 * 1024


def render_view(request: Request, view: View) -> Response:
    """The lesson page.  Invalid values are shown beside their controls (422, the defaults drawn);
    a valid page is a pure function of its canonical URL, kept and revalidated like the twins."""
    items = request.query_params.multi_items()
    too_many = len(items) > MAX_QUERY_ITEMS  # refused whole, as the API does (app/web/security.py)
    if too_many:
        items = []
    compute_fields, display_fields = view.params.model_fields, view.display.model_fields
    unknown = list(dict.fromkeys(name for name, _ in items if name not in compute_fields and name not in display_fields))
    params, compute_errors = read_query_or_defaults(view.params, [(n, v) for n, v in items if n in compute_fields])
    display, display_errors = read_query_or_defaults(view.display, [(n, v) for n, v in items if n in display_fields])
    problems = errors.describe_errors(compute_errors, [view.params]) + errors.describe_errors(display_errors, [view.display])
    problems = errors.capped(problems + errors.unknown_parameters(unknown))
    if too_many:
        problems = [errors.error_item("too_many_parameters", ["query"], "", f"Too many query parameters ({len(items)}, at most {MAX_QUERY_ITEMS}); all were ignored.")]

    compute_query = canonical_items(params, view.params)
    page_query = compute_query + canonical_items(display, view.display)
    page_url = f"/{view.name}" + ("?" + urlencode(page_query) if page_query else "")
    api_url = view.api_path + ("?" + urlencode(compute_query) if compute_query else "")
    embed = getattr(display, "embed", False)
    headers = {"Link": f'<{api_url}>; rel="alternate"; type="application/json"', **PAGE_HEADERS}
    if embed:
        # Embed mode exists to be framed by course pages on other sites.
        headers["Content-Security-Policy"] = content_security_policy(frame_ancestors="*")

    def html() -> bytes:
        by_field = {item["param"]: item["msg"] + (f" (allowed: {item['allowed']})" if item.get("allowed") else "") for item in problems}
        body = b"null" if pending else json_body(view, params)
        boot = {
            "name": view.name,
            "api": view.api_path,
            "fields": field_specs(view.params, "compute") + field_specs(view.display, "display"),
            "rules": rule_specs(view.params) + rule_specs(view.display),
            "state": {**params.model_dump(mode="json"), **display.model_dump(mode="json")},
            "errors": problems,
        }
        full_query = [(name, value) for name, value in page_query if name != "embed"]
        context = {
            **view.template_context,
            "view": view,
            "nav": ordered(),
            "controls": controls_for(view.params, params, by_field, "compute"),
            "display_controls": controls_for(view.display, display, by_field, "display"),
            "general_errors": [item for item in problems if item["param"] not in _drawn(view) or item["param"] in unknown],
            "formulas": [mathml(latex) for latex in view.formulas],
            "boot_json": embed_json(boot, data=body if len(body) <= EMBED_MAX_BYTES else b"null"),
            "api_url": api_url,
            "page_url": page_url,
            "full_url": f"/{view.name}" + ("?" + urlencode(full_query) if full_query else ""),
            "embed": embed,
            "presenter": getattr(display, "presenter", False),
        }
        # Starlette types a body bytes | memoryview; a rendered template's is bytes (bytes() returns it as is)
        return bytes(templates.TemplateResponse(request, f"pages/{view.name}.html", context).body)

    # A view whose answer takes seconds for these parameters (View.pending): the page goes out at once
    # without its data, and is not kept (once the answer exists, the page carries it).
    pending = view.pending is not None and view.pending(params)
    if problems:
        return Response(html(), status_code=422, media_type="text/html", headers=headers)
    if pending:
        return Response(html(), media_type="text/html", headers={**headers, "Cache-Control": "no-store"})
    # Revalidated on every visit (no-cache: a new release must show at once), 304 when nothing changed.
    return cached_response(request, ("page", page_url), html, "text/html", "page", cache_control="no-cache", headers=headers)


def _drawn(view: View) -> set[str]:
    from app.web.params import UI

    drawn = set()
    for model in (view.params, view.display):
        for name, field in model.model_fields.items():
            if any(isinstance(item, UI) and item.kind != "hidden" for item in field.metadata):
                drawn.add(name)
    return drawn

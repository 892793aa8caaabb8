"""Application factory: routes from the view registry, static files, plotly.js, errors, headers."""

from __future__ import annotations

import gzip
import importlib
import pkgutil

from fastapi import FastAPI
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES, GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from app import __version__
from app.settings import GZIP_LEVEL, PLOTLY_JS, STATIC_DIR
from app.web import errors
from app.web.apidocs import operations
from app.web.params import per_process
from app.web.responses import COMPACT_MEDIA_TYPE
from app.web.routing import api_router, page_router
from app.web.access_log import AccessLogMiddleware
from app.web.security import SecurityMiddleware
from app.web.templating import templates
from app.web.views import discover, ordered

PLOTLY_PATH = "/vendor/plotly.min.js"


@per_process
def _plotly_bytes() -> tuple[bytes, bytes, str]:
    raw = PLOTLY_JS.read_bytes()
    return raw, gzip.compress(raw, 6), f'"plotly-{PLOTLY_JS.stat().st_mtime_ns:x}-{len(raw)}"'


def create_app() -> FastAPI:
    views = discover()
    app = FastAPI(
        title="Positional Encoding Explorer",
        version=__version__,
        description=(
            "JSON API of the Positional Encoding Explorer.  Every page of the explorer has a JSON twin here "
            "taking the same query parameters; every GET response is a pure function of its URL."
        ),
        docs_url=None,
        redoc_url=None,
    )
    # Compact twin bodies are gzipped by their route when small, and sent as they are when large (app/web/routing.py),
    # and CSV exports are gzipped (or not, when too large) by their route (app/web/routing.py):
    # the middleware leaves them alone.
    app.add_middleware(
        GZipMiddleware,
        minimum_size=1024,
        compresslevel=GZIP_LEVEL,
        exclude_content_types=(*DEFAULT_EXCLUDED_CONTENT_TYPES, COMPACT_MEDIA_TYPE, "text/csv"),
    )
    app.add_middleware(SecurityMiddleware)
    app.add_middleware(AccessLogMiddleware)  # outermost: times the whole response
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")

    app.include_router(api_router(views))
    for module in pkgutil.iter_modules(importlib.import_module("app.views").__path__):
        router = getattr(importlib.import_module(f"app.views.{module.name}"), "router", None)
        if router is not None:
            app.include_router(router)
    app.include_router(page_router(views))

    def render_error_page(request: Request, status: int, message: str) -> Response:
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "message": message, "nav": ordered()}, status_code=status
        )

    errors.install(app, render_error_page)

    @app.get("/", include_in_schema=False)
    def home(request: Request) -> HTMLResponse:
        return templates.TemplateResponse(request, "home.html", {"nav": ordered()})

    @app.get("/docs", include_in_schema=False)
    def api_docs(request: Request) -> HTMLResponse:
        return templates.TemplateResponse(request, "docs.html", {"nav": ordered(), "operations": operations(app.openapi())})

    @app.get("/healthz", tags=["Service"], summary="Liveness check")
    def healthz() -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__})

    @app.get(PLOTLY_PATH, include_in_schema=False)
    def plotly_js(request: Request) -> Response:
        raw, compressed, etag = _plotly_bytes()
        headers = {"ETag": etag, "Cache-Control": "public, max-age=86400", "Vary": "Accept-Encoding"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(compressed, media_type="text/javascript", headers=headers)
        return Response(raw, media_type="text/javascript", headers=headers)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> RedirectResponse:
        return RedirectResponse("/static/favicon.svg", status_code=301)

    return app

"""Application factory: routes from the view registry, static files, plotly.js, errors, headers."""

from __future__ import annotations

import mimetypes
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from app import __version__
from app.lectures import pages as lecture_pages
from app.settings import PLOTLY_JS, STATIC_DIR, THREADS_PER_WORKER
from app.web import errors
from app.web.access_log import AccessLogMiddleware
from app.web.answers import Answer, doc
from app.web.apidocs import openapi_document, operations
from app.web.caching import cached_response, choose, gzipped, identity, respond
from app.web.params import per_process
from app.web.responses import dumps
from app.web.routing import api_router, page_router
from app.web.security import PAGE_HEADERS, SPECULATION_RULES, SPECULATION_RULES_PATH, SecurityMiddleware
from app.web.templating import static_version, templates
from app.web.views import discover, ordered

PLOTLY_PATH = "/vendor/plotly.min.js"
# /static/… is revalidated on every use (no-cache; 304 when unchanged).  Pages load their CSS and
# scripts from /s/<version>/… instead (templating.asset): the version is in the path, so a module's
# relative imports carry it too, and those files are cached for a year without a revalidation
# round trip per module on every lesson opened.
STATIC_CACHE_CONTROL = "no-cache"
VERSIONED_CACHE_CONTROL = "public, max-age=31536000, immutable"


class ApiCors:
    """CORS under /api only: a notebook or page on another origin may GET (and HEAD) the JSON twins,
    and POST a JSON body to the operations that take one (``post_paths``: a model's config.json to
    /api/rope/frequencies, vectors to /api/rope/rotate), without credentials; a preflight is answered
    (for POST: with ``Content-Type: application/json``).  Pages stay same-origin (no CORS header)."""

    def __init__(self, app, post_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.post_paths = post_paths

        def cors(allow_methods: list[str], allow_headers: list[str]) -> CORSMiddleware:
            return CORSMiddleware(
                app, allow_methods=allow_methods, allow_headers=allow_headers,
                allow_origins=["*"], allow_credentials=False, expose_headers=["ETag"], max_age=3600,
            )

        self.cors = cors(["GET", "HEAD"], ["Accept", "If-None-Match"])
        self.cors_post = cors(["GET", "HEAD", "POST"], ["Accept", "If-None-Match", "Content-Type"])

    async def __call__(self, scope, receive, send) -> None:
        api = scope["type"] == "http" and (scope["path"] == "/api" or scope["path"].startswith("/api/"))
        if not api:
            await self.app(scope, receive, send)
        else:
            await (self.cors_post if scope["path"] in self.post_paths else self.cors)(scope, receive, send)


class Health(Answer):
    """The app answers, and which version it is."""

    status: str = doc("'ok'.")
    version: str = doc("The app's version.")


class Static(StaticFiles):
    """Static files through the same cache and conditional GET as everything else: gzip made once
    per file version, with an ETag per encoding (Starlette's own gives both encodings one ETag)."""

    def file_response(self, full_path, stat_result, scope, status_code=200) -> Response:
        request = Request(scope)
        media_type = mimetypes.guess_type(str(full_path))[0] or "application/octet-stream"
        key = ("static", str(full_path), stat_result.st_mtime_ns, stat_result.st_size)
        # Under /s/<version>/, the current version is immutable; an older one (a page from before a
        # release) gets today's file, revalidated.
        current = scope.get("path_params", {}).get("version") == static_version()
        return cached_response(
            request, key, Path(full_path).read_bytes, media_type, "static",
            cache_control=VERSIONED_CACHE_CONTROL if current else STATIC_CACHE_CONTROL,
        )


@per_process
def _plotly() -> tuple:
    """plotly.js (4.6 MB) and its gzip, made once per process and kept outside the response cache."""
    raw = identity(PLOTLY_JS.read_bytes(), "text/javascript", "plotly")
    return raw, gzipped(raw, level=6)  # once per process, so the smaller level-6 file (1.4 MB)


@asynccontextmanager
async def lifespan(app: FastAPI):
    # Requests are CPU-bound numpy on one core per worker: more threads than a few only let more
    # requests hold their working memory at once (40 by default, up to ~50 MB each at the largest sizes).
    anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS_PER_WORKER
    # The OpenAPI document before this worker takes traffic, so /docs and /openapi.json answer a
    # first reader at once.
    operations(app.openapi())
    yield


def create_app() -> FastAPI:
    views = discover()
    app = FastAPI(
        title="Positional Encoding Explorer",
        version=__version__,
        description=(
            "JSON API of the Positional Encoding Explorer.  Every page of the explorer has a JSON twin here "
            "taking the same query parameters; every GET response is a pure function of its URL.  A list "
            "parameter is given by repeating its name (`pairs=0&pairs=63`)."
        ),
        docs_url=None,
        redoc_url=None,
        openapi_url=None,  # served below, cached and revalidated like every other GET
        lifespan=lifespan,
    )
    # No compression middleware: each route decides once whether its body is worth gzip (app/web/caching.py).
    # Inside the edge: its preflight answers carry the security headers too.  The operations taking a POST body
    # are read from the views, so a new one is open to other origins the same way.
    post_paths = frozenset(op.path for view in views for op in view.routes if "POST" in op.methods)
    app.add_middleware(ApiCors, post_paths=post_paths)
    app.add_middleware(SecurityMiddleware)
    app.add_middleware(AccessLogMiddleware)  # outermost: times the whole response
    app.mount("/static", Static(directory=str(STATIC_DIR)), name="static")
    app.mount("/s/{version}", Static(directory=str(STATIC_DIR)), name="assets")

    app.include_router(api_router(views))  # every twin, CSV export and View.routes operation
    app.include_router(lecture_pages.checked_router())  # /lectures, /lecture/<name>, their twins (before the catch-all pages)
    app.include_router(page_router(views))
    app.openapi = lambda: openapi_document(app)  # type: ignore[method-assign]  # FastAPI documents overriding app.openapi this way

    def render_error_page(request: Request, status: int, message: str) -> Response:
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "message": message, "nav": ordered()}, status_code=status
        )

    errors.install(app, render_error_page)

    def page(request: Request, template: str, **context) -> bytes:
        return bytes(templates.TemplateResponse(request, template, {"nav": ordered(), **context}).body)  # bytes as is (typed bytes | memoryview)

    @app.get("/", include_in_schema=False)
    def home(request: Request) -> Response:
        presenter = request.query_params.get("presenter") == "true"
        make = lambda: page(request, "home.html", presenter=presenter)
        return cached_response(request, ("home", presenter), make, "text/html", "page", cache_control="no-cache", headers=PAGE_HEADERS)

    @app.get(SPECULATION_RULES_PATH, include_in_schema=False)
    def speculation_rules() -> Response:
        return Response(dumps(SPECULATION_RULES), media_type="application/speculationrules+json", headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/docs", include_in_schema=False)
    def api_docs(request: Request) -> Response:
        make = lambda: page(request, "docs.html", operations=operations(app.openapi()))
        return cached_response(request, ("docs",), make, "text/html", "page", cache_control="no-cache")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_json(request: Request) -> Response:
        return cached_response(request, ("openapi",), lambda: dumps(app.openapi()), "application/json", "json", cache_control="no-cache")

    @app.get("/healthz", tags=["Service"], summary="Liveness check", response_model=Health,
             response_description="The app is up.")
    def healthz() -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__})

    @app.get(PLOTLY_PATH, include_in_schema=False)
    def plotly_js(request: Request) -> Response:
        return respond(request, choose(request, *_plotly()), cache_control="public, max-age=86400")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> RedirectResponse:
        return RedirectResponse("/static/favicon.svg", status_code=301)

    return app

"""The HTTP edge of the app, as one pure ASGI middleware (no per-request task, no body buffering).

- Security headers on every response (:data:`DEFAULT_HEADERS`; a response that sets one keeps its
  own).  The Content-Security-Policy allows scripts, styles, images and connections only from this
  origin; page data travels in ``<script type="application/json">`` blocks, so no inline script is
  needed.  Framing is refused except for embed-mode pages, which set their own ``frame-ancestors``.
- Request-size limits: bodies above ``MAX_BODY_BYTES`` (413) and queries of more than
  ``MAX_QUERY_ITEMS`` items (422) are refused before anything parses them.
- Bodies the app cannot read are refused with 415 before anything parses them: a compressed body
  (``Content-Encoding`` other than identity) and a body sent without a ``Content-Type``.
- HEAD is answered as GET without the body, on every GET route (FastAPI routes only take the
  methods they list, and ``curl -I`` must work).
- Redirects stay on this site: a ``Location`` built from the request's Host header (Starlette's
  trailing-slash redirect) is sent as a path, so ``Host: evil.example`` cannot steer it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import MAX_BODY_BYTES, MAX_QUERY_ITEMS


def content_security_policy(frame_ancestors: str = "'none'") -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            # plotly.js inserts a <style> element and sets style attributes with setAttribute at run
            # time, both blocked without 'unsafe-inline' (tests/browser/test_security.py checks it
            # still is); styles cannot execute code, and scripts stay 'self' only.
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        ]
    )


# Added to every response that does not set the header itself.  A new site-wide header is one line here.
DEFAULT_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", content_security_policy().encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


# Lessons link to lessons: Chromium may prerender the one a reader's pointer rests on (eagerness
# "moderate": about 200 ms of hover, or a press), so it opens at once, plotly.js already running.
# Sent as a header pointing at a rules file: the CSP forbids inline scripts, speculation rules included.
SPECULATION_RULES_PATH = "/speculation-rules.json"
SPECULATION_RULES = {
    "prerender": [
        {
            "where": {"and": [{"href_matches": "/*"}, {"not": {"href_matches": "/api/*"}}, {"not": {"href_matches": "/static/*"}}]},
            "eagerness": "moderate",
        }
    ]
}
PAGE_HEADERS = {"Speculation-Rules": f'"{SPECULATION_RULES_PATH}"'}


def with_default_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    present = {name.lower() for name, _ in headers}
    # A page that sets its own CSP (embed mode) decides about framing with frame-ancestors.
    skip = present | ({b"x-frame-options"} if b"content-security-policy" in present else set())
    return headers + [(name, value) for name, value in DEFAULT_HEADERS if name not in skip]


def local_location(value: bytes) -> bytes:
    """An absolute redirect target as a path on this site (``//x`` would leave it: one slash kept)."""
    if not value.startswith((b"http://", b"https://")):
        return value
    parts = urlsplit(value.decode("latin-1"))
    path = "/" + parts.path.lstrip("/")
    return (path + ("?" + parts.query if parts.query else "")).encode("latin-1")


class SecurityMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        declared = _content_length(scope)
        if declared is not None and declared > MAX_BODY_BYTES:
            await _refuse(send, 413, "too_large", "body", "Request body too large", f"at most {MAX_BODY_BYTES} bytes")
            return
        items = scope.get("query_string", b"").count(b"&") + 1
        if items > MAX_QUERY_ITEMS and scope["path"].startswith("/api"):
            message = f"Too many query parameters ({items})"
            await _refuse(send, 422, "too_many_parameters", "query", message, f"at most {MAX_QUERY_ITEMS} query items")
            return

        refusal = _unreadable_body(scope)
        if refusal is not None:
            await _refuse(send, 415, "unsupported_media_type", *refusal)
            return

        head = scope["method"] == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}  # a copy: the server still knows it is answering HEAD

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise BodyTooLarge
            return message

        async def edge_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, local_location(value) if name.lower() == b"location" else value)
                    for name, value in message.get("headers", [])
                ]
                message = {**message, "headers": with_default_headers(headers)}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        try:
            await self.app(scope, limited_receive, edge_send)
        except BodyTooLarge:
            await _refuse(send, 413, "too_large", "body", "Request body too large", f"at most {MAX_BODY_BYTES} bytes")


class BodyTooLarge(Exception):
    pass


def _unreadable_body(scope: Scope) -> tuple[str, str, str] | None:
    """(param, message, allowed) for a request body the app cannot read, else None."""
    headers = dict(scope.get("headers", []))
    encoding = headers.get(b"content-encoding", b"").strip().lower()
    if encoding and encoding != b"identity":
        shown = encoding.decode("latin-1")[:40]
        return "content-encoding", f"A {shown!r}-encoded body cannot be read here", "an uncompressed body (no Content-Encoding)"
    has_body = (_content_length(scope) or 0) > 0 or b"transfer-encoding" in headers
    if has_body and b"content-type" not in headers and scope["method"] in ("POST", "PUT", "PATCH"):
        return "content-type", "The body has no Content-Type header", "Content-Type: application/json with a JSON body"
    return None


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def error_body(kind: str, param: str, msg: str, allowed: str) -> bytes:
    """The 4xx JSON of app/web/errors.py, for answers made before the app runs."""
    from app.web import errors

    return errors.error_body(errors.error_item(kind, [param], param, msg, allowed))


async def _refuse(send: Send, status: int, kind: str, param: str, msg: str, allowed: str) -> None:
    body = error_body(kind, param, msg, allowed)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": with_default_headers(headers)})
    await send({"type": "http.response.body", "body": body})

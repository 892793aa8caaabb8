"""Security headers and request-size limits, as a pure ASGI middleware (no per-request task).

The Content-Security-Policy allows scripts, styles, images and connections only from this
origin; page data travels in ``<script type="application/json">`` blocks, so no inline
script is needed.  Framing is refused except for embed-mode pages, which set their own
``frame-ancestors`` before this middleware fills in the defaults.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import MAX_BODY_BYTES


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


DEFAULT_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", content_security_policy().encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


class SecurityMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        declared = _content_length(scope)
        if declared is not None and declared > MAX_BODY_BYTES:
            await _too_large(send)
            return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise BodyTooLarge
            return message

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                skip_frame_options = b"content-security-policy" in present
                for name, value in DEFAULT_HEADERS:
                    if name in present or (name == b"x-frame-options" and skip_frame_options):
                        continue
                    headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except BodyTooLarge:
            await _too_large(send)


class BodyTooLarge(Exception):
    pass


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _too_large(send: Send) -> None:
    body = b'{"detail":[{"type":"too_large","loc":["body"],"param":"body","msg":"Request body too large","allowed":"at most %d bytes"}]}' % MAX_BODY_BYTES
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            + DEFAULT_HEADERS,
        }
    )
    await send({"type": "http.response.body", "body": body})

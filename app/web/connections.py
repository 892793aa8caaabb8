"""The HTTP connection protocol the server runs (``uvicorn --http``): uvicorn's httptools protocol
with a deadline for reading each request and a bound on the size of its head.

uvicorn closes a connection that stays idle *after* a response (``timeout_keep_alive``), but has
no deadline for a request that never arrives: a connection opened and left silent, or one that
sends half a request line and waits, is kept for ever (slowloris: a few hundred of them exhaust
the server's file descriptors on a school network).  Here each request, from the connection's
start or its first byte until its body is complete, must arrive within ``request_timeout``
seconds (:data:`app.settings.REQUEST_TIMEOUT_SECONDS`); else the connection is closed, with a
408 if part of a request came.  A request line and headers over :data:`MAX_HEAD_BYTES` get a
414/431, and any request the parser refuses a 400, in the app's JSON error shape and with its
security headers (uvicorn's own is plain text without them).

Used by ``app/__main__.py``; uvicorn's ``auto`` would pick the same httptools protocol without these.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import REQUEST_TIMEOUT_SECONDS
from app.web.security import error_body, with_default_headers

# The largest valid request line is ~35 KB (two LongRoPE lists of 512 values); browsers send a few KB of headers.
MAX_HEAD_BYTES = 64 * 1024
LINGER_SECONDS = 2.0
_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 414: b"URI Too Long", 431: b"Request Header Fields Too Large"}


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    request_timeout: float = REQUEST_TIMEOUT_SECONDS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._reading_head = True
        self._head_bytes = 0
        self._began = False
        self._discarding = False
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        if self._deadline is None:  # the first bytes of the next request on a kept-alive connection
            self._arm()
        if self._reading_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._reading_head and not self.transport.is_closing() and self._head_bytes > MAX_HEAD_BYTES:
            self._too_large()

    def _too_large(self) -> None:
        too_long_url = 2 * len(getattr(self, "url", b"")) >= self._head_bytes
        self._refuse(414 if too_long_url else 431, "request", f"at most {MAX_HEAD_BYTES} bytes of request line and headers")

    def on_message_begin(self) -> None:
        self._began = True
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        if len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers) > MAX_HEAD_BYTES:
            raise HeadTooLarge  # httptools turns it into an HttpParserError: send_400_response below
        super().on_headers_complete()
        self._reading_head = False

    def on_message_complete(self) -> None:
        self._disarm()  # the whole request is in: from here on it is the app's time, not the client's
        self._reading_head, self._head_bytes, self._began = True, 0, False
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        if self._reading_head and self._head_bytes > MAX_HEAD_BYTES:
            self._too_large()  # httptools' own limit on a request head comes a little above ours
        else:
            self._refuse(400, "request", "an HTTP/1.1 request", "The request could not be parsed")

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._began or self._head_bytes:
            self._refuse(408, "request", f"a whole request within {self.request_timeout:g} s", linger=False)
        else:
            self.transport.close()  # nothing was asked: nothing to answer

    def _refuse(self, status: int, param: str, allowed: str, msg: str | None = None, linger: bool = True) -> None:
        self._disarm()
        if self.transport.is_closing():
            return
        body = error_body(f"http_{status}", param, msg or _REASONS[status].decode(), allowed)
        headers = with_default_headers(
            [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
        )
        head = b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status]) + b"".join(name + b": " + value + b"\r\n" for name, value in headers)
        self.transport.write(head + b"\r\n" + body)
        if linger and self.transport.can_write_eof():
            # A client refused mid-send is still sending: closing now would reset the connection before
            # it reads the answer.  Send the answer and FIN, drop what still comes, close a moment later.
            self.transport.write_eof()
            self._discarding = True
            self.loop.call_later(LINGER_SECONDS, self.transport.close)
        else:
            self.transport.close()


class HeadTooLarge(Exception):
    pass

"""The HTTP connection protocol the server runs (``uvicorn --http``): uvicorn's httptools protocol
with a deadline for reading each request and a bound on the size of its head.

uvicorn closes a connection that stays idle *after* a response (``timeout_keep_alive``), but has
no deadline for a request that never arrives: a connection opened and left silent, or one that
sends half a request line and waits, is kept for ever (slowloris: a few hundred of them exhaust
the server's file descriptors on a school network).  Here each request, from the connection's
start or its first byte until its body is complete, must arrive within ``request_timeout``
seconds (:attr:`app.settings.Settings.request_timeout`); else the connection is closed, with a
408 if part of a request came.  A request line and headers over :data:`MAX_HEAD_BYTES` get a
414/431 (an over-long request line is a 414 naming the query parameter that takes most of it),
and any request the parser refuses a 400, in the app's JSON error shape and with its security
headers (uvicorn's own is plain text without them); each bad request is refused once.

Two more ends that uvicorn leaves open:

* A response the client does not read: once the transport's buffer is full (the client stopped
  reading), the client has ``request_timeout`` seconds to take more of it; else the response is
  abandoned and the connection reset (60 readers that never read plotly.js no longer hold 60
  sockets and 60 copies of their unsent bytes).
* Every connection the server gives up on (a response not read, a request that never completes,
  a refused request once its answer had its moment) ends with an RST (SO_LINGER 0), as nginx's
  ``reset_timedout_connection`` does: an ordinary close leaves the kernel holding the socket in
  FIN-WAIT-1 behind the bytes the client never took (20 stalled readers of plotly.js held 77 MB).
* Graceful shutdown (SIGTERM): uvicorn closes every connection that is between requests, even one
  whose next request has already arrived, unread, so a client that reused a kept-alive connection
  loses it.  Here a request that has arrived, wholly or in part, is read and answered before the
  connection closes; a connection with nothing received is closed at once, before any request is
  read, which a client may safely retry; pipelined requests already received are all answered.

Used by ``app/__main__.py``; uvicorn's ``auto`` would pick the same httptools protocol without these.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import termios
from urllib.parse import unquote_to_bytes

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app import settings
from app.web.security import error_body, with_default_headers

# The largest valid request line is ~35 KB (two LongRoPE lists of 512 values); browsers send a few KB of headers.
MAX_HEAD_BYTES = 64 * 1024
LINGER_SECONDS = 2.0
# On shutdown, how long a connection between requests waits for a next one before it is closed.
DRAIN_GRACE_SECONDS = 0.25
_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 414: b"URI Too Long", 431: b"Request Header Fields Too Large"}


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    request_timeout: float = settings.current().request_timeout

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # narrowed to a Transport as uvicorn's own connection_made is
        self._deadline: asyncio.TimerHandle | None = None
        self._reading_head = True
        self._head_bytes = 0
        self._began = False
        self._discarding = False
        self._refused = False
        self._draining = False
        self._line = bytearray()  # the request line while it is being read (to name an over-long parameter)
        self._line_done = False
        self._stalled: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._unstall()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._discarding or self._refused:
            return
        if self._deadline is None:  # the first bytes of the next request on a kept-alive connection
            self._arm()
        if self._reading_head:
            self._head_bytes += len(data)
            if not self._line_done:
                end = data.find(b"\n")
                self._line_done = end >= 0
                if len(self._line) <= MAX_HEAD_BYTES:
                    self._line += data if end < 0 else data[:end]
        super().data_received(data)
        if self._reading_head and not self._refused and not self.transport.is_closing() and self._head_bytes > MAX_HEAD_BYTES:
            self._too_large()

    def _too_large(self) -> None:
        if not self._line_done or len(self._line) > MAX_HEAD_BYTES // 2:
            name, size = longest_parameter(bytes(self._line))
            allowed = f"at most {MAX_HEAD_BYTES} bytes of request line"
            if name is not None:
                allowed += f"; {name} takes {size} of them (a list this long does not fit in a URL: fewer values)"
            self._refuse(414, name or "request", allowed)
        else:
            self._refuse(431, "request", f"at most {MAX_HEAD_BYTES} bytes of request line and headers")

    # ---- a response the client does not read ----

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.request_timeout, self._abandon)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._unstall()

    def _unstall(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def _abandon(self) -> None:
        self._stalled = None
        self._reset()  # close() would wait for the unread bytes to drain: for ever

    def _reset(self) -> None:
        """Drop the connection with an RST: SO_LINGER 0, then close, so the kernel frees the unsent
        bytes at once instead of retrying them from FIN-WAIT-1 (abort() alone is an ordinary close)."""
        if self.transport.is_closing():
            return
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # already gone
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    # ---- graceful shutdown ----

    def shutdown(self) -> None:
        self._draining = True
        if self.cycle is None or self.cycle.response_complete:
            self._close_when_quiet()
        elif self.pipeline:
            self.pipeline[0][0].keep_alive = False  # the newest received: the others are answered first
        elif not self.cycle.response_started:
            self.cycle.keep_alive = False  # its answer says "Connection: close"
        # else the answer is on its way without "Connection: close": on_response_complete decides

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._draining and not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._close_when_quiet()

    def _idle(self) -> bool:
        """Nothing of a next request received, read or unread."""
        return (self.cycle is None or self.cycle.response_complete) and not (self._began or self._head_bytes or self._bytes_waiting())

    def _close_when_quiet(self) -> None:
        """Close a connection of a server shutting down once no request is on its way: one that
        arrives within DRAIN_GRACE_SECONDS (a client reusing the connection it just got an answer
        on) is answered with "Connection: close" (on_headers_complete) and the connection closed after."""
        if self._idle():
            self.loop.call_later(DRAIN_GRACE_SECONDS, self._close_if_idle)

    def _close_if_idle(self) -> None:
        if not self.transport.is_closing() and self._idle():
            self.transport.close()  # nothing unread: the client sees a clean end, before any request was read

    def _bytes_waiting(self) -> bool:
        sock = self.transport.get_extra_info("socket")
        if sock is None:
            return False
        try:
            return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0] > 0
        except OSError:
            return False

    def on_message_begin(self) -> None:
        self._began = True
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        if len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers) > MAX_HEAD_BYTES:
            raise HeadTooLarge  # httptools turns it into an HttpParserError: send_400_response below
        super().on_headers_complete()
        self._reading_head = False
        self._line, self._line_done = bytearray(), False
        if self._draining:
            self.cycle.keep_alive = False  # the last request on this connection: the server is shutting down

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
            self._refuse(408, "request", f"a whole request within {self.request_timeout:g} s")
        else:
            self.transport.close()  # nothing was asked: nothing to answer

    def _refuse(self, status: int, param: str, allowed: str, msg: str | None = None) -> None:
        self._disarm()
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        body = error_body(f"http_{status}", param, msg or _REASONS[status].decode(), allowed)
        headers = with_default_headers(
            [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
        )
        head = b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status]) + b"".join(name + b": " + value + b"\r\n" for name, value in headers)
        self.transport.write(head + b"\r\n" + body)
        if self.transport.can_write_eof():
            # A client refused mid-send is still sending: closing now would reset the connection before
            # it reads the answer.  Send the answer and FIN, drop what still comes, and reset a moment
            # later: a client that has not taken its answer by then is not reading.
            self.transport.write_eof()
            self._discarding = True
            self.loop.call_later(LINGER_SECONDS, self._reset)
        else:
            self.transport.close()


class HeadTooLarge(Exception):
    pass


def longest_parameter(line: bytes) -> tuple[str | None, int]:
    """The query parameter taking the most bytes of a request line (its values added up), if any."""
    target = line.split(b" ", 2)[1] if line.count(b" ") else line
    _, _, query = target.partition(b"?")
    sizes: dict[bytes, int] = {}
    for item in query.split(b"&"):
        name = item.split(b"=", 1)[0]
        if name:
            sizes[name] = sizes.get(name, 0) + len(item) + 1
    if not sizes:
        return None, 0
    name = max(sizes, key=sizes.__getitem__)
    text = unquote_to_bytes(name[:64]).decode("utf-8", "replace")
    printable = "".join(ch for ch in text if ch.isprintable())
    return (printable or None), sizes[name]

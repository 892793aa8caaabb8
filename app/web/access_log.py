"""Access log off the hot path: one line per request with method, path, status and duration.

A pure ASGI middleware (no per-request task, no body buffering) notes the status when the
response starts and, once the response is sent, hands a ``LogRecord`` to a ``QueueHandler``.  A
``QueueListener`` thread formats it and writes it to stderr, so a slow terminal or log collector
never delays a request.  The queue is bounded: when it is full, records are dropped (and
counted in ``dropped``) rather than blocking or growing memory.

The level follows the server's ``--log-level`` (uvicorn configures ``uvicorn.error`` in every
worker before the app is built): requests are logged at ``info``, so ``--log-level warning``
turns the access log off.  uvicorn's own access log is disabled in ``app/__main__.py`` to avoid
logging every request twice.
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import queue
import sys
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOGGER_NAME = "app.access"
QUEUE_SIZE = 10_000
FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

log = logging.getLogger(LOGGER_NAME)
dropped = 0
_listener: logging.handlers.QueueListener | None = None


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when the record is emitted."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


class _DroppingQueueHandler(logging.handlers.QueueHandler):
    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        # Formatting happens in the listener thread; the record stays in this process.
        return record

    def enqueue(self, record: logging.LogRecord) -> None:
        global dropped
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            dropped += 1


def install(level: int | None = None) -> None:
    """Attach the queue handler and start the listener thread (once per process)."""
    global _listener
    if _listener is not None:
        return
    records: queue.Queue = queue.Queue(QUEUE_SIZE)
    output = _StderrHandler()
    output.setFormatter(logging.Formatter(FORMAT))
    _listener = logging.handlers.QueueListener(records, output, respect_handler_level=False)
    log.addHandler(_DroppingQueueHandler(records))
    log.propagate = False
    if level is None:
        level = logging.getLogger("uvicorn.error").getEffectiveLevel()
    log.setLevel(level)
    _listener.start()
    atexit.register(stop)


def stop() -> None:
    """Write out what is queued and end the listener thread."""
    global _listener
    if _listener is not None:
        _listener.stop()
        _listener = None


class AccessLogMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        install()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            # status 0: the connection closed or the app failed before a response started.
            log.info(
                "%s %s %d %.1fms",
                scope.get("method", "-"),
                scope.get("path", "-"),
                status or 500,
                1e3 * (time.perf_counter() - start),
            )

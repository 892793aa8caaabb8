"""Server time per API request, measured in-process by calling the ASGI app directly.

No socket and no HTTP client: each request is one ``await app(scope, receive, send)`` on the full
application (routing, validation, the generated endpoint, the response cache, orjson, ETag, gzip and
the security middleware), timed with ``perf_counter`` from the call to the last body chunk.  This is
the time a worker spends on the request, without the client's own overhead.

*cold*: every cache of results in the ``app`` package is cleared before the request
(``app.web.caching.RESPONSE_CACHE`` and any module's ``functools.lru_cache``), so the figure is
validation + compute + serialisation.  *warm*: the same request again, served from the cache.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float


def clear_caches() -> int:
    """Clear every cache of computed results in the app package: each ``functools.lru_cache``
    function and each module-level cache object (``app.web.caching.RESPONSE_CACHE``: anything with
    get/put/clear).  Caches marked ``per_process`` (``app.web.params.per_process``: model schemas,
    fixed formulas, static files) stay warm: a server fills them once, whatever the parameters.
    Returns how many were cleared."""
    cleared = 0
    for name, module in list(sys.modules.items()):
        if not (name == "app" or name.startswith("app.")) or module is None:
            continue
        for value in list(vars(module).values()):
            if callable(value) and hasattr(value, "cache_clear") and hasattr(value, "cache_info"):
                if getattr(value, "__module__", "") == name and not getattr(value, "per_process", False):
                    value.cache_clear()
                    cleared += 1
            elif (
                not isinstance(value, type)
                and all(callable(getattr(value, m, None)) for m in ("get", "put", "clear"))
                and type(value).__module__ == name
            ):
                value.clear()
                cleared += 1
    return cleared


class Caller:
    def __init__(self, app) -> None:
        self.app = app

    async def request(self, method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Reply:
        path, _, query = url.partition("?")
        raw_headers = [(b"host", b"bench.local")]
        for key, value in (headers or {}).items():
            raw_headers.append((key.lower().encode(), value.encode()))
        if body:
            raw_headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": raw_headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "state": {},
        }
        sent_body = False

        async def receive() -> dict[str, Any]:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        status = 0
        out_headers: dict[str, str] = {}
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                out_headers.update({k.decode().lower(): v.decode() for k, v in message.get("headers", [])})
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        start = time.perf_counter()
        await self.app(scope, receive, send)
        seconds = time.perf_counter() - start
        return Reply(status, out_headers, b"".join(chunks), seconds)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    return statistics.median(values)

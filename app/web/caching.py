"""Finished responses: one cache of bodies bounded in bytes, encodings decided once, one conditional GET.

Every GET answer of the app (twins, CSV exports, operations, pages, the docs, static files,
plotly.js) is a pure function of its URL and of the app version, so a finished body can be kept
and revalidated.  A :class:`Representation` is one encoding of one body with its own ETag: the
identity bytes and their gzip are separate cache entries, the gzip made from the identity bytes
the first time a client that accepts gzip asks, and never again while it stays cached.  Whether a
body is worth compressing is decided once, from its size and media type (:func:`worth_gzip`);
there is no compression middleware to second-guess it.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import cachetools
from isal import igzip, isal_zlib
from starlette.requests import Request
from starlette.responses import Response

from app.settings import GZIP_LEVEL, RESPONSE_CACHE_BYTES
from app.web.responses import COMPACT_MEDIA_TYPE, etag_for

# gzip is ISA-L's (isal.igzip: the same gzip format, made with SIMD).  Measured here on the bodies of
# a class's load (every twin with new parameters, 1,100 bodies, 45 MB of JSON): zlib at level 4
# (level 1 above 256 KiB) cost 0.96 ms per body for 14.9 MB; ISA-L level 2 costs 0.20 ms for 14.6 MB.
# Above GZIP_MAX_BYTES (the CSV of a 512 × 512 table is 5 MB) the download shrinks only ~2×.
GZIP_MIN_BYTES = 1024
GZIP_MAX_BYTES = 1024 * 1024
# JSON answers are compressed up to 3 MiB, once per cached body: float-heavy JSON halves for ~5 ms
# per MiB.  Larger bodies go as they are.
JSON_MEDIA_TYPE = "application/json"
JSON_GZIP_MAX_BYTES = 3 * 1024 * 1024
# Compact bodies are mostly base64 of float64 bytes, which gzip shrinks by ~25 % at ~50 ms per MiB:
# worth it for the small bodies of everyday slider moves only.
COMPACT_GZIP_MAX_BYTES = 256 * 1024
_INCOMPRESSIBLE = ("image/png", "image/jpeg", "font/woff2")


@dataclass(frozen=True, slots=True)
class Representation:
    """One encoding of a finished body: what goes on the wire, with its ETag."""

    body: bytes
    media_type: str
    etag: str
    encoding: str | None = None  # "gzip", or None for the identity bytes


def identity(body: bytes, media_type: str, kind: str) -> Representation:
    return Representation(body, media_type, etag_for(body, kind))


def worth_gzip(rep: Representation) -> bool:
    if rep.media_type.startswith(JSON_MEDIA_TYPE):
        return GZIP_MIN_BYTES <= len(rep.body) <= JSON_GZIP_MAX_BYTES
    most = COMPACT_GZIP_MAX_BYTES if rep.media_type.startswith(COMPACT_MEDIA_TYPE) else GZIP_MAX_BYTES
    return GZIP_MIN_BYTES <= len(rep.body) <= most and not rep.media_type.startswith(_INCOMPRESSIBLE)


def gzipped(rep: Representation, level: int | None = None) -> Representation:
    """``rep`` gzipped, with an ETag of its own (RFC 9110: another encoding is another representation)."""
    level = GZIP_LEVEL if level is None else level
    if level > isal_zlib.ISAL_BEST_COMPRESSION:  # ISA-L's levels are 0-3; a higher one asks for zlib's smaller output
        body = gzip.compress(rep.body, level, mtime=0)
    else:
        body = igzip.compress(rep.body, level, mtime=0)
    return Representation(body, rep.media_type, rep.etag[:-1] + '-gzip"', "gzip")


class ResponseCache:
    """Least-recently-used representations, bounded by their total size in bytes (cachetools).

    A count bound alone would let a few hundred maximum-size tables hold gigabytes.  One body
    larger than an eighth of the budget is served but not kept, so it cannot flush everything else.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: cachetools.LRUCache = cachetools.LRUCache(max_bytes, getsizeof=_size)
        self.lock = threading.Lock()  # endpoints run in the thread pool; cachetools is not thread-safe

    def get(self, key: Hashable) -> Representation | None:
        with self.lock:
            return self.entries.get(key)

    def put(self, key: Hashable, rep: Representation) -> Representation:
        if _size(rep) <= self.max_bytes // 8:
            with self.lock:
                rep = self.entries.setdefault(key, rep)  # another thread's equal body may be there first
        return rep

    def get_or_make(self, key: Hashable, make: Callable[[], Representation]) -> Representation:
        found = self.get(key)
        return found if found is not None else self.put(key, make())

    @property
    def used(self) -> int:
        return int(self.entries.currsize)  # a sum of byte counts (cachetools types a size as float)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


def _size(rep: Representation) -> int:
    return len(rep.body) + 256  # the object, its ETag and the key


RESPONSE_CACHE = ResponseCache(RESPONSE_CACHE_BYTES)


def accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "")


def plain(key: Hashable, make: Callable[[], bytes], media_type: str, kind: str) -> Representation:
    """The identity representation of ``key``'s body, made by ``make()`` once while cached."""
    return RESPONSE_CACHE.get_or_make((key, None), lambda: identity(make(), media_type, kind))


def negotiated(request: Request, key: Hashable, make: Callable[[], bytes], media_type: str, kind: str) -> Representation:
    """The representation of ``key``'s body this client gets: the identity bytes, or their gzip
    (made at most once while cached) for a client that accepts it when the body is worth it."""
    body = plain(key, make, media_type, kind)
    if not (accepts_gzip(request) and worth_gzip(body)):
        return body
    return RESPONSE_CACHE.get_or_make((key, "gzip"), lambda: gzipped(body))


def choose(request: Request, plain: Representation, compressed: Representation | None) -> Representation:
    """Pick between representations made ahead of time (``compressed`` None: not worth it)."""
    return compressed if compressed is not None and accepts_gzip(request) else plain


def not_modified(request: Request, etag: str) -> bool:
    """If-None-Match (RFC 9110 §13.1.2): ``*`` or any listed tag equal to ``etag``, compared weakly."""
    header = request.headers.get("if-none-match")
    if not header:
        return False
    if header.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


def respond(
    request: Request,
    rep: Representation,
    *,
    cache_control: str,
    vary: str = "Accept-Encoding",
    headers: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    """The one conditional GET: 304 when the client holds this representation, else its bytes."""
    out = {"ETag": rep.etag, "Cache-Control": cache_control, "Vary": vary, **(headers or {})}
    if status_code == 200 and not_modified(request, rep.etag):
        return Response(status_code=304, headers=out)
    if rep.encoding is not None:
        out["Content-Encoding"] = rep.encoding
    return Response(rep.body, status_code=status_code, media_type=rep.media_type, headers=out)


def cached_response(request: Request, key: Any, make: Callable[[], bytes], media_type: str, kind: str, **options: Any) -> Response:
    """:func:`negotiated` then :func:`respond`: what every cached GET endpoint returns."""
    return respond(request, negotiated(request, key, make, media_type, kind), **options)

"""The one place where numbers cross the JSON boundary (orjson), plus HTTP caching.

Results are plain dicts of scalars, lists and numpy arrays.  orjson serialises numpy arrays
natively; NaN and ±inf become ``null`` (the score matrix uses NaN for masked cells).
"""

from __future__ import annotations

import base64
import zlib
from typing import Any

import numpy as np
import orjson
from starlette.requests import Request
from starlette.responses import Response

from app import __version__

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _fallback(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return np.ascontiguousarray(obj)
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=_OPTIONS, default=_fallback)


def embed_json(obj: dict[str, Any], **raw: bytes) -> str:
    """JSON safe to place inside ``<script type="application/json">``.

    ``raw`` adds members whose values are already-serialised JSON (the cached API body, spliced
    in rather than parsed and serialised again).  ``<``, ``>`` and ``&`` are escaped as
    ``\\u003c`` etc. everywhere, so no string in the data can close the element.
    """
    text = dumps(obj)
    for name, value in raw.items():
        text = text[:-1] + (b"," if len(text) > 2 else b"") + dumps(name) + b":" + value + b"}"
    return text.decode().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def etag_for(body: bytes, kind: str = "json") -> str:
    """ETag of a response body: its kind, the app version, the length and the CRC-32 of the bytes.

    An ETag only has to tell apart the versions of one URL's body (a body is a function of the URL
    and the app version), so a checksum is enough.  BLAKE2 took ~11 ms on a 5 MB body, CRC-32 ~1 ms.
    """
    return f'"{kind}-{__version__}-{len(body):x}-{zlib.crc32(body):08x}"'


class JSONBytes(Response):
    media_type = "application/json"


# ---- compact encoding (opt-in, for the pages) ------------------------------------------------------
#
# JSON text is exact but slow to parse: a 512 × 512 heatmap is 5 MB of digits and costs the
# browser tens of milliseconds in JSON.parse alone.  A page may instead ask for
# ``Accept: application/vnd.pe-explorer.compact+json``: the same document, in which every float64
# numpy array of at least COMPACT_MIN_ITEMS values is replaced by
# ``{"dtype": "f8", "bdata": <base64 of the little-endian float64 bytes>, "shape": [...]}``
# (the typed-array form plotly.js also reads).  The bytes are the float64 values themselves, so
# the numbers are bit-for-bit those of the JSON twin; static/js/lib/api.js turns them back into
# nested arrays with ``null`` where JSON has ``null`` (NaN, ±inf).  Without that Accept header,
# scripts get plain JSON, as always.  Other dtypes (integers, float32, whose JSON text is the
# shortest float32 repr, not the float64 value) stay JSON.

COMPACT_MEDIA_TYPE = "application/vnd.pe-explorer.compact+json"
COMPACT_MIN_ITEMS = 1024
# The bytes are not compressed here: the float64 values of a trigonometric table or a score matrix
# have little redundancy (zlib level 1 saves ~11% of a 512 × 512 table for ~90 ms of CPU), and
# large compact bodies are not gzipped either (caching.COMPACT_GZIP_MAX_BYTES).


def wants_compact(request: Request) -> bool:
    return COMPACT_MEDIA_TYPE in request.headers.get("accept", "")


def toeplitz_diagonals(matrix: np.ndarray) -> np.ndarray | None:
    """The 2L−1 values of a square matrix that is Toeplitz bit for bit, else None.

    ``t[L−1+o]`` is the value on diagonal o = column − row, o = −(L−1) … L−1 (the first column read
    upwards, then the first row after its first cell).  Bits, not values, are compared, so NaN
    cells and the sign of zero survive the round trip.
    """
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 2:
        return None
    bits = np.ascontiguousarray(matrix, dtype="<f8").view(np.uint64)
    if not np.array_equal(bits[1:, 1:], bits[:-1, :-1]):
        return None
    return np.concatenate([matrix[::-1, 0], matrix[0, 1:]])


def compact(obj: Any) -> Any:
    """``obj`` with every large float64 array replaced by its typed-array form (see above).

    A square matrix that is exactly Toeplitz (the score matrix of one repeated token) is sent as
    its 2L−1 diagonals with ``"layout": "toeplitz"``: 8 KB instead of 2 MB at L = 512, every cell
    still bit for bit the JSON twin's (see ``toeplitz_diagonals``; api.js expands it).
    """
    if isinstance(obj, np.ndarray):
        if obj.dtype == np.float64 and obj.size >= COMPACT_MIN_ITEMS and obj.ndim >= 1:
            diagonals = toeplitz_diagonals(obj)
            if diagonals is not None:
                raw = np.ascontiguousarray(diagonals, dtype="<f8").tobytes()
                return {"dtype": "f8", "bdata": base64.b64encode(raw).decode("ascii"), "shape": list(obj.shape), "layout": "toeplitz"}
            raw = np.ascontiguousarray(obj, dtype="<f8").tobytes()
            return {"dtype": "f8", "bdata": base64.b64encode(raw).decode("ascii"), "shape": list(obj.shape)}
        return obj
    if isinstance(obj, dict):
        return {key: compact(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [compact(value) for value in obj]
    return obj


def dumps_compact(obj: Any) -> bytes:
    return dumps(compact(obj))

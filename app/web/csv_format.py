"""CSV exports: numbers written with orjson's digits, the same text as the JSON twin.

A view's ``csv`` function returns ``(header, rows)``: ``rows`` is a list of row lists, or for large
tables a :class:`Columns` of numpy arrays (no Python lists built).  Numeric tables are written by one
``orjson.dumps`` per table (or per :class:`Columns` part), split into lines: every float is
its shortest round-trip text (``1e-7``, ``0.000015``: what the JSON twin says, and what any CSV
reader parses back to the same float64), integers stay integers, booleans are ``True``/``False``,
and NaN/±inf and gaps (``None``, ``""``, masked cells) are empty cells, as they are ``null`` in JSON.
Tables with text cells go through Python's ``csv`` module, which quotes them; they are small.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import orjson

CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


class Columns:
    """Column-wise rows: each part is a 1-D array (one column) or a 2-D array (one column per array
    column), all with the same number of rows; a ``numpy.ma`` masked cell is written empty."""

    def __init__(self, *parts: Any) -> None:
        self.parts = [_cells(part) for part in parts]

    def __len__(self) -> int:
        return len(self.parts[0]) if self.parts else 0

    def __iter__(self):
        return iter(self.rows())

    def rows(self) -> list[list[Any]]:
        """The same table as row lists, ``None`` where a cell is written empty (masked, NaN, ±inf)."""
        rows = [list(itertools.chain.from_iterable(row)) for row in zip(*(part.tolist() for part in self.parts), strict=True)] if self.parts else []
        return [[None if isinstance(cell, float) and not math.isfinite(cell) else cell for cell in row] for row in rows]


def _cells(part: Any) -> np.ndarray:
    """A 2-D array with masked cells as NaN (written empty); integer columns with gaps become floats."""
    if isinstance(part, np.ma.MaskedArray):
        part = np.ma.filled(part.astype(np.float64), np.nan) if np.ma.is_masked(part) else part.data
    array = np.asarray(part)
    return array.reshape(len(array), -1) if array.ndim != 2 else array


def csv_bytes(header: Sequence[Any], rows: Any) -> bytes:
    """``header`` and ``rows`` as UTF-8 CSV with ``\\n`` line ends."""
    head = _with_csv_module([header])
    if isinstance(rows, Columns):
        if not rows.parts or not len(rows):
            return head
        # orjson reads numpy arrays in C order only; a column slice of a matrix is a strided view.
        parts = [_lines(orjson.dumps(np.ascontiguousarray(part), option=_OPTIONS)) for part in rows.parts]
        lines = parts[0] if len(parts) == 1 else [b",".join(cells) for cells in zip(*parts, strict=True)]
        return head + b"\n".join(lines) + b"\n"
    table, text = [], False
    for row in rows:
        if any(isinstance(cell, str) for cell in row):
            if any(cell != "" for cell in row if isinstance(cell, str)):
                text = True
            row = [None if isinstance(cell, str) and cell == "" else cell for cell in row]
        table.append(row)
    if not table:
        return head
    if not text:
        try:
            return head + b"\n".join(_lines(orjson.dumps(table, option=_OPTIONS))) + b"\n"
        except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, an unexpected type
            pass
    return head + _with_csv_module([["" if cell is None else cell for cell in row] for row in table])


def _lines(text: bytes) -> list[bytes]:
    """A table as orjson wrote it, ``[[a,b],[null,true]]``, as CSV lines ``a,b`` and ``,True``
    (null: NaN, ±inf, a gap; booleans as Python and earlier exports wrote them).  Numbers never
    hold these letters, so the replacements touch nothing else."""
    inner = text[2:-2]
    if b"l" in inner:
        inner = inner.replace(b"null", b"")
    if b"t" in inner or b"f" in inner:
        inner = inner.replace(b"true", b"True").replace(b"false", b"False")
    return inner.split(b"],[")


def _with_csv_module(rows: Any) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode()

"""CSV exports: numbers written with orjson's digits, the same text as the JSON twin.

A view's ``csv`` function returns ``(header, rows)``: ``rows`` is a list of row lists, or for large
tables a :class:`Columns` of numpy arrays (no Python lists built).  Numeric tables are written by one
``orjson.dumps`` of the whole table, its brackets turned into commas and line ends: every float is
its shortest round-trip text (``1e-7``, ``0.000015``: what the JSON twin says, and what any CSV
reader parses back to the same float64), integers stay integers, booleans are ``true``/``false``,
and NaN/±inf and gaps (``None``, ``""``, masked cells) are empty cells, as they are ``null`` in JSON.
Tables with text cells go through Python's ``csv`` module, which quotes them; they are small.
"""

from __future__ import annotations

import csv
import io
from typing import Any, Sequence

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

    def rows(self) -> list[list[Any]]:
        """The same table as row lists (for tests and the text fallback)."""
        return [sum(row, []) for row in zip(*(part.tolist() for part in self.parts))] if self.parts else []


def _cells(part: Any) -> np.ndarray:
    """A 2-D array with masked cells as NaN (written empty); integer columns with gaps become floats."""
    array = np.ma.asarray(part)
    if np.ma.is_masked(array):
        array = array.astype(np.float64).filled(np.nan)
    array = np.asarray(array)
    return array.reshape(len(array), -1) if array.ndim != 2 else array


def csv_bytes(header: Sequence[Any], rows: Any) -> bytes:
    """``header`` and ``rows`` as UTF-8 CSV with ``\\n`` line ends."""
    head = _with_csv_module([header])
    if isinstance(rows, Columns):
        lines = [_numeric_lines(part) for part in rows.parts]
        if not lines or not len(rows):
            return head
        return head + b"\n".join(b",".join(cells) for cells in zip(*lines)) + b"\n"
    rows = [[None if cell == "" else cell for cell in row] for row in rows]
    if any(isinstance(cell, str) for row in rows for cell in row):
        return head + _with_csv_module([["" if cell is None else cell for cell in row] for row in rows])
    try:
        text = orjson.dumps(rows, option=_OPTIONS)  # b"[[a,b],[c,d]]"
    except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, an unexpected type
        return head + _with_csv_module([["" if cell is None else cell for cell in row] for row in rows])
    return head + _json_rows_to_csv(text)


def _numeric_lines(part: np.ndarray) -> list[bytes]:
    text = _json_rows_to_csv(orjson.dumps(part, option=_OPTIONS))
    return text[:-1].split(b"\n") if text else []


def _json_rows_to_csv(text: bytes) -> bytes:
    """``[[a,b],[c,d]]`` → ``a,b\\nc,d\\n``; ``null`` (NaN, ±inf, a gap) → an empty cell."""
    inner = text[2:-2]
    if not inner:
        return b""
    return inner.replace(b"],[", b"\n").replace(b"null", b"") + b"\n"


def _with_csv_module(rows: Any) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode()

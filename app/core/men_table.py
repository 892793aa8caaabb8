"""The records of the Men et al. (2024) smallest-base search, read from ``app/data/men_table.csv``.

The file is made by scripts/men_table.py with :func:`app.core.calculator.smallest_base_records`
(never by hand): a few ``#`` lines (one says ``limit: N``, the largest context length the records
answer), a header, then one row per record, ``head_dim,index,reach,previous_fails_at``, in grid
order for each head dim (the columns of :class:`app.core.calculator.Records`).

``LIMIT`` and ``RECORDS`` are read on first use.  ``RECORDS[d]``: the three columns as int64
arrays, ``exhausted`` (no grid base below 10^15 passes LIMIT: the last record still fails, its
reach is not −1), ``count`` (number of records) and ``smallest_base_at_limit`` (the last record's
base, None when exhausted).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.core.base_grid import grid_value

PATH = Path(__file__).resolve().parents[1] / "data" / "men_table.csv"
COLUMNS = ("head_dim", "index", "reach", "previous_fails_at")


def load(path: Path = PATH) -> tuple[int, dict[int, dict[str, Any]]]:
    """(limit, records by head dim) of a records file.  Raises ``ValueError`` for a malformed one."""
    body = path.read_text(encoding="ascii").split(",".join(COLUMNS) + "\n", 1)
    comments = [line[1:].strip() for line in body[0].splitlines() if line.startswith("#")]
    limits = [int(line.split(":", 1)[1]) for line in comments if line.startswith("limit:")]
    if len(limits) != 1 or len(body) != 2:
        raise ValueError(f"{path.name}: needs one '# limit: N' line and the header {','.join(COLUMNS)}")
    # numpy's text parser (a ValueError on anything but integers); one row per line
    values = np.fromstring(body[1].replace("\n", ","), dtype=np.int64, sep=",")
    if values.size % len(COLUMNS) or values.size // len(COLUMNS) != body[1].count("\n"):
        raise ValueError(f"{path.name}: every row needs {len(COLUMNS)} integers ({','.join(COLUMNS)})")
    rows = values.reshape(-1, len(COLUMNS))
    blocks = np.split(rows, np.flatnonzero(np.diff(rows[:, 0])) + 1)  # one block of rows per head dim
    if len({int(block[0, 0]) for block in blocks}) != len(blocks):
        raise ValueError(f"{path.name}: the rows of each head dim must be consecutive")
    records: dict[int, dict[str, Any]] = {}
    for block in blocks:
        d = int(block[0, 0])
        index, reach, previous = block[:, 1:].T.copy()
        exhausted = bool(reach[-1] >= 0)
        records[d] = {
            "index": index,
            "reach": reach,
            "previous_fails_at": previous,
            "exhausted": exhausted,
            "count": len(index),
            "smallest_base_at_limit": None if exhausted else grid_value(int(index[-1])),
        }
    return limits[0], records


def write(path: Path, limit: int, records: dict[int, dict[str, Any]], header: str) -> None:
    """Write records (each with the three columns) as :func:`load` reads them; ``header``: the
    comment lines' text (without the limit line)."""
    lines = [f"# {line}".rstrip() for line in header.strip().splitlines()] + [f"# limit: {limit}", ",".join(COLUMNS)]
    for d in sorted(records):
        entry = records[d]
        for row in zip(entry["index"], entry["reach"], entry["previous_fails_at"], strict=True):
            lines.append(",".join(str(int(v)) for v in (d, *row)))
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


@lru_cache(maxsize=1)
def shipped() -> tuple[int, dict[int, dict[str, Any]]]:
    """The shipped file's (limit, records), read once per process."""
    return load(PATH)


if TYPE_CHECKING:
    # Read lazily by __getattr__ below, from shipped().
    LIMIT: int
    RECORDS: dict[int, dict[str, Any]]


def __getattr__(name: str) -> object:
    if name == "LIMIT":
        return shipped()[0]
    if name == "RECORDS":
        return shipped()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

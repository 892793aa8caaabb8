"""Generate app/data/men_table.csv: the records of the Men et al. (2024) smallest-base search.

For each head dim d in HEAD_DIMS, :func:`app.core.calculator.smallest_base_records` (d, LIMIT)
lists, in grid order, every grid base (four significant digits, 1 ≤ b < 10^15) whose first failing
distance m (the smallest m with B_m = Σ_j cos(m·b^(−2j/d)) < 0) is larger than that of every
smaller grid base, up to the first base with B_m ≥ 0 for all m < LIMIT.  The smallest base for any
T ≤ LIMIT is then the first record whose first failing m is ≥ T: the calculator answers every such
T at these head dims by lookup, with the same code a live search runs.

Run from the repository root:  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m scripts.men_table
(about 15 minutes on a quiet core; --head-dims to redo some, the others are kept).  The output is deterministic;
tests/core/test_men.py recomputes entries by brute force.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import sys
import time
from pathlib import Path

HEAD_DIMS = (*range(8, 97, 8), 112, 128, 160, 192, 256)
LIMIT = 1 << 20
OUT = Path(__file__).resolve().parents[1] / "app" / "data" / "men_table.csv"

HEADER = """Records of the Men et al. (2024) smallest-base search (see app/core/calculator.py and app/core/men_table.py).
Made by scripts/men_table.py with app.core.calculator.smallest_base_records; do not edit by hand.
One row per record: head dim d, grid index of the base, its first failing m (reach; -1: passes every m < limit),
and the first failing m of the grid value just below it (-1 for index 0)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--head-dims", type=int, nargs="*", default=HEAD_DIMS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    from app.core import base_grid, calculator, men_table

    entries: dict[int, dict] = {}
    if args.out.exists():
        limit, kept = men_table.load(args.out)
        if limit == LIMIT:
            entries.update(kept)  # keep the head dims not redone
    for d in args.head_dims:
        start = time.process_time()
        records = calculator.smallest_base_records(d, LIMIT)
        last = None if records.exhausted else base_grid.grid_value(int(records.index[-1]))
        entries[d] = {"index": records.index, "reach": records.reach, "previous_fails_at": records.previous_fails_at}
        print(f"d={d}: {len(records.index)} records, smallest base at {LIMIT}: {last} "
              f"({time.process_time() - start:.1f} s)", file=sys.stderr, flush=True)
        men_table.write(args.out, LIMIT, entries, HEADER)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Counts the fuzz cases sent per operation; tests/conftest.py prints them at the end of the run
(summed over the pytest-xdist workers)."""

from __future__ import annotations

from collections import Counter, defaultdict

# operation label → Counter of "2xx"/"4xx"/… and of schemathesis phases ("coverage", "fuzzing", …)
CASES: defaultdict[str, Counter] = defaultdict(Counter)


def record(operation: str, phase: str, status: int) -> None:
    CASES[operation][f"{status // 100}xx"] += 1
    CASES[operation][phase] += 1
    CASES[operation]["cases"] += 1


def summary_lines() -> list[str]:
    if not CASES:
        return []
    total: Counter = Counter()
    lines = []
    for operation in sorted(CASES):
        total.update(CASES[operation])
        lines.append(_line(operation, CASES[operation]))
    lines.append(_line(f"all {len(CASES)} operations", total))
    return lines


def _line(label: str, counts: Counter) -> str:
    parts = "  ".join(f"{key} {value}" for key, value in sorted(counts.items()) if key != "cases")
    return f"{label:<34} {counts['cases']:>5} cases   {parts}"

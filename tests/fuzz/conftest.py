"""Counts the fuzz cases sent per operation and prints them at the end of the run."""

from __future__ import annotations

from collections import Counter, defaultdict

# operation label → Counter of "2xx"/"4xx"/… and of schemathesis phases ("coverage", "fuzzing", …)
CASES: defaultdict[str, Counter] = defaultdict(Counter)


def record(operation: str, phase: str, status: int) -> None:
    CASES[operation][f"{status // 100}xx"] += 1
    CASES[operation][phase] += 1
    CASES[operation]["cases"] += 1


def pytest_terminal_summary(terminalreporter):
    if not CASES:
        return
    terminalreporter.section("schemathesis cases per operation")
    total: Counter = Counter()
    for operation in sorted(CASES):
        total.update(CASES[operation])
        terminalreporter.write_line(_line(operation, CASES[operation]))
    terminalreporter.write_line(_line(f"all {len(CASES)} operations", total))


def _line(label: str, counts: Counter) -> str:
    parts = "  ".join(f"{key} {value}" for key, value in sorted(counts.items()) if key != "cases")
    return f"{label:<34} {counts['cases']:>5} cases   {parts}"

"""Fixtures shared by every test, and the order the tests start in.

``make test`` runs pytest-xdist with ``-n 2 --dist worksteal``: each worker process has its own
session fixtures (the TestClient here; the live server and Chromium of tests/browser), the load
tests take turns (tests/load/conftest.py), and a worker that runs out of tests takes half of the
other's queue.  Plain ``pytest`` (one process) runs the same tests in the same order.
"""

from __future__ import annotations

from collections import Counter

import pytest
from fastapi.testclient import TestClient

from app.main import create_app

# Tests start in this order of their folder; the rest keep their collection order after them.
# The longest first: the load tests (about a minute, one after another), then the browser tests
# (most of the suite's time); the end of the run is then made of short tests that an idle worker
# can take over, not of one long test that leaves the other worker waiting.  worksteal gives each
# worker half of this list at the start (the first worker the browser tests, the second the quick
# API and core tests) and rebalances from the ends of the queues.
FIRST = ("tests/load/", "tests/browser/", "tests/fuzz/")


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.replace("\\", "/")
    return next((i for i, prefix in enumerate(FIRST) if path.startswith(prefix)), len(FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: each file keeps its own order


@pytest.fixture(scope="session")
def app():
    return create_app()


@pytest.fixture(scope="session")
def client(app):
    with TestClient(app) as test_client:
        yield test_client


# ---- the fuzz cases per operation (tests/fuzz), summed over the xdist workers ----------------


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand its counts to the controller
        from tests.fuzz.counts import CASES

        workeroutput["fuzz_cases"] = {operation: dict(counts) for operation, counts in CASES.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # the controller, as each xdist worker ends
    from tests.fuzz.counts import CASES

    for operation, counts in getattr(node, "workeroutput", {}).get("fuzz_cases", {}).items():
        CASES[operation].update(Counter(counts))


def pytest_terminal_summary(terminalreporter) -> None:
    from tests.fuzz.counts import summary_lines

    lines = summary_lines()
    if lines:
        terminalreporter.section("schemathesis cases per operation")
        for line in lines:
            terminalreporter.write_line(line)

"""The load tests start their own servers (the soak: 2 workers under wrk, which keeps both cores
busy): under pytest-xdist they take turns, whichever worker runs them, so two never overlap.

(A lock, not an ``xdist_group`` mark: with pytest 9.2, ``--dist loadgroup`` silently stops grouping,
pytest-xdist issue 1386, and it would also merge the schemathesis cases, whose node ids repeat.)
"""

from __future__ import annotations

import fcntl
import os

import pytest


@pytest.fixture(autouse=True)
def one_load_test_at_a_time(tmp_path_factory):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield  # one process: the tests run one after another anyway
        return
    # the parent of a worker's base temp folder is the one of this run, shared by its workers
    lock_path = tmp_path_factory.getbasetemp().parent / "load-tests.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

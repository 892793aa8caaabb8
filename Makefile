# Two commands set everything up on a fresh machine: `make run` and `make test` (`make lint` checks).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-fast lint typecheck chromium tools bench soak clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -qq -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(PY) -m pip install -qq -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(PY) -m app --host $(HOST) --port $(PORT)$(if $(LECTURES), --lectures $(LECTURES))$(if $(MODEL), --model $(MODEL))

# The whole suite, browser tests included.  Chromium comes from the machine (Debian's package);
# Playwright never downloads a browser here.  TEST_WORKERS processes (pytest-xdist; CI has 2
# cores), an idle one taking tests from the other's queue (worksteal): each has its own live
# server and Chromium, the load tests take turns (tests/load/conftest.py), and the 25 slowest
# tests are listed at the end.  TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
PYTEST_PARALLEL = -n $(TEST_WORKERS) --dist worksteal
test: $(VENV)/.installed-test chromium tools
	$(PY) -m pytest $(PYTEST_PARALLEL) --durations=25

# ruff (the rules in pyproject.toml) and mypy (strict on app/core) over app, scripts, bench and
# tests; .ci/run runs it before the tests.  `make typecheck` is mypy alone.  Both tools come with
# the test extra.
lint: $(VENV)/.installed-test
	$(PY) -m ruff check .
	$(PY) -m mypy

typecheck: $(VENV)/.installed-test
	$(PY) -m mypy

# Everything except the browser tests.
test-fast: $(VENV)/.installed-test
	$(PY) -m pytest $(PYTEST_PARALLEL) -m "not browser"

chromium:
	@bash scripts/ensure-chromium.sh

# wrk for the load tests (Debian's package, installed as root when missing).
tools:
	@bash scripts/ensure-tools.sh

# Load and soak: 2 workers on a free loopback port, wrk at 64 connections over a mix of every
# view's API calls for SOAK_SECONDS (default 600), then requests, errors, latency percentiles and
# the workers' resident memory at start, end and peak.  Fails on any error or > 10% memory growth.
# `make soak SOAK_BUST=1`: every GET with new parameters (no cache hits); fails if a worker's
# memory ever exceeds 300 MiB instead.
SOAK_SECONDS ?= 600
SOAK_BUST ?=
soak: $(VENV)/.installed tools
	$(PY) scripts/soak.py --seconds $(SOAK_SECONDS) $(if $(SOAK_BUST),--bust-cache --max-rss-mib 300,--max-growth 0.10)

# Performance figures against the targets of issue 7: one table on stdout and in
# bench/results/latest.md (see bench/README.md).  Dash, the comparison, lives in its own venv
# (bench/.venv-dash, from the `bench` extra): its pytest plugin would break the test suite.
# BENCH_ARGS passes options, e.g. BENCH_ARGS="--sections server --quick".  BASELINE=REF measures
# the old tree REF (a temporary git worktree) beside this one in the same run: slider p95 per page
# (new ≤ 1.10 × old), opening lessons and the new-parameter load, interleaved (bench/baseline.py);
# BASELINE= with no value: origin/main, else main, else HEAD^1.
BENCH_VENV := bench/.venv-dash
BENCH_ARGS ?=

$(BENCH_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -qq --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install -qq -e '.[bench]'
	touch $@

bench: $(VENV)/.installed-test $(BENCH_VENV)/.installed chromium
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk) || echo "wrk missing: the load section will report an error"
	$(PY) -m bench $(BENCH_ARGS)$(if $(filter command line environment,$(origin BASELINE)), --baseline $(BASELINE))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

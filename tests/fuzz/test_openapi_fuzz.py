"""Schemathesis over the app's own OpenAPI schema: every operation, in-process (ASGI).

The schema is read from the app, so operations added by later lessons are fuzzed without
touching this file.  Every response must

- never be a server error (5xx; a 503 only where the operation declares it), nor take more than TIMEOUT_SECONDS (a hang fails the case),
- have a status code, content type, headers and body the schema declares,
- reject invalid input with a 4xx (``negative_data_rejection``).

``positive_data_acceptance`` is left out on purpose: some schema-valid combinations are refused
by cross-field rules (``seq_len × dim`` capped, ``head < num_heads``, …) with a 422 naming the
field, which is the behaviour we want.

JSON operations get schemathesis' deterministic *coverage* phase (boundary values, values just
outside each range, wrong types, missing and unknown parameters, an unexpected method) and a
*fuzzing* phase of generated valid and invalid inputs.  The CSV twins share their JSON twin's
parameter model, so only their output path is new: they get a short fuzzing phase of valid
inputs.  Bounded for CI (cases per operation below: about 10,000 in all, ~90 s on the 2-core machine)
and derandomised, so every run sends the same requests.  ``python -m bench --sections fuzz`` runs
the same tests with many more cases (FUZZ_EXAMPLES, FUZZ_CSV_EXAMPLES).

Every JSON answer is checked against the 200 schema the app documents: the answer model each
operation declares (app/web/answers.py).
"""

from __future__ import annotations

import os

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import create_app
from tests.fuzz.counts import record

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 150))  # generated cases per JSON operation (the coverage phase adds its own)
CSV_EXAMPLES = int(os.environ.get("FUZZ_CSV_EXAMPLES", 60))  # generated valid cases per CSV twin
TIMEOUT_SECONDS = 10

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]

APP = create_app()


def _settings(examples: int) -> hypothesis.settings:
    return hypothesis.settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


json_schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path_regex=r"\.csv$")
json_schema.config.generation.update(
    modes=list(schemathesis.GenerationMode), max_examples=FUZZ_EXAMPLES, deterministic=True
)
# One unexpected method per operation is enough to check the 405 path; the default tries eight.
json_schema.config.phases.coverage.unexpected_methods = {"delete"}

csv_schema = schemathesis.openapi.from_asgi("/openapi.json", APP).include(path_regex=r"\.csv$")
csv_schema.config.generation.update(
    modes=[schemathesis.GenerationMode.POSITIVE], max_examples=CSV_EXAMPLES, deterministic=True
)
csv_schema.config.phases.coverage.enabled = False

# A 503 is an answer, not a crash, where an operation declares it (/api/model/heads on a server without
# the model, or with a busy worker): status_code_conformance still fails it on any other operation, and
# response_schema_conformance checks its body against the declared model.
for _schema in (json_schema, csv_schema):
    _schema.config.checks.not_a_server_error.expected_statuses = ["2xx", "3xx", "4xx", "503"]


def _call_and_check(case) -> None:
    try:
        response = case.call(timeout=TIMEOUT_SECONDS)
    except Exception as exc:  # noqa: BLE001  the app raised (Starlette answered 500 and re-raised it here) or hung
        pytest.fail(f"server error {exc!r}\nreproduce with: {case.as_curl_command()}", pytrace=False)
    phase = case.meta.phase.name.value if case.meta else "explicit"
    record(case.operation.label, phase, response.status_code)
    case.validate_response(response, checks=CHECKS)


@json_schema.parametrize()
@_settings(FUZZ_EXAMPLES)
def test_json_operations(case):
    _call_and_check(case)


@csv_schema.parametrize()
@_settings(CSV_EXAMPLES)
def test_csv_twins(case):
    _call_and_check(case)

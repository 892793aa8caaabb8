"""Every operation and every page at the largest sizes its parameters allow.

Cases come from ``bench/limits.py``: for every registered view (its JSON and CSV twins and its page) and
every POST operation of the OpenAPI document, each bounded field is pushed to the largest value
its model accepts (maximums read from the model's JSON schema, cross-field rules respected), once
with the defaults of the enum/boolean fields and once for each other value of each of them
(``python -m bench.limits`` also tries their combinations).  Views added later are covered without editing this file.

Only what is deterministic is asserted: the request succeeds (200) and the response stays below
MAX_RESPONSE_BYTES.  Time and peak memory are recorded (printed with ``-s``) but not asserted;
``python -m bench.limits`` reports them against the 50 ms / 50 MB budget.
"""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest

from app.main import create_app
from app.web.routing import validating_models
from bench.limits import all_cases, clear_caches, invalid_cases, send

MAX_RESPONSE_BYTES = 8 * 2**20

APP = create_app()  # read only: its operations, their models and cases (requests go to the client fixture)
MODELS = validating_models(APP)
CASES = all_cases(APP, max_variants=1)
PARAMS = [
    pytest.param(case, id=f"{label}#{index}")
    for label, cases in CASES.items()
    for index, case in enumerate(cases)
]


def test_every_view_and_post_operation_has_cases():
    from app.web.views import discover

    for view in discover():
        assert CASES.get(f"GET {view.api_path}"), view.name
        assert CASES.get(f"PAGE /{view.name}"), view.name
    for path, methods in SPEC["paths"].items():
        if "post" in methods:
            assert CASES.get(f"POST {path}"), f"no case for POST {path}: give it an example body"


@pytest.mark.parametrize("case", PARAMS)
def test_largest_allowed_request_succeeds_within_bounds(client, case):
    clear_caches()
    # CSV rows are Python objects, where tracing costs 2-3x; python -m bench.limits traces them.
    traced = not case.path.endswith(".csv")
    if traced:
        tracemalloc.start()
    try:
        start = time.perf_counter()
        response = send(client, case)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
    finally:
        if traced:
            tracemalloc.stop()
    assert response.status_code == 200, (case.url, case.body, response.text[:500])
    assert len(response.content) <= MAX_RESPONSE_BYTES, (case.url, len(response.content))
    if case.page:
        assert response.headers["content-type"].startswith("text/html")
    elif case.path.endswith(".csv"):
        assert response.headers["content-type"].startswith("text/csv")
    else:
        assert response.headers["content-type"].startswith("application/json")
    memory = f", peak {peak / 2**20:.1f} MB traced" if traced else ""
    print(f"{case.label}: {len(response.content)} bytes, {1e3 * elapsed:.1f} ms{memory}")


# ---- malformed, missing, unknown and out-of-range input: a 4xx naming the parameter -------------

SPEC = APP.openapi()
POST_PATHS = [path for path, methods in SPEC["paths"].items() if "post" in methods]
GET_PATHS = [path for path, methods in SPEC["paths"].items() if "get" in methods and path.startswith("/api/")]


def assert_uniform_4xx(response, param: str | None = None, status: int | None = None) -> list[dict]:
    """Every 4xx body is {"detail": [{"type", "loc", "param", "msg", "allowed"?}, …]}."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    if status is not None:
        assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"].startswith("application/json")
    items = response.json()["detail"]
    assert isinstance(items, list) and items
    for item in items:
        assert {"type", "loc", "param", "msg"} <= set(item), item
        assert isinstance(item["msg"], str) and item["msg"]
    if param is not None:
        named = [item for item in items if item["param"] == param]
        assert named, items
        assert all(item.get("allowed") for item in named), named
    return items


MALFORMED_BODIES = {
    "deeply nested": b"[" * 100_000 + b"]" * 100_000,
    "deeply nested object": b'{"a":' * 30_000 + b"1" + b"}" * 30_000,
    "not JSON": b"{",
    "not UTF-8": b'{"q": "\xff\xfe"}',
    "empty": b"",
    "null": b"null",
    "a list": b"[1, 2, 3]",
    "a string": b'"x"',
}


@pytest.mark.parametrize("path", POST_PATHS)
@pytest.mark.parametrize("kind", list(MALFORMED_BODIES))
def test_malformed_body_is_a_422_naming_the_body(client, path, kind):
    response = client.post(path, content=MALFORMED_BODIES[kind], headers={"content-type": "application/json"})
    assert_uniform_4xx(response, param="body", status=422)


@pytest.mark.parametrize("path", POST_PATHS)
def test_huge_body_is_a_413_naming_the_body(client, path):
    from app.settings import MAX_BODY_BYTES

    response = client.post(path, content=b"[" + b"0," * MAX_BODY_BYTES + b"0]", headers={"content-type": "application/json"})
    items = assert_uniform_4xx(response, param="body", status=413)
    assert str(MAX_BODY_BYTES) in items[0]["allowed"]


def _body_fields(path: str) -> list[tuple[str, dict]]:
    from bench.limits import body_model

    model = body_model(SPEC["paths"][path]["post"], path, MODELS)
    if model is None:
        return []
    return list(model.model_json_schema().get("properties", {}).items())


BODY_FIELD_CASES = [
    pytest.param(path, name, id=f"{path}-{name}") for path in POST_PATHS for name, _ in _body_fields(path)
]


@pytest.mark.parametrize(("path", "name"), BODY_FIELD_CASES)
@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e999", '"text"', "true", "{}", "[[1]]"])
def test_bad_value_in_a_body_field_is_a_422_naming_it(client, path, name, bad):
    from bench.limits import example_body

    body = dict(example_body(SPEC["paths"][path]["post"]) or {})
    raw = json.dumps({**body, name: "__BAD__"}).replace('"__BAD__"', bad).encode()
    response = client.post(path, content=raw, headers={"content-type": "application/json"})
    assert_uniform_4xx(response, param=name, status=422)


@pytest.mark.parametrize("path", POST_PATHS)
def test_unknown_body_field_is_a_422_naming_it(client, path):
    from bench.limits import body_model, example_body

    operation = SPEC["paths"][path]["post"]
    if body_model(operation, path, MODELS) is None:
        return  # a free-form body (a model's config.json) ignores unrelated keys by design
    body = {**(example_body(operation) or {}), "no_such_field": 1}
    assert_uniform_4xx(client.post(path, json=body), param="no_such_field", status=422)


@pytest.mark.parametrize("path", GET_PATHS)
@pytest.mark.parametrize("value", ["NaN", "Infinity", "-inf", "1e999", "", "[]", "0x10", "１２"])
def test_bad_query_values_are_422s_naming_the_parameter(client, path, value):
    models = MODELS.get(path) or []
    numeric = [
        name
        for model in models
        for name, prop in model.model_json_schema().get("properties", {}).items()
        if prop.get("type") in ("integer", "number")
    ]
    for name in numeric:
        response = client.get(path, params={name: value})
        if response.status_code == 200:
            continue  # e.g. "１２" is a valid integer to Python, and "" may mean "not given" for an optional field
        assert_uniform_4xx(response, param=name, status=422)


def test_unknown_path_and_method_follow_the_same_shape(client):
    assert_uniform_4xx(client.get("/api/no/such/operation"), param="path", status=404)
    for path in POST_PATHS:
        items = assert_uniform_4xx(client.put(path, json={}), param="method", status=405)
        assert items[0]["allowed"] and "PUT" not in items[0]["allowed"]


# ---- invalid requests at the largest sizes the server lets in (bench.limits.invalid_cases) -------

INVALID = [
    pytest.param(case, id=f"{label}: {case.describe()}")
    for label, cases in invalid_cases(APP).items()
    for case in cases
]


@pytest.mark.parametrize("case", INVALID)
def test_largest_invalid_request_is_refused_briefly(client, case):
    from app.web.errors import MAX_ERROR_ITEMS

    response = send(client, case)
    items = assert_uniform_4xx(response)
    assert len(items) <= MAX_ERROR_ITEMS + 1
    assert len(response.content) <= 64 * 1024, len(response.content)

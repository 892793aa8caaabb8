"""Contract tests over every registered view: page ⇄ JSON twin, bad input, headers, plotly."""

import math
import re

import pytest

from app.lectures import lectures
from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover

VIEWS = discover()
NAMES = [view.name for view in VIEWS]
BY_NAME = {view.name: view for view in VIEWS}


LESSONS = {  # written out: a lesson that stops registering (a module left out, an import error) fails here
    "why", "sinusoidal", "ladder", "absolute", "rotation", "clock", "scores", "offsets", "conventions", "mrope",
    "heads", "learned", "relative", "transformer-xl", "compare", "spectrum", "precision", "calculator", "long-context",
}


def test_every_lesson_is_registered():
    assert set(NAMES) == LESSONS
    from app.settings import STATIC_DIR, TEMPLATES_DIR

    for name in NAMES:  # each with its template and its page script
        assert (TEMPLATES_DIR / "pages" / f"{name}.html").is_file(), name
        assert (STATIC_DIR / "js" / "pages" / f"{name}.js").is_file(), name


@pytest.mark.parametrize("name", NAMES)
def test_page_renders_and_links_its_json_twin(client, name):
    view = BY_NAME[name]
    page = client.get(f"/{name}", headers={"accept": "text/html"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert f'<link rel="alternate" type="application/json" href="{view.api_path}">' in page.text
    assert 'rel="alternate"' in page.headers["link"] and view.api_path in page.headers["link"]
    assert 'class="json-twin"' in page.text
    twin = client.get(view.api_path)
    assert twin.status_code == 200
    assert twin.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize("name", NAMES)
def test_page_embeds_the_same_data_as_its_twin(client, name):
    import json

    view = BY_NAME[name]
    page = client.get(f"/{name}").text
    boot = json.loads(re.search(r'<script type="application/json" id="page-data">(.*?)</script>', page, re.S).group(1))
    assert boot["data"] == client.get(view.api_path).json()
    assert boot["api"] == view.api_path


@pytest.mark.parametrize("name", NAMES)
def test_page_loads_plotly_from_this_server_only(client, name):
    page = client.get(f"/{name}").text
    assert '<script src="/vendor/plotly.min.js" defer></script>' in page
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<script>" not in page  # no inline script: CSP script-src 'self'


@pytest.mark.parametrize("name", NAMES)
def test_unknown_parameter_is_refused_and_named(client, name):
    view = BY_NAME[name]
    response = client.get(view.api_path, params={"no_such_parameter": "1"})
    assert response.status_code == 422
    item = response.json()["detail"][0]
    assert item["param"] == "no_such_parameter"
    assert "Unknown parameter" in item["msg"]
    page = client.get(f"/{name}", params={"no_such_parameter": "1"})
    assert page.status_code == 422 and "no_such_parameter" in page.text


def _bad_values(schema: dict) -> list:
    """Values outside each field's declared constraints."""
    if "enum" in schema:
        return ["not-a-choice"]
    kind = schema.get("type")
    bad: list[str | float] = []
    if kind in ("integer", "number"):
        bad.append("abc")
        if "maximum" in schema:
            bad.append(schema["maximum"] * 2 + 1 if schema["maximum"] > 0 else 1e12)
        if "minimum" in schema:
            bad.append(schema["minimum"] - 1 if math.isfinite(schema["minimum"]) else "-inf")
        if "exclusiveMinimum" in schema:
            bad.append(schema["exclusiveMinimum"])
        if kind == "number":
            bad.append("nan")
        if kind == "integer":
            bad.append("1.5")
    elif kind == "boolean":
        bad.append("maybe")
    return bad


CASES = []
for _view in VIEWS:
    _props = _view.params.model_json_schema().get("properties", {})
    for _field, _schema in _props.items():
        for _value in _bad_values(_schema):
            CASES.append(pytest.param(_view.name, _field, _value, id=f"{_view.name}-{_field}-{_value}"))


@pytest.mark.parametrize(("name", "field", "value"), CASES)
def test_out_of_range_parameter_gets_422_naming_it(client, name, field, value):
    view = BY_NAME[name]
    response = client.get(view.api_path, params={field: value})
    assert response.status_code == 422, response.text
    items = response.json()["detail"]
    assert any(item["param"] == field for item in items)
    assert all(item.get("allowed") for item in items if item["param"] == field)
    page = client.get(f"/{name}", params={field: value})
    assert page.status_code == 422
    assert 'class="control-error"' in page.text or "page-errors" in page.text


@pytest.mark.parametrize("name", NAMES)
def test_security_headers_and_caching(client, name):
    view = BY_NAME[name]
    page = client.get(f"/{name}")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-eval" not in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"
    embed = client.get(f"/{name}", params={"embed": "true"})
    assert "frame-ancestors *" in embed.headers["content-security-policy"]
    assert "x-frame-options" not in embed.headers
    twin = client.get(view.api_path)
    etag = twin.headers["etag"]
    assert "max-age" in twin.headers["cache-control"]
    assert client.get(view.api_path, headers={"if-none-match": etag}).status_code == 304


@pytest.mark.parametrize("name", [v.name for v in VIEWS if v.csv is not None])
def test_csv_twin_has_the_same_rows(client, name):
    view = BY_NAME[name]
    text = client.get(view.api_path + ".csv").text
    lines = text.strip().split("\n")
    header, rows = view.csv(client.get(view.api_path).json())
    assert len(lines) == len(rows) + 1
    assert lines[0].split(",")[0] == str(header[0])


def test_openapi_lists_every_twin(client):
    paths = client.get("/openapi.json").json()["paths"]
    for view in VIEWS:
        assert view.api_path in paths


def test_docs_page_is_self_hosted(client):
    docs = client.get("/docs")
    assert docs.status_code == 200
    for view in VIEWS:
        assert view.api_path in docs.text
    assert "cdn" not in docs.text.lower()


def test_plotly_is_served_from_the_installed_package(client):
    import plotly

    from app.settings import PLOTLY_JS

    assert PLOTLY_JS.is_relative_to(__import__("pathlib").Path(plotly.__file__).parent)
    response = client.get("/vendor/plotly.min.js", headers={"accept-encoding": "identity"})
    assert response.status_code == 200
    assert response.content == PLOTLY_JS.read_bytes()
    assert response.headers["content-type"].startswith("text/javascript")


def test_health_and_not_found(client):
    assert client.get("/healthz").json()["status"] == "ok"
    assert client.get("/api/nope").status_code == 404
    missing = client.get("/nope", headers={"accept": "text/html"})
    assert missing.status_code == 404 and "no such page" in missing.text


# A model's RoPE settings mean one thing with one default on every endpoint (issue 22: /spectrum's
# preset links gave 32 pairs on /api/rope/frequencies, /precision and /mrope assumed 128 dims).
# Written out, not read from the app: the table in app/web/fields.py is what is under test.
ONE_DEFAULT = {
    "head_dim": 64, "base": 10000.0, "partial_rotary_factor": 1.0, "rope_type": "default", "factor": 8.0,
    "original_max_position_embeddings": 4096, "max_position_embeddings": 4096,
    "attention_factor": 0.0, "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 0.0, "mscale_all_dim": 0.0,
    "truncate": True, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
}


def _default_of(field):
    from pydantic_core import PydanticUndefined

    if field.default is not PydanticUndefined:
        return field.default
    return field.default_factory({}) if field.default_factory.__code__.co_argcount else field.default_factory()


@pytest.mark.parametrize("name", NAMES)
def test_a_rope_setting_has_the_same_default_on_every_endpoint(client, name):
    view = BY_NAME[name]
    shared = {key: _default_of(field) for key, field in view.params.model_fields.items() if key in ONE_DEFAULT}
    assert shared == {key: ONE_DEFAULT[key] for key in shared}
    # and the twin answers with it where it echoes the setting (the method fields are echoed resolved)
    answer = client.get(view.api_path).json()
    echoed = {key: answer[key] for key in ("head_dim", "base", "partial_rotary_factor", "rope_type") if key in shared and key in answer}
    assert echoed == {key: ONE_DEFAULT[key] for key in echoed}


# ---- the lectures, under the same contract as the lessons -----------------------------------------

LECTURES = {name: len(lecture.steps) for name, lecture in lectures().items()}
LECTURE_PAGES = [
    path
    for name in LECTURES
    for path in (f"/lecture/{name}?step=2", f"/lecture/{name}/speaker?step=2&start=5", f"/lecture/{name}/handout")
] + ["/lectures"]
LECTURE_TWINS = ["/api/lectures"] + [f"/api/lectures/{name}" for name in LECTURES]


@pytest.mark.parametrize("path", LECTURE_PAGES)
def test_lecture_pages_have_the_page_headers_and_revalidate(client, path):
    page = client.get(path, headers={"accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-cache"
    again = client.get(path, headers={"accept": "text/html", "if-none-match": page.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize("path", LECTURE_TWINS)
def test_lecture_twins_are_cached_and_revalidate_like_the_views(client, path):
    twin = client.get(path)
    assert twin.status_code == 200 and twin.headers["content-type"].startswith("application/json")
    assert "max-age" in twin.headers["cache-control"]
    assert client.get(path, headers={"if-none-match": twin.headers["etag"]}).status_code == 304


def _lecture_cases():
    for name, steps in LECTURES.items():
        for where in (f"/lecture/{name}", f"/lecture/{name}/speaker"):
            for value, kind in ((steps + 1, "less_than_equal"), (0, "greater_than_equal"), ("abc", "int_parsing")):
                yield pytest.param(where, "step", value, kind, f"an integer ≥ 1 and ≤ {steps}", id=f"{where}-step-{value}")
        yield pytest.param(f"/lecture/{name}/speaker", "start", -1, "greater_than_equal", "an integer ≥ 0 and ≤ 10000000000000",
                           id=f"/lecture/{name}/speaker-start--1")


@pytest.mark.parametrize(("path", "field", "value", "kind", "allowed"), list(_lecture_cases()))
def test_a_refused_lecture_parameter_gets_the_views_422_naming_it(client, path, field, value, kind, allowed):
    answer = client.get(path, params={field: value}, headers={"accept": "application/json"})
    assert answer.status_code == 422 and answer.headers["content-type"].startswith("application/json")
    (item,) = answer.json()["detail"]
    assert item["param"] == field and item["loc"] == ["query", field] and item["type"] == kind
    assert item["allowed"] == allowed and item["input"] == str(value)
    page = client.get(path, params={field: value}, headers={"accept": "text/html"})
    assert page.status_code == 422 and f"{field}: " in page.text and allowed in page.text


@pytest.mark.parametrize("path", ["/lecture/nope", "/lecture/nope/speaker", "/lecture/nope/handout", "/api/lectures/nope"])
def test_an_unknown_lecture_is_a_404_naming_the_path(client, path):
    answer = client.get(path, headers={"accept": "application/json"})
    assert answer.status_code == 404
    (item,) = answer.json()["detail"]
    assert item["param"] == "path" and "no lecture 'nope'" in item["msg"]

"""Script payloads in every parameter of every page (and as unknown parameter names) are never
reflected unescaped; the page still renders, names the parameter, and its page-data block stays
valid JSON that holds the payload verbatim.  The JSON API answers them as JSON, never as HTML.

Parametrised over the view registry, so pages added later are covered without editing this file.
(tests/browser/test_injection.py checks the same payloads in a real browser: nothing executes.)
"""

from __future__ import annotations

import json
import re

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover

VIEWS = discover()
PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</script><script>alert(1)</script>",
    "javascript:alert(1)",
    "{{7*7}}",
    "'-alert(1)-'",
]
PAGE_DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)


def _fields(view) -> list[str]:
    return list(view.params.model_fields) + list(view.display.model_fields)


def _check_page(response, payload: str) -> dict:
    text = response.text
    assert response.status_code in (200, 422), text[:300]
    assert response.headers["content-type"].startswith("text/html")
    # exactly one page-data block, and it is valid JSON: no string in it can close the element
    blocks = PAGE_DATA.findall(text)
    assert len(blocks) == 1
    assert "<" not in blocks[0] and ">" not in blocks[0]  # written as \u003c / \u003e
    boot = json.loads(blocks[0])
    # the HTML around it never holds the payload raw: only escaped (&lt; &#34; &#39; …)
    html = PAGE_DATA.sub("", text)
    if any(ch in payload for ch in "<>\"'"):
        assert payload not in html
    assert "<img src=x" not in html and "<script>alert" not in html
    assert not re.search(r"""(href|src|action|formaction)\s*=\s*["']?\s*javascript:""", html, re.I)
    assert html.count("<script") == html.count("</script>")
    return boot


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("name", [view.name for view in VIEWS])
def test_payload_in_every_parameter_is_escaped(client, name, payload):
    view = next(view for view in VIEWS if view.name == name)
    fields = _fields(view)
    response = client.get(f"/{name}", params=dict.fromkeys(fields, payload))
    boot = _check_page(response, payload)
    named = {item["param"] for item in boot["errors"]}
    for field in fields:
        if field in named:
            # refused: named beside its control or in the page's error list; an echoed input is the
            # payload verbatim (a template expression is never evaluated)
            for item in boot["errors"]:
                if item["param"] == field and "input" in item:
                    assert item["input"] == payload
        else:
            # accepted as a value (a free-text field): the state holds it verbatim
            assert boot["state"][field] == payload or payload in json.dumps(boot["state"][field]), field
    assert response.status_code == 422


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("name", [view.name for view in VIEWS])
def test_payload_as_unknown_parameter_name_and_value_is_escaped(client, name, payload):
    response = client.get(f"/{name}", params={payload: payload, "x" + payload: "1"})
    boot = _check_page(response, payload)
    assert response.status_code == 422
    assert {item["param"] for item in boot["errors"]} >= {payload, "x" + payload}
    assert "Unknown parameter" in response.text


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("name", [view.name for view in VIEWS])
def test_payload_in_every_parameter_of_the_twin_is_answered_as_json(client, name, payload):
    view = next(view for view in VIEWS if view.name == name)
    fields = [*view.params.model_fields, payload]
    response = client.get(view.api_path, params=dict.fromkeys(fields, payload))
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert payload in {item["param"] for item in response.json()["detail"]}


@pytest.mark.parametrize("name", [view.name for view in VIEWS])
def test_payloads_in_the_embed_page_are_escaped(client, name):
    view = next(view for view in VIEWS if view.name == name)
    params = {field: PAYLOADS[i % len(PAYLOADS)] for i, field in enumerate(view.params.model_fields)}
    response = client.get(f"/{name}", params={**params, "embed": "true"})
    for payload in PAYLOADS:
        _check_page(response, payload)


def test_error_page_for_an_unknown_path_escapes_it(client):
    for payload in PAYLOADS:
        response = client.get("/" + payload, headers={"accept": "text/html"})
        assert response.status_code == 404
        if any(ch in payload for ch in "<>\"'"):
            assert payload not in response.text
        assert "<script>alert" not in response.text

"""One reading of a query (app/web/query.py): a lesson page and its JSON twin refuse the same values
with the same items, and read repeated names the same way."""

from __future__ import annotations

import json
import re

import pytest

BOOT = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.DOTALL)

REFUSED = [
    ("rotation", "/api/rope/plane", "m=999"),
    ("rotation", "/api/rope/plane", "m=abc&theta=-1"),
    ("rotation", "/api/rope/plane", "m=1&m=600"),  # the last value of a repeated scalar is the one read
    ("precision", "/api/rope/precision", "pairs=0&pairs=9999"),
    ("precision", "/api/rope/precision", "pairs=1,2"),
    ("scores", "/api/rope/scores", "content=random&seq_len=5000"),  # a rule between two fields
    ("spectrum", "/api/rope/spectrum", "rope_type=nope"),
]


def _page_errors(client, name: str, query: str) -> tuple[int, list[dict]]:
    page = client.get(f"/{name}?{query}")
    boot = BOOT.search(page.text)
    assert boot is not None, f"/{name}?{query} has no boot data"
    return page.status_code, json.loads(boot.group(1))["errors"]


@pytest.mark.parametrize(("name", "api", "query"), REFUSED)
def test_a_page_and_its_twin_refuse_a_value_with_the_same_item(client, name, api, query):
    answer = client.get(f"{api}?{query}")
    assert answer.status_code == 422
    status, problems = _page_errors(client, name, query)
    assert status == 422
    assert problems == answer.json()["detail"]
    assert all(item["loc"][0] == "query" for item in problems if item["param"])


@pytest.mark.parametrize(("name", "api", "query"), [
    ("rotation", "/api/rope/plane", "m=600&m=2"),
    ("precision", "/api/rope/precision", "pairs=3&pairs=1"),
])
def test_a_page_and_its_twin_read_repeated_names_alike(client, name, api, query):
    answer = client.get(f"{api}?{query}")
    status, problems = _page_errors(client, name, query)
    assert answer.status_code == status == 200 and problems == []
    state = json.loads(BOOT.search(client.get(f"/{name}?{query}").text).group(1))["state"]
    field, value = {"rotation": ("m", 2), "precision": ("pairs", [3, 1])}[name]
    assert state[field] == value
    assert answer.json()[field] == value

"""Edges of a server left running: bodies it cannot read (415), a list too long for the URL (414
naming it, tests/load/test_connections.py has the real server), large JSON compressed, and the API
docs built before the first reader."""

from __future__ import annotations

import gzip
import json

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.caching import JSON_GZIP_MAX_BYTES

BODY = json.dumps({"q": [1, 0], "k": [1, 0], "positions": [0, 2, 5, 7]}).encode()


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as test_client:  # with: the lifespan runs, as in the server
        yield test_client


def test_a_gzip_encoded_body_is_415_naming_content_encoding(client):
    reply = client.post(
        "/api/rope/rotate", content=gzip.compress(BODY), headers={"content-type": "application/json", "content-encoding": "gzip"}
    )
    assert reply.status_code == 415
    item = reply.json()["detail"][0]
    assert item["param"] == "content-encoding" and "uncompressed" in item["allowed"]


def test_a_body_without_content_type_is_415_saying_what_is_expected(client):
    reply = client.post("/api/rope/rotate", content=BODY)
    assert reply.status_code == 415
    item = reply.json()["detail"][0]
    assert item["param"] == "content-type" and "application/json" in item["allowed"]
    assert client.post("/api/rope/rotate", content=BODY, headers={"content-type": "application/json"}).status_code == 200


def test_json_over_a_mebibyte_is_gzipped_when_asked(client):
    """Between 1 MiB and JSON_GZIP_MAX_BYTES (3 MiB): compressed once, for ~10 ms per MiB."""
    url = "/api/sinusoidal/table?seq_len=256&dim=512"
    with client.stream("GET", url, headers={"accept-encoding": "gzip"}) as reply:
        sent = b"".join(reply.iter_raw())
    assert reply.headers["content-encoding"] == "gzip"
    inflated = gzip.decompress(sent)
    assert 1024 * 1024 < len(inflated) <= JSON_GZIP_MAX_BYTES and len(sent) < len(inflated) / 2
    assert json.loads(inflated)["seq_len"] == 256
    plain = client.get(url, headers={"accept-encoding": "identity"})  # a client that does not ask gets the same JSON uncompressed
    assert "content-encoding" not in plain.headers and plain.content == inflated


def test_the_api_docs_are_built_before_the_first_request(client):
    # the OpenAPI document exists once the app has started: the first reader does not pay for it
    assert client.app.openapi_schema is not None
    reply = client.get("/docs")
    assert reply.status_code == 200 and "/api/learned" in reply.text

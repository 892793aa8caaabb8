"""Repeated twin URLs are answered from the URL cache: same bytes and headers as the first answer,
per negotiated variant; revalidation still gives 304; failures are never cached."""

import gzip
import json

import pytest

from app.web.routing import URL_CACHE

COMPACT = "application/vnd.pe-explorer.compact+json"


@pytest.fixture(autouse=True)
def empty_cache():
    URL_CACHE.clear()
    yield
    URL_CACHE.clear()


def test_a_repeated_url_gets_the_same_response(client):
    url = "/api/sinusoidal/table?seq_len=20&dim=8"
    first = client.get(url)
    assert len(URL_CACHE.entries) == 1
    again = client.get(url)
    assert again.status_code == 200
    assert again.content == first.content
    for name in ("content-type", "etag", "cache-control", "vary", "content-security-policy", "x-content-type-options"):
        assert again.headers[name] == first.headers[name]
    # the numbers are those of an independent formula
    table = again.json()["table"]
    assert table[3][0] == pytest.approx(__import__("math").sin(3.0), abs=1e-15)


def test_variants_are_kept_apart(client):
    url = "/api/rope/scores?seq_len=200"
    plain = client.get(url, headers={"accept-encoding": "identity"})
    packed = client.get(url, headers={"accept": COMPACT, "accept-encoding": "identity"})
    zipped = client.get(url, headers={"accept": COMPACT, "accept-encoding": "gzip"})
    for _ in range(2):
        assert client.get(url, headers={"accept-encoding": "identity"}).content == plain.content
        again = client.get(url, headers={"accept": COMPACT, "accept-encoding": "identity"})
        assert again.content == packed.content and again.headers["content-type"].startswith(COMPACT)
        raw = client.get(url, headers={"accept": COMPACT, "accept-encoding": "gzip"})
        assert raw.headers.get("content-encoding") == "gzip" and raw.content == zipped.content
    assert plain.headers["content-type"].startswith("application/json") and '"bdata"' not in plain.text
    assert len(URL_CACHE.entries) == 3


def test_revalidation_gives_304_from_the_cache(client):
    url = "/api/rope/frequencies?head_dim=32"
    etag = client.get(url).headers["etag"]
    client.get(url)
    response = client.get(url, headers={"if-none-match": etag})
    assert response.status_code == 304
    assert response.headers["etag"] == etag
    assert response.content == b""


def test_failures_are_not_cached(client):
    for _ in range(2):
        response = client.get("/api/sinusoidal/table?seq_len=0")
        assert response.status_code == 422
        assert response.json()["detail"][0]["param"] == "seq_len"
    assert len(URL_CACHE.entries) == 0


def test_csv_export_repeats_identically(client):
    url = "/api/sinusoidal/table.csv?seq_len=4&dim=4"
    first = client.get(url)
    again = client.get(url)
    assert again.status_code == 200 and again.content == first.content
    assert again.headers["content-type"].startswith("text/csv")
    assert again.text.splitlines()[1].split(",")[0] == "0"

"""HTTP side of the CSV exports, the API-only operations (``routing.api_operation``) and the pages:
ETag and 304, Cache-Control, gzip made on demand (and not at all for multi-MB exports), bodies kept
for repeated requests."""

from __future__ import annotations

import pytest

from app.web import routing
from app.web.routing import GZIP_MAX_BYTES, RESPONSE_CACHE, URL_CACHE


@pytest.fixture(autouse=True)
def empty_caches():
    RESPONSE_CACHE.clear()
    URL_CACHE.clear()
    yield
    RESPONSE_CACHE.clear()
    URL_CACHE.clear()


def test_csv_export_is_cacheable_and_revalidates(client):
    url = "/api/rope/frequencies.csv?head_dim=64"
    first = client.get(url, headers={"accept-encoding": "identity"})
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert "max-age" in first.headers["cache-control"]
    assert first.headers["vary"] == "Accept-Encoding"
    again = client.get(url, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag


def test_csv_export_is_gzipped_once_on_demand(client):
    url = "/api/relative.csv?query_len=64&key_len=64"
    plain = client.get(url, headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and len(plain.content) > 1024
    (entry,) = [entry for key, entry in RESPONSE_CACHE.entries.items() if key[0] == "csv"]
    assert entry.gz is None  # nobody asked for gzip yet
    zipped = client.get(url, headers={"accept-encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content  # httpx inflated it
    assert zipped.headers["etag"] == plain.headers["etag"]
    assert entry.gz is not None and len(entry.gz) < len(entry.body)
    assert RESPONSE_CACHE.used == len(entry.body) + len(entry.gz)


def test_multi_megabyte_export_is_sent_uncompressed_and_kept(client, monkeypatch):
    url = "/api/sinusoidal/table.csv?seq_len=512&dim=512"
    first = client.get(url, headers={"accept-encoding": "gzip"})
    assert first.status_code == 200
    assert len(first.content) > GZIP_MAX_BYTES
    assert "content-encoding" not in first.headers  # too costly to compress (see routing.GZIP_MAX_BYTES)
    assert first.headers["vary"] == "Accept-Encoding"

    def fail(*args):
        raise AssertionError("the export was formatted again")

    monkeypatch.setattr(routing, "csv_bytes", fail)
    again = client.get(url, headers={"accept-encoding": "gzip"})
    assert again.content == first.content and again.headers["etag"] == first.headers["etag"]


def test_page_render_does_not_gzip_the_embedded_body(client):
    assert client.get("/sinusoidal?seq_len=64&dim=64").status_code == 200
    (entry,) = [entry for key, entry in RESPONSE_CACHE.entries.items() if key[0] == "sinusoidal"]
    assert entry.gz is None


@pytest.mark.parametrize(
    "url, field",
    [
        ("/api/relative/t5?num_buckets=32&max_offset=300", "num_buckets"),
        ("/api/relative/alibi?num_heads=8&seq_len=20", "num_heads"),
        ("/api/relative/shaw?query_len=50&key_len=60&max_relative_position=3", "query_len"),
    ],
)
def test_api_operations_are_cached_like_the_twins(client, url, field):
    first = client.get(url)
    assert first.status_code == 200
    assert first.headers["content-type"].startswith("application/json")
    assert "max-age" in first.headers["cache-control"]
    etag = first.headers["etag"]
    assert client.get(url, headers={"if-none-match": etag}).status_code == 304
    assert len(URL_CACHE.entries) == 1  # a repeated URL is answered before validation
    assert client.get(url).content == first.content
    bad = client.get(url.split("?")[0], params={field: -1})
    assert bad.status_code == 422
    assert any(item["param"] == field for item in bad.json()["detail"])


def test_pages_have_an_etag_and_revalidate(client):
    page = client.get("/sinusoidal?seq_len=20&dim=8")
    assert page.status_code == 200
    etag = page.headers["etag"]
    assert page.headers["cache-control"] == "no-cache"
    same = client.get("/sinusoidal?seq_len=20&dim=8", headers={"if-none-match": etag})
    assert same.status_code == 304 and same.content == b""
    assert same.headers["etag"] == etag and "content-security-policy" in same.headers
    other = client.get("/sinusoidal?seq_len=21&dim=8", headers={"if-none-match": etag})
    assert other.status_code == 200 and other.headers["etag"] != etag

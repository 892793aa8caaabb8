"""HTTP caching of every GET answer (app/web/caching.py): one response cache of finished bodies,
gzip decided once per body, an ETag per encoding, one Vary, 304 on revalidation; failures never kept."""

from __future__ import annotations

import gzip

import pytest

from app.web import caching, routing
from app.web.caching import JSON_GZIP_MAX_BYTES, RESPONSE_CACHE
from app.web.views import REGISTRY

COMPACT = "application/vnd.pe-explorer.compact+json"
GZIP = {"accept-encoding": "gzip"}
IDENTITY = {"accept-encoding": "identity"}


@pytest.fixture(autouse=True)
def empty_cache():
    RESPONSE_CACHE.clear()
    yield
    RESPONSE_CACHE.clear()


def raw(client, url, headers):
    """The bytes as sent (httpx would inflate gzip)."""
    with client.stream("GET", url, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def test_gzip_and_identity_have_their_own_etags(client):
    url = "/api/rope/scores?seq_len=100"
    zipped, body = raw(client, url, GZIP)
    plain, text = raw(client, url, IDENTITY)
    assert zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert gzip.decompress(body) == text
    assert zipped.headers["etag"] != plain.headers["etag"]
    # Origin: a request that sends one gets Access-Control-Allow-Origin (CORS for reading, app/main.py).
    assert zipped.headers["vary"] == plain.headers["vary"] == "Accept, Accept-Encoding, Origin"
    # Each client revalidates its own representation; the other's tag is not a match.
    assert client.get(url, headers={**GZIP, "if-none-match": zipped.headers["etag"]}).status_code == 304
    assert client.get(url, headers={**IDENTITY, "if-none-match": plain.headers["etag"]}).status_code == 304
    assert client.get(url, headers={**IDENTITY, "if-none-match": zipped.headers["etag"]}).status_code == 200


def test_if_none_match_lists_and_weak_tags(client):
    url = "/api/rope/frequencies?head_dim=32"
    etag = client.get(url, headers=IDENTITY).headers["etag"]
    for header in (f'"other", {etag}', f"W/{etag}", "*"):
        response = client.get(url, headers={**IDENTITY, "if-none-match": header})
        assert response.status_code == 304 and response.content == b"" and response.headers["etag"] == etag
        assert "content-security-policy" in response.headers


def test_a_body_is_made_once_and_gzipped_once(client, monkeypatch):
    url = "/api/relative.csv?query_len=64&key_len=64"
    made, compressed = [], []
    csv_bytes, gzipped = routing.csv_bytes, caching.gzipped
    monkeypatch.setattr(routing, "csv_bytes", lambda *a: made.append(1) or csv_bytes(*a))
    monkeypatch.setattr(caching, "gzipped", lambda rep: compressed.append(1) or gzipped(rep))
    first = client.get(url, headers=IDENTITY)
    assert compressed == []  # nobody asked for gzip yet
    for _ in range(3):
        again = client.get(url, headers=GZIP)
        assert again.headers["content-encoding"] == "gzip" and again.content == first.content
    assert made == [1] and compressed == [1]
    assert RESPONSE_CACHE.used >= len(first.content)


def test_a_large_json_answer_is_never_compressed_per_request(client, monkeypatch):
    # 5 MB of JSON: above JSON_GZIP_MAX_BYTES, so sent as it is (compressing would cost more than the
    # request may); no middleware compresses it behind the route's back on every repeat.
    url = "/api/sinusoidal/table?seq_len=256&dim=1024&layout=concatenated"
    first, body = raw(client, url, GZIP)
    assert len(body) > JSON_GZIP_MAX_BYTES and "content-encoding" not in first.headers
    monkeypatch.setattr(caching.gzip, "compress", lambda *a, **k: pytest.fail("compressed again"))
    monkeypatch.setattr(routing, "dumps", lambda *a: pytest.fail("serialised again"))
    again, body_again = raw(client, url, GZIP)
    assert body_again == body and again.headers["etag"] == first.headers["etag"]
    assert again.headers["vary"] == "Accept, Accept-Encoding, Origin"  # once each, not repeated by a middleware


def test_compact_variant_is_kept_apart(client):
    url = "/api/rope/scores?seq_len=200"
    plain = client.get(url, headers=IDENTITY)
    packed = client.get(url, headers={"accept": COMPACT, **IDENTITY})
    assert packed.headers["content-type"].startswith(COMPACT) and '"bdata"' in packed.text
    assert plain.headers["content-type"].startswith("application/json") and '"bdata"' not in plain.text
    assert packed.headers["etag"] != plain.headers["etag"]
    assert client.get(url, headers=IDENTITY).content == plain.content


def test_failures_are_not_cached(client):
    for _ in range(2):
        response = client.get("/api/sinusoidal/table?seq_len=0")
        assert response.status_code == 422
        assert response.json()["detail"][0]["param"] == "seq_len"
        assert "etag" not in response.headers
    assert RESPONSE_CACHE.used == 0


def test_the_cache_is_bounded_in_bytes():
    cache = caching.ResponseCache(100_000)
    for i in range(50):
        cache.put(i, caching.identity(bytes(5000), "application/json", "json"))
    assert cache.used <= 100_000 and cache.get(49) is not None and cache.get(0) is None
    huge = caching.identity(bytes(20_000), "application/json", "json")  # over an eighth: served, not kept
    assert cache.put("huge", huge) is huge and cache.get("huge") is None


def test_csv_export_is_cacheable_and_revalidates(client):
    url = "/api/rope/frequencies.csv?head_dim=64"
    first = client.get(url, headers=IDENTITY)
    assert first.status_code == 200 and "max-age" in first.headers["cache-control"]
    assert first.headers["vary"] == "Accept-Encoding, Origin"  # Origin: CORS for reading (app/main.py)
    again = client.get(url, headers={**IDENTITY, "if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]


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
    assert first.status_code == 200 and first.headers["content-type"].startswith("application/json")
    assert "max-age" in first.headers["cache-control"]
    assert client.get(url, headers={"if-none-match": first.headers["etag"]}).status_code == 304
    assert client.get(url).content == first.content
    bad = client.get(url.split("?")[0], params={field: -1})
    assert bad.status_code == 422 and any(item["param"] == field for item in bad.json()["detail"])


def test_pages_have_an_etag_and_revalidate(client):
    page = client.get("/sinusoidal?seq_len=20&dim=8")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-cache"
    etag = page.headers["etag"]
    same = client.get("/sinusoidal?seq_len=20&dim=8", headers={"if-none-match": etag})
    assert same.status_code == 304 and same.content == b""
    assert same.headers["etag"] == etag and "content-security-policy" in same.headers
    other = client.get("/sinusoidal?seq_len=21&dim=8", headers={"if-none-match": etag})
    assert other.status_code == 200 and other.headers["etag"] != etag


def test_page_render_does_not_gzip_the_embedded_body(client):
    assert client.get("/sinusoidal?seq_len=64&dim=64", headers=GZIP).status_code == 200
    keys = list(RESPONSE_CACHE.entries)
    assert (routing.json_key("sinusoidal", REGISTRY["sinusoidal"].params(seq_len=64, dim=64)), None) in keys
    assert not any(key[0][0] == "json" and key[1] == "gzip" for key in keys)


@pytest.mark.parametrize("path", ["/static/css/app.css", "/vendor/plotly.min.js", "/", "/docs", "/openapi.json"])
def test_static_files_and_fixed_pages_revalidate_per_encoding(client, path):
    zipped, body = raw(client, path, GZIP)
    plain, text = raw(client, path, IDENTITY)
    assert zipped.status_code == plain.status_code == 200
    assert zipped.headers["content-encoding"] == "gzip" and gzip.decompress(body) == text
    assert zipped.headers["etag"] != plain.headers["etag"]
    for response, headers in ((zipped, GZIP), (plain, IDENTITY)):
        assert client.get(path, headers={**headers, "if-none-match": response.headers["etag"]}).status_code == 304

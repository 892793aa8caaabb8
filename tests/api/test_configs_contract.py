"""One parameter contract: a name has one default on the endpoints that share it, a default that
depends on another parameter follows it, and a comma list is refused with the way to write it."""

from __future__ import annotations

import pytest

from app.views.ladder import LadderParams
from app.views.spectrum import SpectrumParams

# seq_len is the one shared name whose default differs, and says so in both descriptions: on the
# ladder it is transformers' optional current length (0 = not given, the inv_freq at model init); on
# the spectrum every curve is drawn at it, so it has a value (the target length T).
DIFFERENT_BY_DESIGN = {"seq_len"}


def test_ladder_and_spectrum_give_each_shared_name_one_default():
    ladder, spectrum = LadderParams(), SpectrumParams()
    shared = (set(LadderParams.model_fields) & set(SpectrumParams.model_fields)) - DIFFERENT_BY_DESIGN
    assert {"head_dim", "rope_type", "factor", "base", "original_max_position_embeddings"} <= shared
    assert {name: getattr(spectrum, name) for name in shared} == {name: getattr(ladder, name) for name in shared}


def test_a_query_means_the_same_on_both_endpoints(client):
    query = "rope_type=yarn&original_max_position_embeddings=4096&seq_len=32768"
    ladder = client.get("/api/rope/frequencies?" + query).json()
    spectrum = client.get("/api/rope/spectrum?" + query).json()
    assert spectrum["selected"]["inv_freq"] == ladder["inv_freq"] and len(ladder["inv_freq"]) == 32


@pytest.mark.parametrize(
    "query, pairs",
    [
        ("", [0, 8, 20, 31]),  # the shared head_dim 64, 32 pairs: 0, P/4, 5P/8, P−1
        ("head_dim=128&partial_rotary_factor=0.25", [0, 4, 10, 15]),
        ("seq_len=524288", [0]),  # seq_len × pairs ≤ 2^19: one pair
        ("head_dim=128", [0, 16, 40, 63]),  # Llama 3's head: the four pairs chosen for it
    ],
)
def test_precision_default_pairs_follow_head_dim_and_length(client, query, pairs):
    response = client.get("/api/rope/precision?" + query)
    assert response.status_code == 200, response.text
    assert response.json()["pairs"] == pairs


@pytest.mark.parametrize("head_dim, section", [(64, (8, 12, 12)), (128, (16, 24, 24)), (80, (10, 15, 15)), (2, (0, 0, 1))])
def test_mrope_default_section_follows_head_dim(client, head_dim, section):
    response = client.get(f"/api/rope/mrope?head_dim={head_dim}")
    assert response.status_code == 200, response.text
    data = response.json()
    assert tuple(data["mrope_section"]) == section and sum(section) == head_dim // 2
    assert tuple(data["axis"].count(name) for name in ("t", "h", "w")) == section


@pytest.mark.parametrize("path, name", [("/api/rope/precision?pairs=0,5", "pairs"), ("/api/rope/mrope?mrope_section=16,24,24", "mrope_section")])
def test_a_comma_list_is_refused_saying_to_repeat_the_name(client, path, name):
    response = client.get(path)
    assert response.status_code == 422
    item = response.json()["detail"][0]
    assert item["param"] == name
    first, second = path.split("=", 1)[1].split(",")[:2]
    assert f"{name}={first}&{name}={second}" in item["msg"] and "repeat" in item["msg"]


@pytest.mark.parametrize(
    "path, field, value",
    [
        ("/api/rope/mrope?grid_h=1", "key_row", 0),  # a one-row grid: both patches on row 0
        ("/api/rope/mrope?grid_w=3", "key_col", 2),
        ("/api/rope/calculator?low_freq_factor=8", None, None),
        ("/api/rope/frequencies?rope_type=llama3&low_freq_factor=8", "high_freq_factor", 8.0),
    ],
)
def test_no_default_is_refused_for_another_parameter(client, path, field, value):
    response = client.get(path)
    assert response.status_code == 200, response.text
    if field == "high_freq_factor":
        assert response.json()["resolved"]["high_freq_factor"] == value
    elif field:
        assert response.json()[field] == value


# The method-specific scaling fields, written out: both models list them last, in this order (the
# cross-field rules read rope_type before them, and a link lists its parameters in this order).
METHOD_FIELDS = [
    "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate", "low_freq_factor",
    "high_freq_factor", "short_factor", "long_factor", "pairing", "latent_attention", "query_scale_beta",
    "query_scale_interval", "query_scale_offset",
]


@pytest.mark.parametrize("path", ["/api/rope/frequencies", "/api/rope/spectrum"])
def test_the_method_fields_come_last_in_one_order(client, path):
    parameters = [p["name"] for p in client.get("/openapi.json").json()["paths"][path]["get"]["parameters"]]
    assert parameters[-len(METHOD_FIELDS):] == METHOD_FIELDS
    assert {"rope_type", "factor", "original_max_position_embeddings", "max_position_embeddings", "seq_len"} <= set(parameters)


def test_the_spectrum_page_draws_the_scaling_fields_and_the_ladder_page_none(client):
    spectrum, ladder = client.get("/spectrum").text, client.get("/ladder").text
    for name in ["rope_type", "factor", "original_max_position_embeddings", "max_position_embeddings", *METHOD_FIELDS]:
        assert f'data-param="{name}"' in spectrum, name
        assert f'data-param="{name}"' not in ladder, name
    assert 'data-param="seq_len"' in spectrum and 'data-param="seq_len"' not in ladder
    assert 'data-param="head_dim"' in ladder

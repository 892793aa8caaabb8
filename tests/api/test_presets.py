"""GET /api/rope/presets, and preset links that carry every parameter.

A preset's link must draw the same configuration on /api/rope/frequencies and /api/rope/spectrum
as the config.json itself gives through POST /api/rope/frequencies, whatever either endpoint's
defaults are.  Expected pair counts and scaling come from the published configs (Llama 3.1 8B:
4096 / 32 heads = 128 dims, 64 pairs; gpt-oss-20b: YaRN with factor 32).
"""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest

from app.views.presets import PresetsAnswer


@pytest.fixture(scope="module")
def presets(client):
    response = client.get("/api/rope/presets")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    body = response.json()
    PresetsAnswer.model_validate(body)  # the declared answer
    return {preset["name"]: preset for preset in body["presets"]}


def test_every_preset_link_is_its_config_on_the_ladder(client, presets):
    assert len(presets) >= 19
    for name, preset in presets.items():
        length = preset["parameters"].get("seq_len")  # the advertised context, when the config gives one
        posted = client.post("/api/rope/frequencies" + (f"?seq_len={length}" if length else ""), json=preset["config"]).json()
        ladder = client.get(preset["links"]["frequencies"]).json()
        assert ladder["inv_freq"] == posted["inv_freq"], name
        assert ladder["attention_factor"] == posted["attention_factor"], name
        # The typed parameters are the link's query, value for value.
        query = parse_qsl(urlsplit(preset["links"]["frequencies"]).query)
        assert [(k, v) for k, v in query] == [tuple(item) for item in preset["query"]]
        assert set(preset["parameters"]) == {k for k, _ in query}
    llama = client.get(presets["Llama 3.1 8B"]["links"]["frequencies"]).json()
    assert len(llama["inv_freq"]) == 64 and llama["rope_type"] == "llama3" and llama["resolved"]["factor"] == 8.0
    oss = client.get(presets["gpt-oss-20b (YaRN)"]["links"]["frequencies"]).json()
    assert oss["rope_type"] == "yarn" and oss["resolved"]["factor"] == 32.0 and oss["resolved"]["truncate"] is False
    assert len(oss["inv_freq"]) == 32


@pytest.mark.parametrize("name", ["Llama 3.1 8B", "gpt-oss-20b (YaRN)", "Phi-3 mini 128k (LongRoPE)"])
def test_preset_link_is_the_same_configuration_on_the_spectrum(client, presets, name):
    preset = presets[name]
    ladder = client.get(preset["links"]["frequencies"]).json()
    spectrum = client.get(preset["links"]["spectrum_api"]).json()
    assert spectrum["selected"]["inv_freq"] == ladder["inv_freq"]
    assert spectrum["rope_type"] == ladder["rope_type"] == preset["rope_type"]


def test_the_page_links_are_the_listed_ones(client, presets):
    page = client.get("/spectrum").text
    hrefs = {
        unescape(name): unescape(href) for href, name in re.findall(r'<a href="([^"]+)" data-preset="([^"]+)"', page)
    }
    assert hrefs == {name: preset["links"]["spectrum"] for name, preset in presets.items()}


def test_presets_report_what_the_config_says(presets):
    scout = presets["Llama 4 Scout (RoPE and NoPE layers)"]
    assert scout["layers"]["nope_layers"] == list(range(3, 48, 4))
    gemma = presets["Gemma 3 4B (sliding and full layers)"]
    assert {s["layer_type"]: s["rope_theta"] for s in gemma["settings"]} == {"full_attention": 1e6, "sliding_attention": 1e4}
    assert presets["Qwen2.5-VL 7B (M-RoPE)"]["mrope"]["mrope_section"] == [16, 24, 24]
    assert presets["Qwen2.5-VL 7B (M-RoPE)"]["links"]["mrope"] == "/mrope"
    assert any("rope_theta not given" in note for note in presets["Llama 2 7B"]["notes"])


def test_presets_take_no_parameters(client):
    response = client.get("/api/rope/presets?name=llama")
    assert response.status_code == 422 and response.json()["detail"][0]["param"] == "name"

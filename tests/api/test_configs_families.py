"""POST /api/rope/frequencies for the shapes of issue 38: what the answer says about the family
(pairing, latent attention, query scale) and that its links carry it to the GET twins.

Expected numbers are formulas written from each model's reference code (cited), not the app's output.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest

from tests.core.test_hf_shapes import CHATGLM3_32K, MINISTRAL3, PHI2_MSFT


def test_ministral3_answer(client):
    body = client.post("/api/rope/frequencies", json=MINISTRAL3).json()
    assert body["softmax_scale_multiplier"] is None  # plain 1/sqrt(head_dim) attention (modeling_ministral3.py)
    assert body["latent_attention"] is False
    assert body["attention_factor"] == 1.0  # get_mscale(16, 1) / get_mscale(16, 1)
    assert (body["pairing"], body["pairing_known"]) == ("half", True)
    scale = body["query_scale"]
    # _get_llama_4_attn_scale: 1 + beta * log(1 + floor(pos / original_max_position_embeddings)).
    assert scale["at_max_length"] == pytest.approx(1 + 0.1 * math.log(1 + math.floor(262143 / 16384)), rel=1e-15)
    assert (scale["beta"], scale["interval"], scale["offset"], scale["where"]) == (
        0.1, 16384, 0, "text_config.rope_parameters.llama_4_scaling_beta")
    assert not any("llama_4_scaling_beta is not a RoPE parameter" in note for note in body["notes"])
    # The links carry the family: the GET twins answer the same scale and no multiplier.
    for link in (body["links"]["api"], body["links"]["spectrum"].replace("/spectrum?", "/api/rope/spectrum?")):
        query = dict(parse_qsl(urlsplit(link).query))
        assert (query["pairing"], query["query_scale_beta"], query["query_scale_interval"], query["query_scale_offset"]) == (
            "half", "0.1", "16384", "0")
        assert "latent_attention" not in query
        twin = client.get(link).json()
        assert twin["pairing"] == "half"
        assert twin["query_scale"]["at_max_length"] == pytest.approx(scale["at_max_length"], rel=1e-15)
        assert twin.get("selected", twin)["softmax_scale_multiplier"] is None
    spectrum = client.get(body["links"]["spectrum"].replace("/spectrum?", "/api/rope/spectrum?")).json()["query_scale"]
    want = [1 + 0.1 * math.log(1 + math.floor(p / 16384)) for p in spectrum["position"]]
    np.testing.assert_allclose(spectrum["scale"], want, rtol=1e-15)
    assert spectrum["position"][:3] == [0, 16384, 32768]


def test_kimi_k2_keeps_the_deepseek_multiplier(client):
    from tests.api.test_configs_published import KIMI_K2

    body = client.post("/api/rope/frequencies", json=KIMI_K2).json()
    # modeling_deepseek_v3.py yarn_get_mscale(32, 1.0) ** 2 on the softmax scale.
    assert body["softmax_scale_multiplier"] == pytest.approx((0.1 * math.log(32) + 1) ** 2, rel=1e-14)
    assert body["latent_attention"] is True and body["pairing"] == "interleaved"
    query = dict(parse_qsl(urlsplit(body["links"]["api"]).query))
    assert query["latent_attention"] == "true"
    assert client.get(body["links"]["api"]).json()["softmax_scale_multiplier"] == pytest.approx(body["softmax_scale_multiplier"], rel=1e-15)


def test_chatglm_and_phi_msft_answers(client):
    glm = client.post("/api/rope/frequencies", json=CHATGLM3_32K).json()
    # modeling_chatglm.py: 1 / ((10000 * rope_ratio) ** (arange(0, 64, 2) / 64)), 32 adjacent pairs.
    np.testing.assert_allclose(glm["inv_freq"], 1 / (500000.0 ** (np.arange(0, 64, 2) / 64)), rtol=1e-15)
    assert (glm["rotary_dim"], glm["pairing"]) == (64, "interleaved")
    phi = client.post("/api/rope/frequencies", json=PHI2_MSFT)
    assert phi.status_code == 200, phi.text
    assert (phi.json()["rotary_dim"], phi.json()["pairing"]) == (32, "half")


@pytest.mark.parametrize(
    "body, pairing, known",
    [
        ({"model_type": "llama", "head_dim": 128}, "half", True),
        ({"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64}, "interleaved", True),
        ({"model_type": "llama4_text", "head_dim": 128}, "interleaved", True),
        ({"model_type": "glm", "head_dim": 128, "partial_rotary_factor": 0.5}, "interleaved", True),
        ({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64}, "interleaved", True),
        ({"model_type": "someone_elses", "head_dim": 64}, "half", False),
    ],
)
def test_pairing_in_every_answer(client, body, pairing, known):
    answer = client.post("/api/rope/frequencies", json=body).json()
    assert (answer["pairing"], answer["pairing_known"]) == (pairing, known)
    assert all(dict(setting["query"])["pairing"] == pairing for setting in answer["settings"])
    assert client.get(answer["links"]["api"]).json()["pairing"] == pairing
    if not known:
        assert any("someone_elses" in note for note in answer["notes"])


def test_get_answers_say_pairing(client):
    assert client.get("/api/rope/frequencies").json()["pairing"] == "half"
    assert client.get("/api/rope/spectrum?pairing=interleaved").json()["pairing"] == "interleaved"
    bad = client.get("/api/rope/frequencies?pairing=diagonal")
    assert bad.status_code == 422 and "pairing" in bad.text

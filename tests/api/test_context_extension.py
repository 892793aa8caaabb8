"""API of the context-extension views: GET/POST /api/rope/frequencies, spectrum, precision, calculator."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest

DATA = json.loads((Path(__file__).parents[1] / "reference" / "data" / "rope_init.json").read_text())
BY_ID = {case["id"] + f"/{case['seq_len']}": case for case in DATA["cases"]}

LLAMA31: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "model_type": "llama",
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}


def theta(r, base):
    return np.array([base ** (-2 * j / r) for j in range(r // 2)])


# ---- GET /api/rope/frequencies ------------------------------------------------------------------


def test_get_defaults_unchanged(client):
    body = client.get("/api/rope/frequencies").json()
    assert body["head_dim"] == 64 and body["base"] == 10000.0 and body["context_len"] == 4096
    np.testing.assert_allclose(body["inv_freq"], theta(64, 1e4), rtol=1e-13)
    np.testing.assert_allclose(body["wavelength"], 2 * math.pi / theta(64, 1e4), rtol=1e-13)
    assert body["rope_type"] == "default" and body["attention_factor"] == 1.0
    assert body["scale"] == [1.0] * 32


def test_get_scaling_matches_transformers(client):
    case = next(c for c in DATA["cases"] if c["id"] == "llama3/d128/theta500000/s8/L08192/low1/high4")
    query = "head_dim=128&base=500000&rope_type=llama3&factor=8&original_max_position_embeddings=8192&max_position_embeddings=65536"
    body = client.get("/api/rope/frequencies?" + query).json()
    np.testing.assert_allclose(body["inv_freq"], case["inv_freq"], rtol=1e-6)
    yarn = next(c for c in DATA["cases"] if c["id"] == "yarn/d64/theta10000/s4/L04096/truncateFalse")
    query = "head_dim=64&rope_type=yarn&factor=4&original_max_position_embeddings=4096&truncate=false"
    body = client.get("/api/rope/frequencies?" + query).json()
    np.testing.assert_allclose(body["inv_freq"], yarn["inv_freq"], rtol=1e-6)
    assert body["attention_factor"] == pytest.approx(yarn["attention_factor"], rel=1e-12)


def test_get_longrope_lists_as_repeated_keys(client):
    case = next(c for c in DATA["cases"] if c["rope_type"] == "longrope" and c["id"].startswith("longrope/d8/theta10000/s4/L04096") and c["seq_len"] == 4097)
    rp = case["config"]["rope_parameters"]
    items = [("head_dim", 8), ("rope_type", "longrope"), ("factor", rp["factor"]), ("original_max_position_embeddings", 4096),
             ("max_position_embeddings", case["config"]["max_position_embeddings"]), ("seq_len", 4097)]
    items += [("short_factor", v) for v in rp["short_factor"]] + [("long_factor", v) for v in rp["long_factor"]]
    body = client.get("/api/rope/frequencies?" + urlencode(items)).json()
    np.testing.assert_allclose(body["inv_freq"], case["inv_freq"], rtol=1e-6)


@pytest.mark.parametrize(
    "query, param",
    [
        ("rope_type=magic", "rope_type"),
        ("rope_type=linear&factor=0.5", "factor"),
        ("rope_type=llama3&low_freq_factor=4&high_freq_factor=2", "high_freq_factor"),
        ("rope_type=longrope&short_factor=1&long_factor=1", "short_factor"),
        ("rope_type=dynamic&head_dim=2", "rope_type"),
        ("seq_len=-1", "seq_len"),
        ("beta_fast=abc", "beta_fast"),
        ("rope_type=yarn&beta_fast=1&beta_slow=4", "beta_slow"),
        ("bogus=1", "bogus"),
    ],
)
def test_get_bad_input_names_the_parameter(client, query, param):
    response = client.get("/api/rope/frequencies?" + query)
    assert response.status_code == 422
    assert param in [item["param"] for item in response.json()["detail"]]


# ---- POST /api/rope/frequencies -------------------------------------------------------------------


def test_post_llama31_config_json(client):
    response = client.post("/api/rope/frequencies", json=LLAMA31)
    assert response.status_code == 200
    body = response.json()
    th = theta(128, 5e5)
    scale = np.asarray(body["inv_freq"]) / th
    assert np.allclose(scale[:29], 1.0) and np.allclose(scale[35:], 1 / 8)
    assert body["attention_factor"] == 1.0 and len(body["inv_freq"]) == 64
    np.testing.assert_allclose(body["scale"], scale, rtol=1e-12)
    assert body["resolved"]["rope_type"] == "llama3" and body["resolved"]["original_max_position_embeddings"] == 8192
    again = client.get(body["links"]["api"]).json()  # the shareable GET gives the same numbers
    np.testing.assert_allclose(again["inv_freq"], body["inv_freq"], rtol=0)


def test_post_rope_parameters_form_and_type_key(client):
    v5 = {"head_dim": 64, "max_position_embeddings": 16384,
          "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 4096}}
    old = {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 16384,
           "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}}
    a = client.post("/api/rope/frequencies", json=v5).json()
    b = client.post("/api/rope/frequencies", json=old).json()
    case = next(c for c in DATA["cases"] if c["id"] == "yarn/d64/theta10000/s4/L04096")
    np.testing.assert_allclose(a["inv_freq"], case["inv_freq"], rtol=1e-6)
    np.testing.assert_allclose(b["inv_freq"], case["inv_freq"], rtol=1e-6)
    assert a["attention_factor"] == b["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1)


def test_post_phi3_su_reads_longrope_and_seq_len_switches(client):
    config = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
              "original_max_position_embeddings": 4096,
              "rope_scaling": {"type": "su", "short_factor": [1.0] * 48, "long_factor": [4.0] * 48, "original_max_position_embeddings": 4096}}
    short = client.post("/api/rope/frequencies", json=config).json()
    long = client.post("/api/rope/frequencies?seq_len=4097", json=config).json()
    assert short["rope_type"] == "longrope"
    np.testing.assert_allclose(short["inv_freq"], theta(96, 1e4), rtol=1e-12)
    np.testing.assert_allclose(long["inv_freq"], theta(96, 1e4) / 4, rtol=1e-12)
    assert short["attention_factor"] == pytest.approx(1.1902381, abs=5e-8)


def test_post_ignores_unrelated_keys(client):
    body = client.post("/api/rope/frequencies", json={**LLAMA31, "bos_token_id": 1, "some_future_key": {"a": 1}}).json()
    assert len(body["inv_freq"]) == 64


@pytest.mark.parametrize(
    "config, param",
    [
        ({**LLAMA31, "rope_scaling": {**LLAMA31["rope_scaling"], "rope_type": "llama4"}}, "rope_scaling.rope_type"),
        ({**LLAMA31, "rope_scaling": {k: v for k, v in LLAMA31["rope_scaling"].items() if k != "low_freq_factor"}}, "rope_scaling.low_freq_factor"),
        ({"num_attention_heads": 32, "rope_theta": 1e4}, "head_dim"),
        ({**LLAMA31, "rope_scaling": {**LLAMA31["rope_scaling"], "factor": "eight"}}, "rope_scaling.factor"),
        ({**LLAMA31, "rope_theta": 0.5}, "rope_theta"),
    ],
)
def test_post_bad_config_names_the_field(client, config, param):
    response = client.post("/api/rope/frequencies", json=config)
    assert response.status_code == 422
    assert response.json()["detail"][0]["param"] == param


def test_post_body_must_be_a_json_object(client):
    assert client.post("/api/rope/frequencies", json=[1, 2]).status_code == 422
    bad = client.post("/api/rope/frequencies", content=b"{not json", headers={"content-type": "application/json"})
    assert bad.status_code == 422


# ---- spectrum, precision, calculator -------------------------------------------------------------


def test_spectrum_defaults(client):
    # The defaults of /api/rope/frequencies (one parameter contract): head_dim 64, rope_type 'default'.
    body = client.get("/api/rope/spectrum").json()
    assert body["rope_type"] == "default" and body["rotary_dim"] == 64
    assert body["selected"]["scale"] == [1.0] * 32
    yarn = body["methods"]["yarn"]
    case = next(c for c in DATA["cases"] if c["id"] == "yarn/d64/theta10000/s8/L04096")
    np.testing.assert_allclose(yarn["inv_freq"], case["inv_freq"], rtol=1e-6)
    # HF's correction dims: floor / ceil of d·ln(L/(2π·β)) / (2 ln b) for β = 32 and 1.
    dim = lambda beta: 64 * math.log(4096 / (2 * math.pi * beta)) / (2 * math.log(10000))
    assert body["ramp"]["correction_range"] == [math.floor(dim(32)), math.ceil(dim(1))] == [10, 23]
    assert body["methods"]["longrope"]["available"] is False  # no factor lists given
    np.testing.assert_allclose(body["methods"]["linear"]["scale"], 1 / 8, rtol=1e-12)


def test_spectrum_llama3_bands_and_csv(client):
    query = "head_dim=128&base=500000&rope_type=llama3&original_max_position_embeddings=8192&max_position_embeddings=131072&seq_len=131072"
    body = client.get("/api/rope/spectrum?" + query).json()
    bands = body["llama3_bands"]
    assert (bands["kept"], bands["smoothed"], bands["divided"]) == (29, 6, 29)
    csv = client.get("/api/rope/spectrum.csv?" + query)
    assert csv.status_code == 200 and csv.text.count("\n") == 65


def test_precision_defaults_and_bad_pairs(client):
    body = client.get("/api/rope/precision?head_dim=128").json()
    assert body["pairs"] == [0, 16, 40, 63] and 0 < len(body["column_start"]) <= 600
    pair0 = body["curves"][0]["dtypes"]
    assert pair0["bfloat16"]["first_collision"] == 256 and pair0["float16"]["first_collision"] == 2048
    assert client.get("/api/rope/precision?head_dim=64&pairs=40").status_code == 422
    assert client.get("/api/rope/precision?pairs=1&pairs=2&pairs=3&pairs=4&pairs=5").status_code == 422



def test_precision_answers_do_not_depend_on_earlier_ones(client):
    """Pairs met in an earlier answer (θ_0 = 1 on every head, θ = base^(-1/4) on heads with P
    divisible by 4) are not computed again: every answer still equals each pair computed alone."""
    from app.core.frequencies import inverse_frequencies
    from app.core.precision import DTYPES, error_envelopes, first_collision
    from app.web.responses import dumps

    as_json = lambda values: json.loads(dumps(np.asarray(values, dtype=np.float32)))
    for query in ("head_dim=64", "head_dim=66", "head_dim=64&seq_len=5000", "head_dim=128&pairs=0&pairs=0&pairs=16", "head_dim=128"):
        body = client.get(f"/api/rope/precision?{query}").json()
        theta = inverse_frequencies(body["rotary_dim"], body["base"])
        for curve in body["curves"]:
            alone = error_envelopes(body["seq_len"], [theta[curve["pair"]]], len(body["column_start"]))[0]
            for dtype in DTYPES:
                got = curve["dtypes"][dtype]
                assert got["angle_error_max"] == as_json(alone[dtype]["angle"]), (query, curve["pair"], dtype)
                assert got["score_error_max"] == as_json(alone[dtype]["score"]), (query, curve["pair"], dtype)
                assert got["largest_angle_error"] == alone[dtype]["largest_angle"]
                assert got["first_collision"] == first_collision(float(theta[curve["pair"]]), dtype, (1 << 24) + 1)

def test_calculator(client):
    body = client.get("/api/rope/calculator?head_dim=128&base=500000&original_max_position_embeddings=8192&seq_len=65536").json()
    assert body["scale"] == 8
    assert body["ntk_base"] == pytest.approx(5e5 * 8 ** (128 / 126), rel=1e-12)
    assert body["yarn_attention"] == pytest.approx(0.1 * math.log(8) + 1, rel=1e-14)
    assert (body["llama3"]["kept"], body["llama3"]["smoothed"], body["llama3"]["divided"]) == (29, 6, 29)
    response = client.get("/api/rope/calculator?low_freq_factor=4&high_freq_factor=3")
    assert response.status_code == 422 and response.json()["detail"][0]["param"] == "high_freq_factor"


def test_pages_render(client):
    for path in ("/spectrum", "/precision", "/calculator"):
        response = client.get(path)
        assert response.status_code == 200
    page = client.get("/spectrum").text
    assert "meta-llama/Llama-3.1-8B/config.json" in page and 'id="paste-config"' in page


# ---- issue 15: the calculator's direct verdicts, real configs, both DeepSeek factors, T < L0 -------


def direct_margin(base, d, length):
    theta = base ** (-np.arange(0, d, 2) / d)
    m = np.arange(length, dtype=np.float64)
    return sum(np.cos(m * t) for t in theta)


@pytest.mark.parametrize("base, passes, first", [(28700.0, True, None), (27000.0, False, 4079), (26960.0, True, None)])
def test_calculator_verdict_at_4096(client, base, passes, first):
    body = client.get(f"/api/rope/calculator?head_dim=128&seq_len=4096&base={base}").json()
    assert body["smallest_base"] == 26960.0 and body["smallest_base_previous"] == 26950.0
    assert (body["base_passes"], body["base_first_failing_m"]) == (passes, first)
    curve = body["margin"]["curves"][0]
    want = direct_margin(base, 128, 4096)
    assert curve["min"] == pytest.approx(want.min(), abs=1e-9) and curve["min_at"] == int(np.argmin(want))
    assert body["larger_failing_base"]["base"] > 26960.0


def test_calculator_large_base_can_fail(client):
    body = client.get("/api/rope/calculator?head_dim=128&seq_len=32768&base=1000000").json()
    want = direct_margin(1e6, 128, 32768)
    assert body["base_passes"] is False and body["base_first_failing_m"] == int(np.flatnonzero(want < 0)[0])
    assert body["smallest_base"] == 630000.0 < 1e6  # larger than the smallest base, and still failing
    assert body["margin"]["curves"][0]["min"] == pytest.approx(-0.7753, abs=1e-4)


def test_calculator_target_below_training_length(client):
    body = client.get("/api/rope/calculator?seq_len=2048&original_max_position_embeddings=4096").json()
    assert body["extends"] is False and "below the training length" in body["reason"]
    assert body["ntk_base"] is None and body["dynamic_base"] is None and body["yarn_attention"] == 1.0
    assert client.get("/api/rope/calculator").json()["extends"] is True


def test_spectrum_target_below_training_length(client):
    body = client.get("/api/rope/spectrum?seq_len=2048&original_max_position_embeddings=4096").json()
    assert body["extends"] is False and body["target_scale"] == 0.5


def test_spectrum_and_frequencies_carry_both_deepseek_factors(client):
    query = (
        "rope_type=yarn&head_dim=64&factor=40&original_max_position_embeddings=4096&max_position_embeddings=163840&mscale=0.707"
        "&mscale_all_dim=0.707&latent_attention=true"
    )
    spectrum = client.get("/api/rope/spectrum?seq_len=163840&" + query).json()
    want = (0.1 * 0.707 * math.log(40) + 1) ** 2
    assert spectrum["selected"]["attention_factor"] == 1.0
    assert spectrum["selected"]["softmax_scale_multiplier"] == pytest.approx(want, rel=1e-14)
    factors = spectrum["selected"]["attention_factors"]
    assert "cos and sin" in factors["attention_factor"]["applies"] and "DeepSeek" in factors["softmax_scale_multiplier"]["applies"]
    i = int(np.argmin(np.abs(np.asarray(spectrum["temperature"]["scale"]) - 40)))
    s = spectrum["temperature"]["scale"][i]
    assert spectrum["temperature"]["softmax_scale_multiplier"][i] == pytest.approx((0.0707 * math.log(s) + 1) ** 2, rel=1e-12)
    ladder = client.get("/api/rope/frequencies?" + query).json()
    assert ladder["softmax_scale_multiplier"] == pytest.approx(want, rel=1e-14)
    plain = client.get("/api/rope/frequencies?rope_type=yarn&factor=8&original_max_position_embeddings=4096").json()
    assert plain["softmax_scale_multiplier"] is None
    # The same mscale_all_dim without latent attention (Ministral 3 ships mscale_all_dim 1): plain 1/sqrt(d), no multiplier.
    for path in ("/api/rope/frequencies?", "/api/rope/spectrum?"):
        other = client.get(path + query.replace("&latent_attention=true", "")).json()
        body = other.get("selected", other)
        assert body["softmax_scale_multiplier"] is None
        assert "latent attention" in body["attention_factors"]["softmax_scale_multiplier"]["applies"]
    assert client.get("/api/rope/spectrum?" + query.replace("&latent_attention=true", "")).json()["temperature"]["softmax_scale_multiplier"] is None


FAMILIES = {case["id"]: case for case in json.loads((Path(__file__).parents[1] / "reference" / "data" / "hf_configs.json").read_text())["cases"]}


@pytest.mark.parametrize("case_id", sorted(FAMILIES))
def test_post_published_configs(client, case_id):
    case = FAMILIES[case_id]
    response = client.post("/api/rope/frequencies", json=case["config"])
    assert response.status_code == 200, response.text
    body = response.json()
    settings = {s["layer_type"] or "all": s for s in body["settings"]}
    assert set(settings) == set(case["settings"])
    for name, want in case["settings"].items():
        np.testing.assert_allclose(settings[name]["inv_freq"], want["inv_freq"], rtol=1e-6)
        assert settings[name]["attention_factor"] == pytest.approx(want["attention_factor"], rel=1e-6)
    top = case["settings"].get("full_attention") or case["settings"]["all"]
    np.testing.assert_allclose(body["inv_freq"], top["inv_freq"], rtol=1e-6)
    assert body["attention_factor"] == pytest.approx(top["attention_factor"], rel=1e-6)
    if "softmax_scale_multiplier" in case:
        assert body["softmax_scale_multiplier"] == pytest.approx(case["softmax_scale_multiplier"], rel=1e-12)
    if body["mrope"] is not None:
        assert body["links"]["mrope"] == "/mrope"
    assert client.get(body["links"]["api"]).status_code == 200  # the shareable GET of the primary setting

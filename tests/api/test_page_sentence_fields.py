"""The JSON-twin fields behind the pages' computed sentences (issue 15), against independent
formulations: explicit loops, complex numbers, the formulas of the reference implementations."""

from __future__ import annotations

import math
from urllib.parse import urlencode

import numpy as np
import pytest

from app.views.spectrum import preset_links


def _get(client, path: str, **query):
    response = client.get(path + ("?" + urlencode(query, doseq=True) if query else ""))
    assert response.status_code == 200, response.text
    return response.json()


# ---- rotation: the gap's turn -----------------------------------------------------------------


@pytest.mark.parametrize(("q_angle", "k_angle", "m", "n", "theta"), [(20, 70, 1, 3, math.pi / 6), (0, 30, 2, 5, math.pi / 6), (-170, 175, 0, 7, 1.0), (90, -90, 4, 1, 0.3)])
def test_rotation_angle_is_original_plus_gap_turn(client, q_angle, k_angle, m, n, theta):
    data = _get(client, "/api/rope/plane", q_angle=q_angle, k_angle=k_angle, m=m, n=n, theta=theta)
    assert data["gap_turn_degrees"] == pytest.approx(math.degrees((n - m) * theta), rel=1e-15)
    original = (k_angle - q_angle + 180) % 360 - 180
    assert data["original_angle"] == pytest.approx(original if original != -180 else 180)
    # the rotated vectors, by explicit rotation matrices: their angle is original + turn, wrapped
    rot = lambda a: np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    q = rot(m * theta) @ np.array([math.cos(math.radians(q_angle)), math.sin(math.radians(q_angle))])
    k = rot(n * theta) @ np.array([math.cos(math.radians(k_angle)), math.sin(math.radians(k_angle))])
    between = math.degrees(math.atan2(q[0] * k[1] - q[1] * k[0], q @ k))
    wrapped = (data["original_angle"] + data["gap_turn_degrees"] + 180) % 360 - 180
    assert between == pytest.approx(wrapped, abs=1e-9)
    assert data["panels"][0]["angle"] == pytest.approx(between, abs=1e-9)


# ---- offsets: near and far statistics ---------------------------------------------------------------


def _offset_curves(head_dim, base, seeds, seed, count):
    """s(Δ) for each random draw, with complex numbers: Σ_j Re(conj(z_q) z_k e^{iΔθ_j})/√d."""
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    phase = np.exp(1j * np.outer(np.arange(count), theta))
    curves = []
    for s in range(seed, seed + seeds):
        rng = np.random.default_rng(s)
        q, k = rng.standard_normal(head_dim), rng.standard_normal(head_dim)
        zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
        curves.append((phase @ (np.conj(zq) * zk)).real / math.sqrt(head_dim))
    return np.array(curves)


def test_offsets_random_content_near_and_far_statistics(client):
    data = _get(client, "/api/rope/offsets", head_dim=128, content="random", seeds=4, seed=3, max_offset=4096, bases=10000)
    curves = _offset_curves(128, 10000.0, 4, 3, 4097)
    mean, std = curves.mean(axis=0), curves.std(axis=0)
    curve = data["curves"][0]
    near, far = curve["near"], curve["far"]
    assert (near["from"], near["to"]) == (1, 20)
    assert (far["from"], far["to"]) == (4097 - 409, 4096)
    for part in (near, far):
        sl = slice(part["from"], part["to"] + 1)
        assert part["rms"] == pytest.approx(np.sqrt(np.mean(mean[sl] ** 2)), rel=1e-9)
        assert part["max_abs"] == pytest.approx(np.max(np.abs(mean[sl])), rel=1e-9)
        assert part["rms_std"] == pytest.approx(np.sqrt(np.mean(std[sl] ** 2)), rel=1e-9)


def test_offsets_constant_content_has_no_spread(client):
    data = _get(client, "/api/rope/offsets", head_dim=128, max_offset=1000, bases=500000)
    far = data["curves"][0]["far"]
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    s = 2 * np.cos(np.outer(np.arange(1001), theta)).sum(axis=1) / math.sqrt(128)
    assert far["rms_std"] is None and far["from"] == 901
    assert far["max_abs"] == pytest.approx(np.abs(s[901:]).max(), rel=1e-9)


# ---- spectrum: DeepSeek's two factors, T ≤ L0, LongRoPE's switch --------------------------------------


def _preset_query(name: str) -> str:
    return next(p["url"] for p in preset_links() if p["name"] == name).split("?", 1)[1]


def test_spectrum_deepseek_reports_both_temperature_factors(client):
    data = client.get("/api/rope/spectrum?" + _preset_query("DeepSeek-V2 (YaRN)")).json()
    mscale = lambda s, k: 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1
    assert data["selected"]["attention_factor"] == 1.0  # mscale == mscale_all_dim
    assert data["selected"]["softmax_scale_multiplier"] == pytest.approx(mscale(40, 0.707) ** 2, rel=1e-15)
    assert data["selected"]["softmax_scale_multiplier"] == pytest.approx(1.5896, abs=1e-4)  # the 1.590
    t = data["temperature"]
    assert t["at_factor"]["softmax_scale_multiplier"] == pytest.approx(mscale(40, 0.707) ** 2)
    assert t["at_factor"]["yarn_configured"] == 1.0
    assert t["at_factor"]["yarn"] == pytest.approx(0.1 * math.log(40) + 1)
    assert t["mscale"] == t["mscale_all_dim"] == 0.707
    for s, configured, multiplier in zip(t["scale"], t["yarn_configured"], t["softmax_scale_multiplier"], strict=True):
        assert configured == pytest.approx(mscale(s, 0.707) / mscale(s, 0.707))
        assert multiplier == pytest.approx(mscale(s, 0.707) ** 2)


def test_spectrum_without_mscale_all_dim_has_no_softmax_multiplier(client):
    data = _get(client, "/api/rope/spectrum")
    assert data["selected"]["softmax_scale_multiplier"] is None
    assert data["temperature"]["softmax_scale_multiplier"] is None
    assert data["temperature"]["at_factor"]["longrope"] == pytest.approx(math.sqrt(1 + math.log(8) / math.log(4096)))


def test_spectrum_below_the_training_length_says_why_nothing_is_extended(client):
    data = _get(client, "/api/rope/spectrum", seq_len=2048)
    assert data["extends"] is False
    assert "T = 2,048 is below the training length L0 = 4,096" in data["reason"]
    assert "nothing is extended" in data["reason"]
    # dynamic NTK leaves every pair as it is below max_position_embeddings
    assert set(data["methods"]["dynamic"]["scale"]) == {1.0}
    assert _get(client, "/api/rope/spectrum", seq_len=4096)["reason"].startswith("the target length T = 4,096 equals")
    assert _get(client, "/api/rope/spectrum", seq_len=4097)["extends"] is True


def test_spectrum_longrope_short_and_long_factors_switch_after_l0(client):
    query = _preset_query("Phi-3 mini 128k (LongRoPE)")
    data = client.get("/api/rope/spectrum?" + query).json()
    params = dict(item.split("=") for item in query.split("&") if not item.startswith(("short_factor", "long_factor")))
    short = np.array([float(v.split("=")[1]) for v in query.split("&") if v.startswith("short_factor=")])
    long = np.array([float(v.split("=")[1]) for v in query.split("&") if v.startswith("long_factor=")])
    r, L0 = int(params["head_dim"]), 4096
    assert len(short) == len(long) == r // 2
    switch = data["longrope_switch"]
    # transformers: θ'_j = 1/(ext_j · b^(2j/r)), ext = long_factor if seq_len > L0 else short_factor
    np.testing.assert_allclose(switch["short_scale"], 1 / short, rtol=1e-12)
    np.testing.assert_allclose(switch["long_scale"], 1 / long, rtol=1e-12)
    assert switch["in_use"] == "long" and switch["switch_after"] == L0
    for n, column in zip(switch["lengths"], np.array(switch["scale_at_length"]).T, strict=True):
        expected = (1 / long if n > L0 else 1 / short)[switch["pairs"]]
        np.testing.assert_allclose(column, expected, rtol=1e-12)
    assert {L0, L0 + 1} <= set(switch["lengths"])
    assert switch["attention_factor"] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))
    shorter = client.get("/api/rope/spectrum?" + query.replace("seq_len=131072", "seq_len=4096")).json()
    assert shorter["longrope_switch"]["in_use"] == "short"
    assert _get(client, "/api/rope/spectrum")["longrope_switch"] is None


# ---- clock: the slowest hands of two bases ------------------------------------------------------------


def test_clock_slowest_hands_of_two_bases(client):
    data = _get(client, "/api/rope/clock", head_dim=16, base=100, second_base=1e6, context_len=5000)
    first, second = data["slow_hands"]
    assert first["base"] == 100 and second["base"] == 1e6
    for hands, base in ((first, 100.0), (second, 1e6)):
        assert hands["pairs"] == [5, 6, 7]
        for j, theta, period, turns in zip(hands["pairs"], hands["inv_freq"], hands["period"], hands["turns_in_context"], strict=True):
            assert theta == pytest.approx(base ** (-2 * j / 16), rel=1e-14)
            assert period == pytest.approx(2 * math.pi * base ** (2 * j / 16), rel=1e-14)
            assert turns == pytest.approx(5000 * theta / (2 * math.pi), rel=1e-14)
    # the slowest hand slows by (b₂/b)^((d−2)/d)
    assert second["period"][-1] / first["period"][-1] == pytest.approx((1e6 / 100) ** (14 / 16), rel=1e-12)
    assert client.get("/api/rope/clock?second_base=1").status_code == 422


# ---- scores: the causal mask's cells ------------------------------------------------------------------


@pytest.mark.parametrize("length", [1, 5, 64, 512])
def test_scores_causal_masks_the_cells_above_the_diagonal(client, length):
    data = _get(client, "/api/rope/scores", seq_len=length, causal="true")
    assert data["masked_cells"] == length * (length - 1) // 2 and data["cells"] == length * length
    nulls = sum(value is None for row in data["scores"] for value in row)
    assert nulls == data["masked_cells"]
    assert _get(client, "/api/rope/scores", seq_len=length)["masked_cells"] == 0


# ---- relative: Shaw's term for stand-ins; compare: causal NoPE ---------------------------------------


def test_shaw_term_for_the_stand_ins_is_the_explicit_sum(client):
    data = _get(client, "/api/relative", query_len=5, key_len=9, max_relative_position=2, shaw_dim=6, seed=11)
    part = data["shaw"]["stand_in"]
    queries, table = np.array(part["queries"]), np.array(part["table"])
    assert queries.shape == (5, 6) and table.shape == (5, 6)
    rng = np.random.default_rng([11, 5])  # the documented stand-ins: standard normals, queries first
    np.testing.assert_array_equal(queries, rng.standard_normal((5, 6)))
    np.testing.assert_array_equal(table, rng.standard_normal((5, 6)))
    for i in range(5):
        position = 9 - 5 + i  # the queries are the last query_len positions
        for j in range(9):
            offset = min(max(j - position, -2), 2)
            expected = sum(queries[i][c] * table[offset + 2][c] for c in range(6)) / math.sqrt(6)
            assert part["term"][i][j] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_causal_nope_gives_position_m_the_weight_one_over_m_plus_one(client):
    data = _get(client, "/api/compare", seq_len=40)
    nope = data["nope_causal"]
    for m in range(40):
        for n in range(40):
            if n <= m:
                assert nope["weights"][m][n] == pytest.approx(1 / (m + 1), rel=1e-15)
            else:
                assert nope["weights"][m][n] is None
        assert nope["output"][m] == pytest.approx(1 / (m + 1), rel=1e-14)
        assert nope["recovered"][m] == pytest.approx(m, abs=1e-10)
    assert nope["rounded_back"] is True and nope["largest_recovery_error"] < 1e-10

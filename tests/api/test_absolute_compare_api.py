"""/api/absolute and /api/compare: defaults, the numbers they promise, bounded sizes and bad input."""

import math

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.rope import offset_scores
from tests.reference_data import cases


def test_absolute_defaults(client):
    data = client.get("/api/absolute").json()
    assert data["seq_len"] == 48 and data["dim"] == 32 and data["max_len"] == 40
    assert len(data["table"]) == 48 and len(data["table"][0]) == 32
    assert data["shift_residual_max"] < 1e-13
    assert data["toeplitz_deviation"] < 1e-12
    assert data["shift_orthogonality"] < 1e-15
    # past max_len there is no learned row: the table stops and the norms are null
    assert data["learned_rows"] == 40 and len(data["learned_table"]) == 40
    assert data["first_missing_position"] == 40 and data["missing_positions"] == 8
    assert data["norm_learned"][39] is not None and data["norm_learned"][40:] == [None] * 8
    # rotation keeps the norm; adding the sinusoid does not
    assert max(abs(n - data["x_norm"]) for n in data["norm_rotated"]) < 1e-12
    assert max(data["norm_sinusoidal"]) - min(data["norm_sinusoidal"]) > 0.1
    assert all(n == pytest.approx(4.0, abs=1e-12) for n in data["pe_norm"])  # √(d/2)


def test_absolute_table_equals_the_sinusoidal_twin(client):
    for layout in ("interleaved", "concatenated", "tensor2tensor"):
        mine = client.get("/api/absolute", params={"layout": layout, "seq_len": 10, "dim": 8}).json()
        theirs = client.get("/api/sinusoidal/table", params={"layout": layout, "seq_len": 10, "dim": 8}).json()
        assert mine["table"] == theirs["table"]


def test_absolute_table_against_distilbert(client):
    case = next(c for c in cases("sinusoidal") if c["id"] == "distilbert/L16/d8")
    table = client.get("/api/absolute", params={"seq_len": 16, "dim": 8}).json()["table"]
    np.testing.assert_allclose(table, case["table"], atol=1e-6)


def test_absolute_shift_block(client):
    data = client.get("/api/absolute", params={"shift": 1, "dim": 4}).json()
    c, s = math.cos(1.0), math.sin(1.0)
    assert data["shift_block_first"] == [[c, s], [-s, c]]


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"dim": 7}, "dim"),
        ({"dim": 1024}, "dim"),
        ({"seq_len": 0}, "seq_len"),
        ({"seq_len": 10**6}, "seq_len"),
        ({"shift": 10**7}, "shift"),
        ({"shift": "two"}, "shift"),
        ({"max_len": 0}, "max_len"),
        ({"base": 1}, "base"),
        ({"layout": "diagonal"}, "layout"),
        ({"offset": 3}, "offset"),
    ],
)
def test_absolute_bad_input(client, params, param):
    response = client.get("/api/absolute", params=params)
    assert response.status_code == 422
    assert any(item["param"] == param for item in response.json()["detail"])


def test_compare_defaults(client):
    data = client.get("/api/compare").json()
    curves = data["curves"]
    assert data["decimated"] is False and data["offsets_count"] == 257
    offsets = list(range(-128, 129))
    for family in ("rope", "sinusoidal", "t5", "shaw", "nope"):
        assert curves[family]["x_low"] == offsets and curves[family]["low"] == curves[family]["high"]
    assert data["rope_at_zero"] == pytest.approx(8.0, rel=1e-14)  # √64 for all-ones content
    assert data["sinusoid_at_zero"] == pytest.approx(32.0, rel=1e-14)  # d/2
    assert data["sinusoid_anchor_difference"] < 1e-10
    # against the general RoPE formulation (complex phasors over the rotated pairs)
    rope = np.array(curves["rope"]["low"])
    ones = np.ones(64)
    phasor_form = offset_scores(ones, ones, inverse_frequencies(64, 10000.0), np.array(offsets), "interleaved") / 8
    np.testing.assert_allclose(rope, phasor_form, atol=1e-12)
    # the sinusoid's dot product is the same sum of cosines, without RoPE's 2/√d
    np.testing.assert_allclose(np.array(curves["sinusoidal"]["low"]), rope * 4, atol=1e-11)
    assert curves["shaw"]["low"][0] == -16 and curves["shaw"]["low"][-1] == 16
    assert set(curves["nope"]["low"]) == {0.0}
    t5 = client.get("/api/relative/t5", params={"max_offset": 128}).json()["bucket"]
    assert data["t5_far_bucket_left"] == t5[0] and data["t5_far_bucket_right"] == t5[-1]
    assert [len(r) for r in data["heatmaps"]["alibi"]] == [24] * 24
    assert data["heatmaps"]["alibi"][3][0] == -0.5 * 3 and data["heatmaps"]["alibi"][0][3] is None
    assert data["alibi_penalty"][0][0] == -0.5 * 128 and data["alibi_offsets"][-1] == 0


def test_compare_long_range_is_a_min_max_envelope(client):
    data = client.get("/api/compare", params={"max_offset": 2048}).json()
    assert data["decimated"] is True and data["offsets_count"] == 4097
    rope = data["curves"]["rope"]
    assert len(rope["low"]) <= 2000
    assert all(lo <= hi for lo, hi in zip(rope["low"], rope["high"], strict=True))
    assert rope["x_low"][0] == -2048 and rope["x_high"][-1] == 2048
    assert max(rope["high"]) == pytest.approx(8.0)  # the peak at Δ = 0 survives the reduction


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"max_offset": 0}, "max_offset"),
        ({"max_offset": 100000}, "max_offset"),
        ({"head_dim": 3}, "head_dim"),
        ({"head": 8}, "head"),
        ({"num_heads": 0}, "num_heads"),
        ({"num_buckets": 3}, "num_buckets"),
        ({"max_distance": 4}, "max_distance"),
        ({"seq_len": 65}, "seq_len"),
        ({"bidirectional": "sometimes"}, "bidirectional"),
    ],
)
def test_compare_bad_input(client, params, param):
    response = client.get("/api/compare", params=params)
    assert response.status_code == 422
    assert any(item["param"] == param for item in response.json()["detail"])

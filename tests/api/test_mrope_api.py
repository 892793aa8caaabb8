"""/api/rope/mrope: axis and angles for a (t, h, w), the sequence's triples, the patch scores,
the section rule and bad input."""

from __future__ import annotations

import math

import pytest

from tests.reference_data import cases


def test_axis_and_angles_for_a_triple(client):
    params = [("head_dim", 128), ("mrope_section", 16), ("mrope_section", 24), ("mrope_section", 24), ("t", 10), ("h", 12), ("w", 20), ("base", 1000000)]
    data = client.get("/api/rope/mrope", params=params).json()
    assert data["axis"] == ["t"] * 16 + ["h"] * 24 + ["w"] * 24
    assert data["section_counts"] == {"t": 16, "h": 24, "w": 24}
    for j in (0, 15, 16, 39, 40, 63):
        theta = 1000000.0 ** (-2 * j / 128)
        position = 10 if j < 16 else 12 if j < 40 else 20
        assert data["angles"][j] == pytest.approx(position * theta, rel=1e-14)


def test_qwen3_interleaving(client):
    params = [("head_dim", 128), ("base", 1000000.0), ("mrope_section", 24), ("mrope_section", 20), ("mrope_section", 20), ("layout", "interleaved"), ("t", 1), ("h", 2), ("w", 3)]
    data = client.get("/api/rope/mrope", params=params).json()
    assert "".join(data["axis"][:6]) == "thwthw" and data["axis"][60:] == ["t"] * 4
    assert data["angles"][1] == pytest.approx(2 * 1000000.0 ** (-2 / 128), rel=1e-14)


def test_sequence_matches_get_rope_index(client):
    case = next(c for c in cases("mrope") if c["id"] == "rope_index/image/before3/T1H2W3/after2")
    data = client.get("/api/rope/mrope", params={"text_before": 3, "grid_h": 2, "grid_w": 3, "text_after": 2, "query_row": 0, "query_col": 0, "key_row": 1, "key_col": 2}).json()
    seq = data["sequence"]
    assert [seq["t"], seq["h"], seq["w"]] == case["position_ids"]
    assert data["rope_delta"] == case["rope_delta"] and data["next_position"] == 8
    assert seq["kind"] == ["text"] * 3 + ["vision"] * 6 + ["text"] * 2
    assert data["query"] == {"t": 3, "h": 3, "w": 3} and data["key"] == {"t": 3, "h": 4, "w": 5}
    assert data["offset"] == {"t": 0, "h": 1, "w": 2} and data["flat_offset"] == 5


def test_patch_score_is_a_function_of_the_offsets(client):
    data = client.get("/api/rope/mrope", params={"head_dim": 16, "mrope_section": [2, 3, 3], "base": 10000, "grid_h": 5, "grid_w": 5, "query_row": 2, "query_col": 2, "key_row": 4, "key_col": 1}).json()
    theta = [10000.0 ** (-2 * j / 16) for j in range(8)]
    offset = {"t": 0, "h": 2, "w": -1}
    expected = 2 * sum(math.cos(offset[a] * th) for a, th in zip(data["axis"], theta, strict=True)) / math.sqrt(16)
    assert data["score"] == pytest.approx(expected, abs=1e-12)
    assert data["grid_scores"][4][1] == pytest.approx(expected, abs=1e-12)
    assert data["grid_scores"][2][2] == pytest.approx(2 * 8 / math.sqrt(16), abs=1e-12)  # the query itself
    # 1-D RoPE numbers the patches in reading order: (4, 1) is 2·5 − 1 = 9 tokens after (2, 2)
    plain = 2 * sum(math.cos(9 * th) for th in theta) / math.sqrt(16)
    assert data["grid_scores_1d"][4][1] == pytest.approx(plain, abs=1e-12)
    assert data["delta_angles"][3] == pytest.approx(2 * theta[3], rel=1e-14)  # pair 3 follows h


def test_section_must_add_up_to_half_the_head(client):
    response = client.get("/api/rope/mrope", params={"head_dim": 128, "mrope_section": [16, 24, 25]})
    assert response.status_code == 422
    item = response.json()["detail"][0]
    assert item["param"] == "mrope_section" and "add up to head_dim/2 = 64" in item["msg"]
    ok = client.get("/api/rope/mrope", params={"mrope_section": [8, 12, 12]})  # the shared head_dim 64
    assert ok.status_code == 200


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"mrope_section": [16, 48]}, "mrope_section"),
        ({"mrope_section": [64, -1, 1]}, "mrope_section"),
        ({"layout": "spiral"}, "layout"),
        ({"query_row": 4}, "query_row"),
        ({"key_col": 6}, "key_col"),
        ({"key_frame": 1}, "key_frame"),
        ({"grid_h": 32, "grid_w": 32, "frames": 3}, "frames"),
        ({"head_dim": 7}, "head_dim"),
        ({"t": -1}, "t"),
    ],
)
def test_bad_input(client, params, param):
    response = client.get("/api/rope/mrope", params=params)
    assert response.status_code == 422
    assert any(item["param"] == param for item in response.json()["detail"])


def test_video_frames_step_t(client):
    case = next(c for c in cases("mrope") if c["id"] == "rope_index/video/before2/T3H2W2/after3")
    data = client.get("/api/rope/mrope", params={"text_before": 2, "frames": 3, "grid_h": 2, "grid_w": 2, "text_after": 3, "query_row": 0, "query_col": 0, "key_row": 1, "key_col": 1}).json()
    seq = data["sequence"]
    assert [seq["t"], seq["h"], seq["w"]] == case["position_ids"]


def test_csv_lists_every_token(client):
    lines = client.get("/api/rope/mrope.csv").text.strip().split("\n")
    assert lines[0] == "token,vision,t,h,w,frame,row,col"
    assert len(lines) == 1 + 4 + 24 + 4
    assert lines[5] == "4,1,4,4,4,0,0,0"

"""The RoPE lessons' JSON twins: defaults, the lecture preset, pixel bounds, CSV, and every bad-input class."""

import csv
import io
import math
import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest

from app.views.rotation import PRESETS, RotationParams
from app.web.templating import canonical_items

APIS = {
    "rotation": "/api/rope/plane",
    "clock": "/api/rope/clock",
    "scores": "/api/rope/scores",
    "offsets": "/api/rope/offsets",
    "conventions": "/api/rope/conventions",
}


@pytest.mark.parametrize("name", list(APIS))
def test_defaults_answer_with_json_and_cache_headers(client, name):
    response = client.get(APIS[name])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert "etag" in response.headers
    page = client.get(f"/{name}")
    assert page.status_code == 200 and APIS[name] in page.headers["link"]


def test_rotation_defaults_and_the_lecture_preset(client):
    data = client.get(APIS["rotation"]).json()
    assert data["theta"] == 0.5235987755982988  # π/6 as a number
    assert len(data["panels"]) == 2
    preset = client.get(APIS["rotation"] + "?" + PRESETS[0][1]).json()
    for panel in preset["panels"]:
        assert panel["angle_between"] == pytest.approx(120.0, abs=1e-12)
        q, k = np.array(panel["q_rot"]), np.array(panel["k_rot"])
        assert math.degrees(math.acos(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))) == pytest.approx(120.0, abs=1e-9)
    assert [(p["m"], p["n"]) for p in preset["panels"]] == [(2, 5), (7, 10)]


def test_rotation_page_links_the_presets_canonically(client):
    page = client.get("/rotation").text
    hrefs = [unescape(h) for h in re.findall(r'href="(/rotation\?[^"]+)"', page)]
    assert len(hrefs) >= 2
    for (_, query), href in zip(PRESETS, hrefs, strict=True):
        parts = urlsplit(href)
        params = RotationParams(**dict(parse_qsl(parts.query)))
        assert parts.query == query
        assert "&".join(f"{k}={v}" for k, v in canonical_items(params, RotationParams)) == query


def test_clock_defaults(client):
    data = client.get(APIS["clock"]).json()
    assert data["hands"] == 32 and len(data["inv_freq"]) == 32
    assert data["alias"]["fast"]["closest"] == {"delta": 6, "gap": pytest.approx(6 - 2 * math.pi, abs=1e-15), "step": 1.0}
    assert data["distinct"]["all_distinct"] is True
    # The animation position is a page-only control, not a parameter of the computation.
    refused = client.get(APIS["clock"], params={"position": 5})
    assert refused.status_code == 422 and refused.json()["detail"][0]["param"] == "position"
    assert client.get("/clock", params={"position": 5}).status_code == 200


def test_scores_defaults_and_largest_size_stay_pixel_bounded(client):
    data = client.get(APIS["scores"]).json()
    assert np.array(data["scores"]).shape == (64, 64) and data["block"] == 1
    assert data["toeplitz"]["spread"] <= 1e-12 * data["toeplitz"]["scale"]
    assert data["identity_max_error"] < 1e-12
    big = client.get(APIS["scores"], params={"seq_len": 131072, "head_dim": 256, "causal": "true"})
    assert big.status_code == 200
    body = big.json()
    assert np.array(body["scores"], dtype=float).shape == (512, 512) and body["block"] == 256
    assert body["toeplitz"]["spread"] <= 1e-12 * body["toeplitz"]["scale"]


def test_offsets_defaults_reach_131072_in_bounded_columns(client):
    data = client.get(APIS["offsets"]).json()
    assert data["max_offset"] == 131072 and data["column_stop"][-1] == 131073
    assert len(data["x"]) == len(data["column_start"]) <= 2000
    assert sum(data["points_per_column"]) == data["total_points"] == 131072
    assert [c["base"] for c in data["curves"]] == [10000.0, 500000.0]
    assert data["returns"]["marks"][0]["delta"] == 6
    repeated = client.get(APIS["offsets"], params=[("bases", "100"), ("bases", "10000"), ("bases", "1e6")]).json()
    assert [c["base"] for c in repeated["curves"]] == [100.0, 10000.0, 1e6]


def test_conventions_defaults_prove_the_permutation(client):
    data = client.get(APIS["conventions"], params={"head_dim": 8}).json()
    assert data["permutation"] == [0, 2, 4, 6, 1, 3, 5, 7]
    assert data["max_diff_permuted"] <= 1e-12 * data["scale"] < data["max_diff_raw"]


@pytest.mark.parametrize("name", list(APIS))
def test_csv_has_a_header_and_the_plotted_rows(client, name):
    response = client.get(APIS[name] + ".csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert len(rows) >= 2 and all(len(row) == len(rows[0]) for row in rows)


def test_offsets_csv_rows_are_the_columns(client):
    data = client.get(APIS["offsets"], params={"max_offset": 5000, "columns": 100, "spacing": "linear"}).json()
    rows = list(csv.reader(io.StringIO(client.get(APIS["offsets"] + ".csv", params={"max_offset": 5000, "columns": 100, "spacing": "linear"}).text)))
    assert len(rows) == len(data["column_start"]) + 1
    assert float(rows[1][3]) == data["curves"][0]["low"][0]


BAD: list[tuple[str, dict[str, str | list[str]], str]] = [
    # (api, params, the parameter the 422 must name)
    ("rotation", {"theta": "7"}, "theta"),
    ("rotation", {"m": "501"}, "m"),
    ("rotation", {"q_len": "0"}, "q_len"),
    ("rotation", {"k_angle": "nan"}, "k_angle"),
    ("rotation", {"shift": "abc"}, "shift"),
    ("clock", {"head_dim": "7"}, "head_dim"),
    ("clock", {"head_dim": "512"}, "head_dim"),
    ("clock", {"context_len": "262145"}, "context_len"),
    ("clock", {"fast_theta": "0"}, "fast_theta"),
    ("clock", {"slow_theta": "3.2"}, "slow_theta"),
    ("clock", {"alias_count": "257"}, "alias_count"),
    ("scores", {"head_dim": "512"}, "head_dim"),
    ("scores", {"content": "random", "seq_len": "4097"}, "seq_len"),
    ("scores", {"content": "random", "seq_len": "4096", "head_dim": "128"}, "head_dim"),
    ("scores", {"theta_override": "half"}, "theta_override"),
    ("scores", {"base": "1"}, "base"),
    ("offsets", {"max_offset": "15"}, "max_offset"),
    ("offsets", {"max_offset": "262145"}, "max_offset"),
    ("offsets", {"max_offset": "262144", "head_dim": "1024"}, "max_offset"),
    ("offsets", {"head_dim": "128", "content": "random", "seeds": "5"}, "seeds"),
    ("offsets", {"hand": "64"}, "hand"),
    ("offsets", {"bases": ["10", "100", "1000", "10000", "100000"]}, "bases"),
    ("offsets", {"bases": ["10000", "0.5"]}, "bases"),
    ("offsets", {"drop_percent": "101"}, "drop_percent"),
    ("offsets", {"spacing": "cubic"}, "spacing"),
    ("offsets", {"columns": "2001"}, "columns"),
    ("conventions", {"head_dim": "130"}, "head_dim"),
    ("conventions", {"head_dim": "8", "partial_rotary_factor": "0.125"}, "partial_rotary_factor"),
    ("conventions", {"seq_len": "65"}, "seq_len"),
    ("conventions", {"content": "constant"}, "content"),
]


@pytest.mark.parametrize(("name", "params", "param"), BAD, ids=[f"{b[0]}-{'-'.join(b[1])}" for b in BAD])
def test_bad_input_is_a_422_naming_the_parameter(client, name, params, param):
    response = client.get(APIS[name], params=params)
    assert response.status_code == 422, response.text
    items = [item for item in response.json()["detail"] if item["param"] == param]
    assert items, response.json()
    assert items[0]["msg"] and items[0].get("allowed")
    page = client.get(f"/{name}", params=params)
    assert page.status_code == 422
    # The page draws with the last good values and shows the message beside the control.
    shown = re.search(rf'<p class="control-error" id="err-{param}"[^>]*>([^<]*)</p>', page.text)
    assert shown and shown.group(1).strip(), f"no error shown beside {param}"


def test_cross_field_messages_say_what_to_change(client):
    detail = client.get(APIS["offsets"], params={"head_dim": "128", "content": "random", "seeds": "5"}).json()["detail"][0]
    assert "67108864" in detail["msg"] and "seeds" in detail["msg"]
    detail = client.get(APIS["offsets"], params={"hand": "32"}).json()["detail"][0]
    assert "head_dim/2 = 32" in detail["msg"]
    detail = client.get(APIS["scores"], params={"content": "random", "seq_len": "4096", "head_dim": "128"}).json()["detail"][0]
    assert "131072" in detail["msg"]


def test_rotate_operation_is_unchanged(client):
    body = {"q": [1, 0], "k": [1, 0], "positions": [0, 2, 5, 7]}
    data = client.post("/api/rope/rotate", json=body).json()
    assert data["dot"][0][1] == pytest.approx(math.cos(2), abs=1e-15)
    assert data["dot"][2][3] == pytest.approx(math.cos(2), abs=1e-15)
    assert client.post("/api/rope/rotate", json={**body, "q": [1, 0, 0]}).status_code == 422

"""/api/relative/transformer-xl: the twin's fields, the terms against a loop, bounds and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.transformer_xl import stand_in_weights


def test_defaults_and_fields(client):
    data = client.get("/api/relative/transformer-xl").json()
    assert (data["query_len"], data["key_len"], data["d_model"]) == (8, 24, 32)
    assert data["offsets"] == list(range(24))
    assert len(data["R"]) == 24 and len(data["R"][0]) == 32
    assert set(data["terms"]) == {"a", "b", "c", "d", "sum"}
    for term in data["terms"].values():
        assert len(term) == 8 and len(term[0]) == 24
    assert data["query_positions"] == list(range(16, 24))
    # keys after their query do not exist: null in every term
    assert data["terms"]["d"][0][17:] == [None] * 7 and data["terms"]["d"][0][16] is not None
    assert data["structure"]["d"]["diagonal"] == 0.0 and data["structure"]["c"]["column"] == 0.0
    assert data["scale"] == pytest.approx(1 / math.sqrt(32))


def test_terms_against_a_loop(client):
    params = {"query_len": 3, "key_len": 5, "d_model": 4, "seed": 12}
    data = client.get("/api/relative/transformer-xl", params=params).json()
    w = stand_in_weights(4, 5, 12)
    E, Wq, WkE, WkR, u, v = (w[n].tolist() for n in ("embeddings", "W_q", "W_kE", "W_kR", "u", "v"))
    freqs = [10000.0 ** (-(2 * i) / 4) for i in range(2)]
    for row in range(3):
        i = 2 + row
        for j in range(5):
            cells = {name: data["terms"][name][row][j] for name in "abcd"}
            if j > i:
                assert all(value is None for value in cells.values())
                continue
            R = [math.sin((i - j) * f) for f in freqs] + [math.cos((i - j) * f) for f in freqs]
            assert data["R"][i - j] == pytest.approx(R, abs=1e-15)
            q = [sum(Wq[r][c] * E[i][c] for c in range(4)) for r in range(4)]
            k = [sum(WkE[r][c] * E[j][c] for c in range(4)) for r in range(4)]
            rk = [sum(WkR[r][c] * R[c] for c in range(4)) for r in range(4)]
            expected = {
                "a": sum(x * y for x, y in zip(q, k, strict=True)),
                "b": sum(x * y for x, y in zip(q, rk, strict=True)),
                "c": sum(x * y for x, y in zip(u, k, strict=True)),
                "d": sum(x * y for x, y in zip(v, rk, strict=True)),
            }
            for name in "abcd":
                assert cells[name] == pytest.approx(expected[name], abs=1e-12)
            assert data["terms"]["sum"][row][j] == pytest.approx(sum(expected.values()), abs=1e-12)
            assert data["position_bias"][i - j] == pytest.approx(expected["d"], abs=1e-12)
            assert data["content_bias"][j] == pytest.approx(expected["c"], abs=1e-12)


def test_repeated_tokens_leave_only_distance(client):
    data = client.get("/api/relative/transformer-xl", params={"content": "repeated"}).json()
    b = np.array([[np.nan if v is None else v for v in row] for row in data["terms"]["b"]])
    assert data["structure"]["b"]["diagonal"] == pytest.approx(0.0, abs=1e-12)
    assert data["structure"]["a"]["row"] == pytest.approx(0.0, abs=1e-12)
    assert np.nanmax(b) - np.nanmin(b) > 0.1  # still varies with the distance


def test_csv_lists_the_existing_pairs(client):
    lines = client.get("/api/relative/transformer-xl.csv", params={"query_len": 2, "key_len": 3}).text.strip().split("\n")
    assert lines[0] == "query_position,key_position,offset,a,b,c,d,sum"
    # queries 1 and 2 see keys 0..1 and 0..2: five pairs
    assert [line.split(",")[:3] for line in lines[1:]] == [["1", "0", "1"], ["1", "1", "0"], ["2", "0", "2"], ["2", "1", "1"], ["2", "2", "0"]]


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"query_len": 10, "key_len": 5}, "key_len"),
        ({"d_model": 7}, "d_model"),
        ({"d_model": 512}, "d_model"),
        ({"key_len": 257}, "key_len"),
        ({"query_len": 0}, "query_len"),
        ({"content": "shuffled"}, "content"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_input(client, params, param):
    response = client.get("/api/relative/transformer-xl", params=params)
    assert response.status_code == 422
    assert any(item["param"] == param for item in response.json()["detail"])


def test_largest_request_is_bounded(client):
    data = client.get("/api/relative/transformer-xl", params={"query_len": 128, "key_len": 256, "d_model": 256}).json()
    assert len(data["terms"]["a"]) == 128 and len(data["terms"]["a"][0]) == 256

"""/api/relative/{t5,alibi,shaw} and the relative page's twin: names users script against, defaults,
reference numbers, and each class of bad input."""

import numpy as np
import pytest

from tests.reference_data import cases


def test_t5_defaults(client):
    data = client.get("/api/relative/t5").json()
    assert data["num_buckets"] == 32 and data["max_distance"] == 128 and data["bidirectional"] is True
    assert data["relative_position"] == list(range(-160, 161))
    assert len(data["bucket"]) == 321
    assert data["bucket"][160] == 0 and data["bucket"][161] == 17  # rel 0 → 0, rel +1 → 17
    assert data["max_exact"] == 8


@pytest.mark.parametrize("case", cases("t5_buckets"), ids=lambda c: f"{c['num_buckets']}-{c['max_distance']}-{c['bidirectional']}")
def test_t5_matches_reference_over_300_offsets(client, case):
    response = client.get(
        "/api/relative/t5",
        params={
            "num_buckets": case["num_buckets"],
            "max_distance": case["max_distance"],
            "bidirectional": str(case["bidirectional"]).lower(),
            "max_offset": 300,
        },
    )
    assert response.status_code == 200
    data = response.json()
    reference = dict(zip(case["relative_position"], case["bucket"], strict=True))
    assert data["relative_position"] == list(range(-300, 301))
    assert data["bucket"] == [reference[r] for r in range(-300, 301)]


def test_alibi_slopes_and_bias(client):
    data = client.get("/api/relative/alibi", params={"num_heads": 12}).json()
    assert data["slopes"] == [2.0**-h for h in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    assert "bias" not in data
    data = client.get("/api/relative/alibi", params={"num_heads": 2, "seq_len": 3}).json()
    m0 = 2.0**-4
    assert data["bias"][0] == [[0.0, None, None], [-m0, 0.0, None], [-2 * m0, -m0, 0.0]]
    bloom = client.get("/api/relative/alibi", params={"num_heads": 2, "seq_len": 3, "form": "bloom"}).json()
    assert bloom["bias"][0] == [[0.0, None, None], [0.0, m0, None], [0.0, m0, 2 * m0]]


def test_alibi_bias_size_is_bounded_by_cells(client):
    data = client.get("/api/relative/alibi", params={"num_heads": 128, "seq_len": 22}).json()  # 61952 cells
    assert len(data["bias"]) == 128 and len(data["bias"][127]) == 22
    assert client.get("/api/relative/alibi", params={"num_heads": 1, "seq_len": 256}).status_code == 200


@pytest.mark.parametrize("n", [1, 5, 32, 100, 112, 128])
def test_alibi_many_heads_against_bloom(client, n):
    reference = next(c for c in cases("alibi_slopes") if c["num_heads"] == n)
    slopes = client.get("/api/relative/alibi", params={"num_heads": n}).json()["slopes"]
    np.testing.assert_allclose(slopes, reference["bloom"], rtol=1e-6)


def test_shaw_index_matrix(client):
    data = client.get("/api/relative/shaw", params={"query_len": 2, "key_len": 5, "max_relative_position": 2}).json()
    assert data["index_matrix"] == [[0, 0, 1, 2, 3], [0, 0, 0, 1, 2]]
    assert data["query_positions"] == [3, 4]
    defaults = client.get("/api/relative/shaw").json()
    assert len(defaults["index_matrix"]) == 12 and len(defaults["index_matrix"][0]) == 16


@pytest.mark.parametrize(
    ("path", "params", "param"),
    [
        ("/api/relative/t5", {"num_buckets": 1}, "num_buckets"),
        ("/api/relative/t5", {"num_buckets": 3}, "num_buckets"),  # bidirectional needs ≥ 4
        ("/api/relative/t5", {"num_buckets": 999}, "num_buckets"),
        ("/api/relative/t5", {"max_distance": 8}, "max_distance"),  # must exceed max_exact = 8
        ("/api/relative/t5", {"max_distance": "far"}, "max_distance"),
        ("/api/relative/t5", {"bidirectional": "maybe"}, "bidirectional"),
        ("/api/relative/t5", {"max_offset": 0}, "max_offset"),
        ("/api/relative/t5", {"max_offset": 10**9}, "max_offset"),
        ("/api/relative/t5", {"buckets": 32}, "buckets"),
        ("/api/relative/alibi", {"num_heads": 0}, "num_heads"),
        ("/api/relative/alibi", {"num_heads": 100000}, "num_heads"),
        ("/api/relative/alibi", {"num_heads": 1.5}, "num_heads"),
        ("/api/relative/alibi", {"num_heads": 128, "seq_len": 23}, "seq_len"),  # too many cells
        ("/api/relative/alibi", {"seq_len": 0}, "seq_len"),
        ("/api/relative/alibi", {"form": "fairseq"}, "form"),
        ("/api/relative/shaw", {"query_len": 6, "key_len": 5}, "key_len"),
        ("/api/relative/shaw", {"max_relative_position": -1}, "max_relative_position"),
        ("/api/relative/shaw", {"key_len": 100000}, "key_len"),
        ("/api/relative/shaw", {"k": 2}, "k"),
        ("/api/relative", {"head": 8}, "head"),  # only 8 heads by default: 0 … 7
        ("/api/relative", {"seq_len": 1000}, "seq_len"),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(client, path, params, param):
    response = client.get(path, params=params)
    assert response.status_code == 422
    items = response.json()["detail"]
    assert any(item["param"] == param for item in items)
    assert all(item.get("allowed") for item in items if item["param"] == param)


def test_relative_twin_defaults(client):
    data = client.get("/api/relative").json()
    assert set(data) == {"shaw", "t5", "alibi"}
    assert data["shaw"]["index_matrix"] == client.get("/api/relative/shaw").json()["index_matrix"]
    assert data["t5"]["bucket"] == client.get("/api/relative/t5").json()["bucket"]
    assert data["alibi"]["slopes"] == [2.0**-h for h in range(1, 9)]
    t5 = data["t5"]
    # the bias of every offset is the seeded value of its bucket
    assert t5["bias"] == [t5["bucket_bias"][b] for b in t5["bucket"]]
    assert len(t5["bias_matrix"]) == 32 and t5["bias_matrix"][0][1] == t5["bucket_bias"][17]
    alibi = data["alibi"]
    assert alibi["bias_matrix"][5][2] == -0.5 * 3 and alibi["bias_matrix"][2][5] is None
    csv = client.get("/api/relative.csv").text.splitlines()
    assert csv[0].startswith("offset,shaw_index,t5_bucket,t5_bias,alibi_head0") and len(csv) == 322


def test_operations_are_documented(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/relative/t5", "/api/relative/alibi", "/api/relative/shaw", "/api/relative"):
        assert "get" in paths[path]
    names = {p["name"] for p in paths["/api/relative/t5"]["get"]["parameters"]}
    assert names == {"num_buckets", "max_distance", "bidirectional", "max_offset"}
    names = {p["name"] for p in paths["/api/relative/shaw"]["get"]["parameters"]}
    assert names == {"query_len", "key_len", "max_relative_position"}

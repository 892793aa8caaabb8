"""Precision and calculator within the per-request budget: the limits users meet, and where each
Men et al. bound comes from (precomputed table, searched live, or not given)."""

from __future__ import annotations

import numpy as np
import pytest


def direct_margin(base, head_dim, length, start=0):
    """B_m = Σ_j cos(m·b^(−2j/d)) for m = start … start + length − 1."""
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    return np.cos(np.outer(np.arange(start, start + length), theta)).sum(axis=1)


# ---- /api/rope/precision: seq_len × number of pairs ≤ 2^19 --------------------------------------


@pytest.mark.parametrize("query", ["seq_len=524288&pairs=0", "seq_len=131072", "head_dim=128&seq_len=262144&pairs=10&pairs=63"])
def test_precision_largest_allowed_work(client, query):
    body = client.get("/api/rope/precision?" + query).json()
    columns = len(body["column_start"])
    assert 590 < columns <= 600 and body["column_stop"][-1] == body["seq_len"]
    for curve in body["curves"]:
        for dtype in body["dtypes"]:
            assert len(curve["dtypes"][dtype]["angle_error_max"]) == columns


# Four pairs given (without pairs, the default takes as many as seq_len allows: never a 422).
@pytest.mark.parametrize("query", ["head_dim=128&seq_len=131073&pairs=0&pairs=16&pairs=40&pairs=63", "seq_len=524288&pairs=0&pairs=1", "seq_len=262145&pairs=3&pairs=4"])
def test_precision_too_much_work_names_pairs(client, query):
    response = client.get("/api/rope/precision?" + query)
    assert response.status_code == 422
    item = response.json()["detail"][0]
    assert item["param"] == "pairs" and "524288" in item["msg"]


def test_precision_length_beyond_any_pair_count_names_seq_len(client):
    response = client.get("/api/rope/precision?seq_len=524289&pairs=0")
    assert response.status_code == 422
    item = response.json()["detail"][0]
    assert item["param"] == "seq_len" and "524288" in item["allowed"]


def test_precision_errors_at_the_longest_length(client):
    # Pair 0 has θ = 1 (exact in float32): positions up to 2^24 are exact too, so the float32
    # angle is m itself, error 0.  bfloat16 keeps 8 significant bits: in [2^18, 2^19) its integers
    # are 2^11 apart, so the largest angle error is half that (ties to even), in the last columns.
    body = client.get("/api/rope/precision?seq_len=524288&pairs=0").json()
    errors = body["curves"][0]["dtypes"]
    assert max(errors["float32"]["angle_error_max"]) == 0
    assert errors["bfloat16"]["largest_angle_error"] == 2**10 == max(errors["bfloat16"]["angle_error_max"][-20:])
    assert errors["float16"]["overflow_from"] == 65520


# ---- /api/rope/calculator: where the Men et al. answer comes from --------------------------------


def test_calculator_defaults_read_the_table(client):
    body = client.get("/api/rope/calculator?head_dim=128").json()
    assert (body["smallest_base_source"], body["smallest_base_train_source"]) == ("table", "table")
    assert (body["smallest_base"], body["smallest_base_train"]) == (630000.0, 26960.0)
    assert direct_margin(body["smallest_base"], 128, 32768).min() >= 0
    assert body["men_base"] == body["smallest_base"] and body["men_ok"] is body["base_passes"] is False
    # the shared default head (64 dims) is tabulated too: its answer holds over every position
    body = client.get("/api/rope/calculator").json()
    assert body["head_dim"] == 64 and body["smallest_base_source"] == "table"
    assert direct_margin(body["smallest_base"], 64, 32768).min() >= 0
    assert direct_margin(body["smallest_base_train"], 64, 4096).min() >= 0


def test_calculator_every_length_up_to_the_table_limit(client):
    body = client.get("/api/rope/calculator?head_dim=128&seq_len=15000&original_max_position_embeddings=3000").json()
    assert body["smallest_base_source"] == "table"
    base = body["smallest_base"]
    assert direct_margin(base, 128, 15000).min() >= 0
    assert direct_margin(body["smallest_base_previous"], 128, 15000)[body["smallest_base_previous_fails_at"]] < 0
    assert body["margin"]["length"] == 15000 and [c["label"] for c in body["margin"]["curves"]] == ["base b", "smallest base for T"]


def test_calculator_beyond_budget_says_so(client):
    body = client.get("/api/rope/calculator?seq_len=40000&head_dim=100&original_max_position_embeddings=600").json()
    assert body["smallest_base"] is None and body["smallest_base_source"] is None
    assert "d = 100" in body["smallest_base_reason"]
    assert [c["label"] for c in body["margin"]["curves"]] == ["base b"]
    # The direct verdict on b needs no search: b = 10000 fails, first at the m the curve shows.
    curve = direct_margin(10000.0, 100, 40000)
    assert body["base_passes"] is False and body["base_first_failing_m"] == int(np.flatnonzero(curve < 0)[0])


def test_calculator_long_table_length_and_drawn_range(client):
    body = client.get("/api/rope/calculator?seq_len=1048576&original_max_position_embeddings=65536&head_dim=256").json()
    assert body["smallest_base_source"] == "table"
    # By the definition, not by the table the answer comes from (checking every m < 2^20 directly
    # takes ~10 s): the grid value just below fails where the answer says, and the answer holds
    # there, over the first 2^15 distances and over the 2^15 before T.
    base, T = body["smallest_base"], 1048576
    below, fails_at = body["smallest_base_previous"], body["smallest_base_previous_fails_at"]
    assert float(f"{below:.4g}") == below < base and 0 <= fails_at < T
    assert direct_margin(below, 256, 1, start=fails_at)[0] < 0
    assert direct_margin(base, 256, 1, start=fails_at)[0] >= 0
    assert direct_margin(base, 256, 1 << 15).min() >= 0 and direct_margin(base, 256, 1 << 15, start=T - (1 << 15)).min() >= 0
    assert body["margin"]["length"] == 131072  # 2^24 / 128 pairs
    wide = client.get("/api/rope/calculator?seq_len=16777216&original_max_position_embeddings=16777216&head_dim=1024").json()
    assert wide["margin"]["length"] == 32768  # 2^24 / 512 pairs
    assert wide["smallest_base"] is None and wide["smallest_base_train"] is None
    assert wide["base_passes"] is False or wide["base_checked_length"] < 16777216

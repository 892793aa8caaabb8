"""/api/compare's two new panels: the trained table's offset profile and Transformer-XL's term (d)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

NPY = Path(__file__).resolve().parents[2] / "app" / "data" / "learned" / "all-minilm-l6-v2" / "table.npy"


def stored() -> np.ndarray:
    raw = NPY.read_bytes()
    length = int.from_bytes(raw[8:10], "little")
    return np.frombuffer(raw[10 + length :], dtype="<f4").reshape(512, 384).astype(np.float64)


def test_learned_curve_is_the_mean_dot_product_over_positions(client):
    data = client.get("/api/compare", params={"max_offset": 600}).json()
    curve = data["curves"]["learned"]
    assert curve["x_low"][0] == -600 and data["learned_max_len"] == 512
    table = stored()
    for delta in (0, 1, 7, 300, 511):
        expected = np.mean([table[p] @ table[p + delta] for p in range(512 - delta)])
        assert curve["low"][600 + delta] == pytest.approx(expected, rel=1e-12)
        assert curve["low"][600 - delta] == pytest.approx(expected, rel=1e-12)  # Δ and −Δ pair the same rows
    assert curve["low"][600 + 512] is None and curve["low"][0] is None  # no rows that far apart
    heat = np.array(data["heatmaps"]["learned"])
    np.testing.assert_allclose(heat, table[:24] @ table[:24].T, rtol=1e-12)


def test_transformer_xl_curve_is_the_pages_term_d(client):
    data = client.get("/api/compare", params={"head_dim": 16, "seed": 5, "max_offset": 20}).json()
    xl = client.get("/api/relative/transformer-xl", params={"d_model": 16, "seed": 5, "query_len": 21, "key_len": 21}).json()
    curve = data["curves"]["transformer_xl"]["low"]
    for distance in range(21):
        assert curve[20 - distance] == pytest.approx(xl["position_bias"][distance], abs=1e-12)
    assert curve[21:] == [None] * 20  # later keys have no term
    heat = data["heatmaps"]["transformer_xl"]
    assert heat[5][2] == pytest.approx(xl["position_bias"][3], abs=1e-12) and heat[2][5] is None


def test_csv_leaves_missing_values_empty(client):
    lines = client.get("/api/compare.csv", params={"max_offset": 600}).text.strip().split("\n")
    header = lines[0].split(",")
    column = header.index("learned_low")
    assert lines[1].split(",")[column] == ""  # Δ = −600: beyond the table
    assert lines[1 + 600].split(",")[column] != ""

"""GET /api/model/long-context from the shipped curves (no model file needed): fields, bins, the
means the guide quotes, the CSV, and a bad text id."""

import json
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[2] / "app" / "data" / "smollm2-135m" / "long-context"


@pytest.mark.parametrize("text", ["copy", "python-docs"])
def test_answer_carries_the_shipped_curves_and_their_means(client, text):
    r = client.get(f"/api/model/long-context?text={text}")
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["texts"] == ["copy", "python-docs"] and d["text"] == text
    assert d["trained_length"] == 8192 and d["precomputed"] is True
    shipped = np.load(DATA / f"{text}.npz")
    assert d["token_ids"] == shipped["token_ids"].tolist()
    edges = np.array(d["bin_edges"])
    assert edges[0] == 0 and edges[-1] == d["length"] - 1 and np.all(np.diff(edges) <= 256)
    assert 8192 in edges  # the trained length is a bin edge: mean_past averages whole bins
    assert set(d["loss"]) == set(d["methods"]) >= {"none", "yarn"}
    for m, curve in d["loss"].items():
        assert len(curve) == len(edges) - 1 and all(np.isfinite(curve))
        # the mean past 8192, recomputed from the bins weighted by their sizes
        sizes = np.diff(edges)
        past = edges[:-1] >= 8192
        assert d["mean_past"][m] == pytest.approx(np.sum(np.array(curve)[past] * sizes[past]) / sizes[past].sum(), rel=1e-6)
    assert d["best"] != "none" and d["best_mean_past"] == min(v for k, v in d["mean_past"].items() if k != "none")
    assert d["none_mean_past"] == d["mean_past"]["none"]
    assert d["second_half"] == (8192 if text == "copy" else None)
    assert d["methods"]["yarn"]["attention_factor"] == pytest.approx(1 + 0.1 * np.log(2))
    assert "scripts/long_context.py" in d["run"]["command"]


def test_csv_has_one_row_per_bin(client):
    r = client.get("/api/model/long-context.csv?text=python-docs")
    assert r.status_code == 200
    lines = r.text.strip().splitlines()
    meta = json.loads((DATA / "meta.json").read_text())
    assert len(lines) - 1 == len(np.load(DATA / "python-docs.npz")["bin_edges"]) - 1
    assert lines[0].startswith("bin start,bin end (exclusive),loss none (nats)")
    assert meta["trained_length"] == 8192


def test_a_bad_text_is_a_422_naming_text(client):
    r = client.get("/api/model/long-context?text=war-and-peace")
    assert r.status_code == 422
    assert r.json()["detail"][0]["param"] == "text" and "copy" in r.text


@pytest.mark.parametrize(("start", "end"), [(8192, 16384), (0, 256), (8192, 9216), (16128, 16384)])
def test_the_window_mean_weighs_each_bin_inside_it_by_its_size(client, start, end):
    d = client.get(f"/api/model/long-context?text=python-docs&window_start={start}&window_end={end}").json()
    shipped = np.load(DATA / "python-docs.npz")
    edges = shipped["bin_edges"]
    assert (d["window_start"], d["window_end"]) == (start, min(end, int(edges[-1])))
    # positions start ≤ t < end that have a next token, one loss each: a bin of 256 holds 256 of them
    positions = np.arange(start, min(end, int(edges[-1])))
    for m in d["loss"]:
        per_position = shipped[f"loss_{m}"].astype(np.float64)[np.searchsorted(edges, positions, side="right") - 1]
        assert d["mean_window"][m] == pytest.approx(per_position.mean(), rel=1e-9)
    if (start, end) == (8192, 16384):
        assert d["mean_window"] == pytest.approx(d["mean_past"])


@pytest.mark.parametrize(
    ("query", "param"),
    [("window_start=8192&window_end=8192", "window_end"), ("window_start=100", "window_start"), ("window_end=20000", "window_end")],
)
def test_a_bad_window_is_a_422_naming_its_end(client, query, param):
    r = client.get(f"/api/model/long-context?{query}")
    assert r.status_code == 422
    assert r.json()["detail"][0]["param"] == param

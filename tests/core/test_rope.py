"""Rotation against independent formulations: explicit 2×2 / block-diagonal matrices, complex
multiplication, the lecture notes' worked numbers and the transformers reference outputs."""

import math

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.rope import interleaved_to_half, offset_scores, pair_index, rotate
from tests.reference_data import cases


def rotation_matrix(phi: float) -> np.ndarray:
    return np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])


def block_diagonal_interleaved(m: float, theta: np.ndarray) -> np.ndarray:
    d = 2 * len(theta)
    big = np.zeros((d, d))
    for j, t in enumerate(theta):
        big[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = rotation_matrix(m * t)
    return big


def test_two_dimensional_worked_example():
    # d = 2, θ_0 = 1, q = k = (1, 0): ⟨q at 0, k at 2⟩ = ⟨q at 5, k at 7⟩ = cos 2.
    theta = inverse_frequencies(2, 10000.0)
    assert theta.tolist() == [1.0]
    q = k = np.array([1.0, 0.0])
    rq = rotate(q, [0, 5], theta, "interleaved")
    rk = rotate(k, [2, 7], theta, "interleaved")
    np.testing.assert_allclose(rk[0], [-0.4161468365471424, 0.9092974268256817], rtol=1e-15)
    np.testing.assert_allclose(rq[1], [0.28366218546322625, -0.9589242746631385], rtol=1e-15)
    assert rq[0] @ rk[0] == pytest.approx(math.cos(2), abs=1e-15)
    assert rq[1] @ rk[1] == pytest.approx(math.cos(2), abs=1e-15)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_rotation_equals_block_diagonal_matrix(pairing):
    rng = np.random.default_rng(1)
    d = 16
    theta = inverse_frequencies(d, 10000.0)
    x = rng.standard_normal(d)
    positions = np.array([0, 1, 7, 123, 4096])
    got = rotate(x, positions, theta, pairing)
    perm = interleaved_to_half(d)
    for row, m in zip(got, positions, strict=True):
        big = block_diagonal_interleaved(m, theta)
        if pairing == "interleaved":
            expected = big @ x
        else:
            # In the half layout, dimension perm[i] of the interleaved vector sits at i.
            x_interleaved = np.empty(d)
            x_interleaved[perm] = x
            expected = (big @ x_interleaved)[perm]
        np.testing.assert_allclose(row, expected, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_stacked_vectors_rotate_like_each_alone(pairing):
    # q and k rotated together (one cos/sin table) equal the block-diagonal matrix at each
    # position applied to each vector; the dimensions past the rotary part are passed through.
    rng = np.random.default_rng(4)
    d, rotary = 10, 6
    theta = inverse_frequencies(rotary, 10000.0)
    positions = np.array([0, 3, 250])
    stacked = rng.standard_normal((2, len(positions), d))
    got = rotate(stacked, positions, theta, pairing)
    assert got.shape == stacked.shape
    perm = interleaved_to_half(rotary)
    for which in range(2):
        for row, m in enumerate(positions):
            x = stacked[which, row]
            big = block_diagonal_interleaved(m, theta)
            if pairing == "interleaved":
                expected_rotary = big @ x[:rotary]
            else:
                x_interleaved = np.empty(rotary)
                x_interleaved[perm] = x[:rotary]
                expected_rotary = (big @ x_interleaved)[perm]
            np.testing.assert_allclose(got[which, row, :rotary], expected_rotary, rtol=1e-12, atol=1e-13)
            assert got[which, row, rotary:].tolist() == x[rotary:].tolist()


def test_rotation_is_complex_multiplication():
    rng = np.random.default_rng(2)
    d = 12
    theta = inverse_frequencies(d, 500000.0)
    x = rng.standard_normal(d)
    m = 37
    got = rotate(x, [m], theta, "interleaved")[0]
    z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * m * theta)
    np.testing.assert_allclose(got[0::2], z.real, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(got[1::2], z.imag, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_norm_is_preserved(pairing):
    rng = np.random.default_rng(3)
    theta = inverse_frequencies(64, 10000.0)
    x = rng.standard_normal(64)
    rotated = rotate(x, np.arange(0, 100000, 997), theta, pairing)
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=1), np.linalg.norm(x), rtol=1e-13)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_score_depends_only_on_the_offset(pairing):
    rng = np.random.default_rng(4)
    theta = inverse_frequencies(32, 10000.0)
    q, k = rng.standard_normal(32), rng.standard_normal(32)
    for m, n in [(2, 5), (7, 10), (1000, 1003)]:
        s = rotate(q, [m], theta, pairing)[0] @ rotate(k, [n], theta, pairing)[0]
        assert s == pytest.approx(offset_scores(q, k, theta, [3], pairing)[0], rel=1e-10)


def test_block_identity_theta_m_transpose_theta_n():
    theta = inverse_frequencies(8, 10000.0)
    for m, n in [(0, 3), (5, 2), (100, 4096)]:
        left = block_diagonal_interleaved(m, theta).T @ block_diagonal_interleaved(n, theta)
        np.testing.assert_allclose(left, block_diagonal_interleaved(n - m, theta), atol=1e-12)


def test_pairings_agree_up_to_the_permutation_and_differ_without_it():
    rng = np.random.default_rng(5)
    d = 16
    theta = inverse_frequencies(d, 10000.0)
    perm = interleaved_to_half(d)
    assert perm.tolist() == [0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15]
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    positions = [0, 3, 50]
    inter_q, inter_k = rotate(q, positions, theta, "interleaved"), rotate(k, positions, theta, "interleaved")
    half_q, half_k = rotate(q[perm], positions, theta, "half"), rotate(k[perm], positions, theta, "half")
    np.testing.assert_allclose(half_q, inter_q[:, perm], atol=1e-13)
    np.testing.assert_allclose(half_q @ half_k.T, inter_q @ inter_k.T, atol=1e-12)
    raw_half = rotate(q, positions, theta, "half") @ rotate(k, positions, theta, "half").T
    assert np.max(np.abs(raw_half - inter_q @ inter_k.T)) > 1e-3


def test_pair_index():
    a, b = pair_index(6, "interleaved")
    assert a.tolist() == [0, 2, 4] and b.tolist() == [1, 3, 5]
    a, b = pair_index(6, "half")
    assert a.tolist() == [0, 1, 2] and b.tolist() == [3, 4, 5]
    with pytest.raises(ValueError):
        pair_index(6, "diagonal")


@pytest.mark.parametrize("case", cases("rope_apply"), ids=lambda c: c["id"])
def test_matches_transformers_apply_rotary_pos_emb(case):
    pairing = "half" if case["convention"] == "rotate_half" else "interleaved"
    theta = inverse_frequencies(case["rotary_dim"], case["base"])
    q_rot = rotate(np.array(case["q"]), case["positions"], theta, pairing)
    k_rot = rotate(np.array(case["k"]), case["positions"], theta, pairing)
    np.testing.assert_allclose(q_rot, case["q_rot"], rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(k_rot, case["k_rot"], rtol=1e-11, atol=1e-11)
    # partial rotary: the pass-through dimensions are copied untouched
    r = case["rotary_dim"]
    np.testing.assert_array_equal(q_rot[:, r:], np.broadcast_to(np.array(case["q"])[r:], q_rot[:, r:].shape))

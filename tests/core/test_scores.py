"""Score matrices: Toeplitz structure, and block reduction against brute force."""

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.rope import block_partition, mean_phasors, rotate
from app.core.scores import content_vectors, score_matrix


def brute_force(q, k, theta, pairing, length, causal=False):
    positions = np.arange(length)
    rq = rotate(q, positions, theta, pairing)
    rk = rotate(k, positions, theta, pairing)
    full = rq @ rk.T / np.sqrt(rq.shape[1])
    if causal:
        full[np.triu_indices(length, 1)] = np.nan
    return full


def diagonal_spread(matrix):
    n = matrix.shape[0]
    return max(np.ptp(np.diagonal(matrix, offset)) for offset in range(-(n - 1), n))


@pytest.mark.parametrize("content", ["repeated", "constant"])
@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_same_content_everywhere_gives_a_toeplitz_matrix(content, pairing):
    q, k = content_vectors(content, 64, 32, seed=0)
    theta = inverse_frequencies(32, 10000.0)
    scores = score_matrix(q, k, theta, pairing, 64, 512)["scores"]
    assert scores.shape == (64, 64)
    scale = np.max(np.abs(scores))
    assert diagonal_spread(scores) <= 1e-12 * scale
    np.testing.assert_allclose(scores, brute_force(q, k, theta, pairing, 64), atol=1e-12)


def test_random_content_is_not_toeplitz_and_matches_brute_force():
    q, k = content_vectors("random", 40, 16, seed=3)
    theta = inverse_frequencies(16, 10000.0)
    scores = score_matrix(q, k, theta, "interleaved", 40, 512)["scores"]
    np.testing.assert_allclose(scores, brute_force(q, k, theta, "interleaved", 40), atol=1e-12)
    assert diagonal_spread(scores) > 0.1


@pytest.mark.parametrize("content", ["repeated", "random"])
@pytest.mark.parametrize("causal", [False, True])
def test_block_means_equal_brute_force_averages(content, causal):
    length, cells, d = 1030, 512, 8  # blocks of 3 positions, the last one of 1
    q, k = content_vectors(content, length, d, seed=7)
    theta = inverse_frequencies(d, 100.0)
    result = score_matrix(q, k, theta, "half", length, cells, causal)
    starts, sizes = result["starts"], result["sizes"]
    assert sizes[0] == 3 and sizes[-1] == 1 and len(starts) == 344
    full = brute_force(q, k, theta, "half", length, causal)
    for a in (0, 1, 100, 343):
        for c in (0, 1, 100, 343):
            block = full[starts[a] : starts[a] + sizes[a], starts[c] : starts[c] + sizes[c]]
            expected = np.nanmean(block) if not np.all(np.isnan(block)) else np.nan
            got = result["scores"][a, c]
            if np.isnan(expected):
                assert np.isnan(got)
            else:
                assert got == pytest.approx(expected, abs=1e-12)


def test_long_sequences_stay_bounded_by_cells():
    q, k = content_vectors("repeated", 131072, 64, seed=0)
    theta = inverse_frequencies(64, 10000.0)
    result = score_matrix(q, k, theta, "interleaved", 131072, 512)
    assert result["scores"].shape == (512, 512)
    assert result["sizes"].tolist() == [256] * 512


def test_mean_phasors_match_direct_sums_including_full_turns():
    theta = np.array([1.0, 1e-7, np.pi, 2 * np.pi, 0.5])
    starts, sizes = block_partition(20, 6)
    got = mean_phasors(starts, sizes, theta)
    for b, (s, n) in enumerate(zip(starts, sizes, strict=True)):
        m = np.arange(s, s + n)
        np.testing.assert_allclose(got[b], np.exp(1j * np.outer(m, theta)).mean(axis=0), atol=1e-12)


def test_constant_content_and_seeded_content():
    q, k = content_vectors("constant", 5, 4, seed=0)
    assert q.tolist() == [1, 1, 1, 1] and k.tolist() == [1, 1, 1, 1]
    a = content_vectors("repeated", 5, 4, seed=9)
    b = content_vectors("repeated", 5, 4, seed=9)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], a[1])
    with pytest.raises(ValueError):
        content_vectors("noise", 5, 4, 0)


def test_causal_mask_hides_the_future():
    q, k = content_vectors("repeated", 6, 4, seed=1)
    theta = inverse_frequencies(4, 10000.0)
    scores = score_matrix(q, k, theta, "interleaved", 6, 512, causal=True)["scores"]
    assert np.all(np.isnan(scores[np.triu_indices(6, 1)]))
    assert not np.any(np.isnan(scores[np.tril_indices(6)]))

"""Transformer-XL's four score terms against an explicit loop over every query and key."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.transformer_xl import (
    constancy,
    relative_inverse_frequencies,
    relative_sinusoid,
    score_terms,
    stand_in_weights,
)


def loop_terms(E, W_q, W_kE, W_kR, u, v, query_len):
    """A_ij term by term, written out from Dai et al. (2019) eq. (3) with plain Python loops.

    Queries are the last query_len of the key_len positions; R_k = [sin(k w_0..), cos(k w_0..)]
    with w_i = 10000^(−2i/d); keys after their query have no term (None)."""
    key_len, d = len(E), len(E[0])
    w = [10000.0 ** (-(2 * i) / d) for i in range(d // 2)]

    def R(k):
        return [math.sin(k * wi) for wi in w] + [math.cos(k * wi) for wi in w]

    def matvec(M, x):
        return [sum(M[r][c] * x[c] for c in range(d)) for r in range(d)]

    def dot(a, b):
        return sum(x * y for x, y in zip(a, b, strict=True))

    out = {name: [[None] * key_len for _ in range(query_len)] for name in "abcd"}
    for row in range(query_len):
        i = key_len - query_len + row
        q = matvec(W_q, E[i])
        for j in range(key_len):
            if j > i:
                continue
            k = matvec(W_kE, E[j])
            r = matvec(W_kR, R(i - j))
            out["a"][row][j] = dot(q, k)
            out["b"][row][j] = dot(q, r)
            out["c"][row][j] = dot(u, k)
            out["d"][row][j] = dot(v, r)
    return out


@pytest.mark.parametrize(("query_len", "key_len", "d", "seed", "content"), [(3, 7, 6, 0, "random"), (5, 5, 4, 9, "random"), (2, 6, 8, 3, "repeated"), (1, 1, 2, 1, "random")])
def test_each_term_matches_the_loop(query_len, key_len, d, seed, content):
    weights = stand_in_weights(d, key_len, seed, content)
    args = [weights[name].tolist() for name in ("embeddings", "W_q", "W_kE", "W_kR", "u", "v")]
    expected = loop_terms(*args, query_len)
    got = score_terms(*(weights[name] for name in ("embeddings", "W_q", "W_kE", "W_kR", "u", "v")), query_len)
    for name in "abcd":
        for row in range(query_len):
            for j in range(key_len):
                if expected[name][row][j] is None:
                    assert math.isnan(got[name][row, j])
                else:
                    assert got[name][row, j] == pytest.approx(expected[name][row][j], abs=1e-12)
    total = got["a"] + got["b"] + got["c"] + got["d"]
    np.testing.assert_array_equal(np.isnan(got["sum"]), np.isnan(total))
    np.testing.assert_allclose(got["sum"][~np.isnan(total)], total[~np.isnan(total)], rtol=0, atol=1e-12)


def test_offsets_and_query_positions_follow_the_memory_layout():
    weights = stand_in_weights(4, 6, 0)
    got = score_terms(weights["embeddings"], weights["W_q"], weights["W_kE"], weights["W_kR"], weights["u"], weights["v"], 2)
    assert got["query_positions"].tolist() == [4, 5]
    assert got["offsets"].tolist() == [[4, 3, 2, 1, 0, -1], [5, 4, 3, 2, 1, 0]]
    assert np.isnan(got["a"][0, 5]) and not np.isnan(got["a"][1, 5])


def test_which_term_depends_on_what():
    weights = stand_in_weights(16, 20, 5)
    got = score_terms(weights["embeddings"], weights["W_q"], weights["W_kE"], weights["W_kR"], weights["u"], weights["v"], 12)
    c, d = constancy(got["c"]), constancy(got["d"])
    assert c["column"] == 0.0 and c["diagonal"] > 0.1  # key content alone
    assert d["diagonal"] == 0.0 and d["column"] > 0.1  # distance alone
    for name in "ab":
        spread = constancy(got[name])
        assert spread["diagonal"] > 0.1 and spread["column"] > 0.1
    # one token repeated: (a) and (c) constant, (b) a function of the distance like (d)
    same = stand_in_weights(16, 20, 5, "repeated")
    rep = score_terms(same["embeddings"], same["W_q"], same["W_kE"], same["W_kR"], same["u"], same["v"], 12)
    assert constancy(rep["a"])["row"] == pytest.approx(0.0, abs=1e-12) and constancy(rep["a"])["column"] == pytest.approx(0.0, abs=1e-12)
    assert constancy(rep["c"])["row"] == 0.0
    assert constancy(rep["b"])["diagonal"] == pytest.approx(0.0, abs=1e-12)


def test_relative_sinusoid_is_the_original_code_layout():
    d = 8
    inv = relative_inverse_frequencies(d)
    np.testing.assert_allclose(inv, [1.0, 10000 ** -0.25, 10000 ** -0.5, 10000 ** -0.75], rtol=1e-15)
    R = relative_sinusoid(np.array([0, 3]), d)
    assert R[0].tolist() == [0.0] * 4 + [1.0] * 4
    np.testing.assert_allclose(R[1], [math.sin(3 * w) for w in inv] + [math.cos(3 * w) for w in inv], rtol=1e-15)
    with pytest.raises(ValueError):
        relative_inverse_frequencies(7)


def test_constancy_of_known_matrices():
    toeplitz = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 2.0]])
    assert constancy(toeplitz)["diagonal"] == 0.0 and constancy(toeplitz)["column"] == 1.0
    masked = np.array([[1.0, np.nan], [1.0, 5.0]])
    assert constancy(masked) == {"diagonal": 4.0, "column": 0.0, "row": 4.0}

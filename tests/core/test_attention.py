"""The tiny attention of the "Why position?" page: exact permutation equivariance without position,
agreement with an independent matrix formulation, and position breaking the symmetry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.absolute import learned_table
from app.core.attention import (
    POSITIONS,
    attention,
    encode_sentence,
    projection_weights,
    reorder,
    word_embedding,
)
from app.core.sinusoidal import sinusoidal_table

TABLE = 12


def reference_attention(x, w_q, w_k, w_v, rotations=None):
    """softmax(Q Kᵀ/√d) V with plain matrix products; rotations: (L, d, d) explicit matrices or None."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    if rotations is not None:
        q = np.einsum("lij,lj->li", rotations, q)
        k = np.einsum("lij,lj->li", rotations, k)
    scores = q @ k.T / math.sqrt(x.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return scores, weights @ v


def rotation_matrices(length, dim, base=10000.0):
    """Block-diagonal R_m with 2×2 blocks [[cos, −sin], [sin, cos]] on dims (2j, 2j+1), θ_j = base^(−2j/d)."""
    mats = np.zeros((length, dim, dim))
    for m in range(length):
        for j in range(dim // 2):
            angle = m * base ** (-2 * j / dim)
            c, s = math.cos(angle), math.sin(angle)
            mats[m, 2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = [[c, -s], [s, c]]
    return mats


def test_dog_bites_man_gives_bites_the_identical_output():
    a = encode_sentence(["dog", "bites", "man"], 8, 0, "none", TABLE)
    b = encode_sentence(["man", "bites", "dog"], 8, 0, "none", TABLE)
    assert (a["out"][1] == b["out"][1]).all()  # exact equality, every bit
    assert (a["out"][1] - b["out"][1] == 0).all()
    # and the other two words simply swap places
    assert (a["out"][0] == b["out"][2]).all() and (a["out"][2] == b["out"][0]).all()


@pytest.mark.parametrize("position", ["learned", "sinusoidal", "rope"])
def test_position_makes_the_outputs_differ(position):
    a = encode_sentence(["dog", "bites", "man"], 8, 0, position, TABLE)
    b = encode_sentence(["man", "bites", "dog"], 8, 0, position, TABLE)
    assert np.linalg.norm(a["out"][1] - b["out"][1]) > 1e-4


words_strategy = st.lists(st.sampled_from(["dog", "bites", "man", "the", "a", "cat", "Dog"]), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    words=words_strategy,
    dim=st.sampled_from([2, 4, 6, 8, 16, 32]),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_attention_without_position_is_exactly_permutation_equivariant(words, dim, seed, data):
    perm = data.draw(st.permutations(range(len(words))))
    a = encode_sentence(words, dim, seed, "none", TABLE)
    b = encode_sentence([words[i] for i in perm], dim, seed, "none", TABLE)
    # Attention(P X) = P Attention(X), bit for bit
    assert np.array_equal(b["out"], a["out"][list(perm)])
    assert np.array_equal(b["scores"], a["scores"][np.ix_(perm, perm)])


def test_matches_independent_matrix_formulation():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 8))
    w = projection_weights(8, 3)
    got = attention(x, *w)
    scores, out = reference_attention(x, *w)
    np.testing.assert_allclose(got["scores"], scores, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["out"], out, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["weights"].sum(axis=1), 1.0, atol=1e-15)


def test_rope_attention_matches_explicit_rotation_matrices():
    words = ["the", "quick", "brown", "fox"]
    got = encode_sentence(words, 8, 5, "rope", TABLE)
    x = np.array([word_embedding(w, 8, 5) for w in words])
    scores, out = reference_attention(x, *projection_weights(8, 5), rotations=rotation_matrices(4, 8))
    np.testing.assert_allclose(got["scores"], scores, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["out"], out, rtol=0, atol=1e-12)


def test_additive_positions_are_the_right_tables():
    words = ["one", "two", "three"]
    for position, table in [
        ("sinusoidal", sinusoidal_table(np.arange(3), 8, 10000.0, "interleaved")),
        ("learned", learned_table(TABLE, 8, 2)[:3]),
    ]:
        got = encode_sentence(words, 8, 2, position, TABLE)
        base = np.array([word_embedding(w, 8, 2) for w in words])
        np.testing.assert_array_equal(got["x"], base + table)


def test_repeated_tokens_get_equal_content_scores_without_position():
    words = ["the", "cat", "saw", "the", "dog"]
    plain = encode_sentence(words, 8, 0, "none", TABLE)
    assert (plain["scores"][:, 0] == plain["scores"][:, 3]).all()  # every query scores both "the" alike
    assert (plain["weights"][:, 0] == plain["weights"][:, 3]).all()
    for position in ("learned", "sinusoidal", "rope"):
        with_position = encode_sentence(words, 8, 0, position, TABLE)
        assert not (with_position["scores"][:, 0] == with_position["scores"][:, 3]).all()


def test_word_embeddings_are_seeded_and_case_insensitive():
    assert np.array_equal(word_embedding("dog", 8, 0), word_embedding("dog", 8, 0))
    assert np.array_equal(word_embedding("Dog", 8, 0), word_embedding("dog", 8, 0))
    assert not np.array_equal(word_embedding("dog", 8, 0), word_embedding("man", 8, 0))
    assert not np.array_equal(word_embedding("dog", 8, 0), word_embedding("dog", 8, 1))


def test_learned_table_is_gpt2_like():
    table = learned_table(1024, 64, 0)
    assert table.shape == (1024, 64)
    assert abs(table.std() - 0.01) < 0.0005 and abs(table.mean()) < 0.0005
    np.testing.assert_array_equal(learned_table(10, 64, 0), table[:10])  # a row does not depend on max_len


def test_learned_position_needs_a_row():
    with pytest.raises(ValueError):
        encode_sentence(["w"] * 5, 4, 0, "learned", 4)


def test_reorderings():
    words = ["a", "b", "c", "d"]
    assert reorder(words, "reverse") == [3, 2, 1, 0]
    assert reorder(words, "swap_ends") == [3, 1, 2, 0]
    assert reorder(words, "rotate") == [1, 2, 3, 0]
    shuffled = reorder(words, "shuffle", 3)
    assert sorted(shuffled) == [0, 1, 2, 3] and shuffled == reorder(words, "shuffle", 3)
    assert reorder(["x"], "swap_ends") == [0]


def test_every_position_kind_runs():
    for position in POSITIONS:
        result = encode_sentence(["a", "b", "a"], 4, 0, position, TABLE)
        assert result["out"].shape == (3, 4) and np.isfinite(result["out"]).all()

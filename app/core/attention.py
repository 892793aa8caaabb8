"""A tiny single-head attention, to show that attention without position cannot tell word order.

    q_i = x_i W_q,  k_j = x_j W_k,  v_j = x_j W_v            x_i: (d,), W: (d, d)
    s_ij = q_i · k_j / √d,  a_ij = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij)
    out_i = Σ_j a_ij v_j

(Vaswani et al. 2017, eq. 1, one head, no mask.)  Position can enter in three ways:
``learned`` and ``sinusoidal`` add a vector p_i to x_i before the projections (GPT-2, the original
transformer); ``rope`` rotates q_i and k_j by their positions after the projections (RoFormer).
With ``none`` the output for token i depends only on x_i and on the *set* of (x_j) — attention is
permutation-equivariant: Attention(P X) = P Attention(X) for every permutation matrix P.

Exactness.  The identity holds in exact arithmetic; this module makes it hold bit for bit in
floating point too.  Two kinds of sums occur:

* sums over the d *components* (the projections x_i W and the dot products q_i · k_j): their
  terms come in component order, which is the same for every token wherever it sits.  They are
  reduced with numpy over the contiguous last axis of an array of elementwise products, so each
  result depends only on that row's values (no BLAS call, whose blocking may depend on where a
  row lies in the matrix);
* sums over the *tokens* j (the softmax denominator and Σ_j a_ij v_j): here the order of the
  terms follows the sentence.  They are summed in a canonical order, the terms sorted by value
  first, so the same multiset of terms always gives the same bits.

Products, quotients, max and exp are elementwise and depend only on their operands.  So without
position out_i depends only on q_i and the multiset of (k_j, v_j) pairs, and reordering the tokens
reorders the outputs without changing a bit.  The tests check this exactly (==, not closeness).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.core.absolute import learned_table
from app.core.frequencies import inverse_frequencies
from app.core.rope import rotate
from app.core.sinusoidal import sinusoidal_table

POSITIONS: tuple[str, ...] = ("none", "learned", "sinusoidal", "rope")
POSITION_BASE = 10000.0


def word_key(word: str) -> str:
    """The vocabulary entry of a word: case-folded, so "Dog" and "dog" are one token."""
    return word.casefold()


def word_embedding(word: str, dim: int, seed: int) -> np.ndarray:
    """A seeded standard-normal embedding for one word.  Shape ``(dim,)``.

    Deterministic across processes and machines: the word's UTF-8 bytes are hashed with BLAKE2b
    (not Python's salted ``hash``) and the digest seeds ``numpy.random.default_rng`` together with
    ``seed``.  Equal words get equal vectors; every distinct word gets its own.
    """
    digest = hashlib.blake2b(word_key(word).encode("utf-8"), digest_size=8).digest()
    rng = np.random.default_rng([seed, 1, int.from_bytes(digest, "little")])
    return rng.standard_normal(dim)


def projection_weights(dim: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_q, W_k, W_v, each ``(dim, dim)`` with entries N(0, 1/dim), drawn in that order."""
    rng = np.random.default_rng([seed, 0])
    scale = 1.0 / math.sqrt(dim)
    w_q, w_k, w_v = (rng.standard_normal((dim, dim)) * scale for _ in range(3))
    return w_q, w_k, w_v


def position_vectors(kind: str, length: int, dim: int, seed: int, table_len: int) -> np.ndarray | None:
    """The vector added to x_p for p = 0 … length−1, or None for ``none`` and ``rope``.

    ``learned``: the first rows of :func:`app.core.absolute.learned_table` (std 0.01; ``table_len``
    rows, so a position's row does not change with the sentence length).  ``sinusoidal``: the interleaved Vaswani table,
    base 10 000.  Shape ``(length, dim)``.
    """
    if kind == "learned":
        if length > table_len:
            raise ValueError(f"the learned table has {table_len} rows; position {length - 1} has none")
        return learned_table(table_len, dim, seed)[:length]
    if kind == "sinusoidal":
        return sinusoidal_table(np.arange(length), dim, POSITION_BASE, "interleaved")
    if kind in ("none", "rope"):
        return None
    raise ValueError(f"position must be one of {POSITIONS}, got {kind!r}")


def _component_sums(products: np.ndarray) -> np.ndarray:
    """Sum over the last axis (the components, in their fixed order).  ``(..., d)`` → ``(...)``."""
    return np.add.reduce(np.ascontiguousarray(products), axis=-1)


def _token_sums(terms: np.ndarray) -> np.ndarray:
    """Sum over the last axis (the tokens) in canonical order: terms sorted by value first."""
    return np.add.reduce(np.sort(terms, axis=-1), axis=-1)


def project(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Row i is x_i W.  ``(L, d) @ (d, e)`` → ``(L, e)``; each row depends only on x_i."""
    return _component_sums(np.asarray(x, dtype=np.float64)[:, None, :] * np.asarray(w, dtype=np.float64).T[None, :, :])


def attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    rope_inv_freq: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Single-head attention over the rows of x (no mask), bit-exactly permutation-equivariant.

    x: ``(L, d)`` token vectors (position already added, if any); w_*: ``(d, d)``;
    rope_inv_freq: ``(d/2,)`` to rotate q_i and k_j by their positions i and j (interleaved
    pairing), or None.  Returns ``q``, ``k``, ``v`` ``(L, d)``, ``scores`` and ``weights``
    ``(L, L)`` (row = query, column = key), and ``out`` ``(L, d)``.
    """
    x = np.asarray(x, dtype=np.float64)
    dim = x.shape[1]
    q, k, v = project(x, w_q), project(x, w_k), project(x, w_v)
    if rope_inv_freq is not None:
        positions = np.arange(len(x))
        q = rotate(q, positions, rope_inv_freq, "interleaved")
        k = rotate(k, positions, rope_inv_freq, "interleaved")
    scores = _component_sums(q[:, None, :] * k[None, :, :]) / math.sqrt(dim)
    exps = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = exps / _token_sums(exps)[:, None]
    out = _token_sums(weights[:, None, :] * v.T[None, :, :])  # [i, c] = Σ_j a_ij v_jc
    return {"q": q, "k": k, "v": v, "scores": scores, "weights": weights, "out": out}


def encode_sentence(words: Sequence[str], dim: int, seed: int, position: str, table_len: int) -> dict[str, np.ndarray]:
    """Embed the words, add or apply position as ``position`` says, and run :func:`attention`.

    Returns the :func:`attention` dict plus ``x`` ``(L, d)``, the input rows after adding position.
    """
    x = np.array([word_embedding(word, dim, seed) for word in words]).reshape(len(words), dim)
    added = position_vectors(position, len(words), dim, seed, table_len)
    if added is not None:
        x = x + added
    w_q, w_k, w_v = projection_weights(dim, seed)
    inv_freq = inverse_frequencies(dim, POSITION_BASE) if position == "rope" else None
    return {"x": x, **attention(x, w_q, w_k, w_v, inv_freq)}


def reorder(words: Sequence[str], how: str, seed: int = 0) -> list[int]:
    """A permutation ``perm`` of the word indices: the reordered sentence is ``[words[i] for i in perm]``.

    ``reverse``: last word first.  ``swap_ends``: the first and last words trade places.
    ``rotate``: the first word moves to the end.  ``shuffle``: a seeded random order
    (``default_rng([seed, 3]).permutation``).
    """
    n = len(words)
    if how == "reverse":
        return list(range(n - 1, -1, -1))
    if how == "swap_ends":
        perm = list(range(n))
        perm[0], perm[-1] = perm[-1], perm[0]
        return perm
    if how == "rotate":
        return list(range(1, n)) + [0]
    if how == "shuffle":
        return [int(i) for i in np.random.default_rng([seed, 3]).permutation(n)]
    raise ValueError(f"unknown reordering {how!r}")


def causal_nope(length: int) -> dict[str, Any]:
    """A causal decoder without position (NoPE) can still tell where a token is.

    Give every position the same content, so every score is the same number (0 here); the causal
    mask still removes the keys after the query, so softmax row m spreads its weight evenly over
    keys 0 … m: a_mn = 1/(m + 1) for n ≤ m (Haviv et al. 2022, "Transformer Language Models
    without Positional Encodings Still Learn Positional Information").  A value only the first
    token carries (v_0 = 1, v_n = 0 otherwise, like a beginning-of-sequence marker) then comes out
    as out_m = Σ_n a_mn v_n = 1/(m + 1), from which m = 1/out_m − 1 is read back.  Computed with
    the ordinary masked softmax, not the closed form.  Shapes: ``weights`` (L, L) with NaN above
    the diagonal, ``output`` and ``recovered`` (L,).
    """
    scores = np.zeros((length, length))
    future = np.triu(np.ones((length, length), dtype=bool), k=1)
    scores[future] = -np.inf
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = shifted / shifted.sum(axis=1, keepdims=True)
    values = np.zeros(length)
    values[0] = 1.0
    output = weights @ values
    recovered = 1.0 / output - 1.0
    positions = np.arange(length)
    return {
        "weights": np.where(future, np.nan, weights),
        "output": output,
        "recovered": recovered,
        "largest_recovery_error": float(np.max(np.abs(recovered - positions))),
        "rounded_back": bool(np.array_equal(np.rint(recovered), positions)),
    }

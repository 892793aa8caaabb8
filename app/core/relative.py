"""Relative position schemes: Shaw et al.'s clipped index, T5's buckets, ALiBi's slopes and biases.

All three make the attention score between query position i and key position j depend on the
offset ``j − i`` (key minus query) instead of on i and j themselves.

* Shaw, Uszkoreit & Vaswani 2018: offsets are clipped to [−k, k] and shifted to an index
  ``clip(j − i, −k, k) + k`` into a learned table of 2k+1 vectors (one table for keys, one for
  values).  Source: tensor2tensor ``common_attention._generate_relative_positions_matrix``.
* T5 (Raffel et al. 2020): the offset is mapped to one of ``num_buckets`` buckets, one bucket per
  offset near zero and logarithmically wider buckets further out, and each bucket has a learned
  scalar bias per head.  Source: Hugging Face ``T5Attention._relative_position_bucket``.
* ALiBi (Press, Smith & Lewis 2021): head h adds ``−m_h·(i − j)`` to the score of a past key, with
  fixed slopes m_h from a geometric sequence.  Source: the paper's ``get_slopes``
  (ofirpress/attention_with_linear_biases, fairseq ``TransformerDecoder``).
"""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# Shaw et al.


def shaw_index_matrix(query_len: int, key_len: int, max_relative_position: int) -> np.ndarray:
    """index[i, j] = clip(j − (key_len − query_len + i), −k, k) + k.

    The queries are the *last* ``query_len`` of the ``key_len`` positions, as tensor2tensor does
    when the two lengths differ (``range_vec_k[-length_q:]``).  Shape ``(query_len, key_len)``,
    int64, values in [0, 2k].  Requires ``query_len ≤ key_len`` and ``k ≥ 0``.
    """
    if query_len > key_len:
        raise ValueError(f"query_len ({query_len}) must not exceed key_len ({key_len})")
    if max_relative_position < 0:
        raise ValueError("max_relative_position must be at least 0")
    keys = np.arange(key_len, dtype=np.int64)
    queries = keys[key_len - query_len :]
    offsets = keys[None, :] - queries[:, None]
    return np.clip(offsets, -max_relative_position, max_relative_position) + max_relative_position


def shaw_key_term(queries: np.ndarray, table: np.ndarray, key_len: int, max_relative_position: int) -> np.ndarray:
    """Shaw et al.'s relative part of the logit: q_i · a^K_{index[i, j]} / √d.

    e_ij = q_i·(k_j + a^K_ij)/√d (Shaw, Uszkoreit & Vaswani 2018, eq. 4) splits into the content
    term q_i·k_j/√d and this term, which depends on j only through the clipped offset.  queries:
    ``(query_len, d)`` (the last query_len of key_len positions, as in
    :func:`shaw_index_matrix`); table: ``(2k+1, d)``, row r the vector of offset r − k.  Computed
    as tensor2tensor's ``_relative_attention_inner`` does it: the (query_len, 2k+1) products
    q_i·a_r first, then each cell picks its row.  Returns ``(query_len, key_len)``.
    """
    queries = np.asarray(queries, dtype=np.float64)
    table = np.asarray(table, dtype=np.float64)
    if table.shape != (2 * max_relative_position + 1, queries.shape[1]):
        raise ValueError(f"table must be (2k+1, d) = {(2 * max_relative_position + 1, queries.shape[1])}, got {table.shape}")
    index = shaw_index_matrix(len(queries), key_len, max_relative_position)
    products = queries @ table.T / np.sqrt(queries.shape[1])
    return np.take_along_axis(products, index, axis=1)


def shaw_clipped_offsets(offsets: np.ndarray, max_relative_position: int) -> np.ndarray:
    """clip(Δ, −k, k): the offset whose learned vector a key at offset Δ receives.  Shape of input."""
    return np.clip(np.asarray(offsets, dtype=np.int64), -max_relative_position, max_relative_position)


# ---------------------------------------------------------------------------------------------
# T5


def t5_exact_limit(num_buckets: int, bidirectional: bool) -> int:
    """``max_exact``: distances below it get a bucket of their own (num_buckets/4 or /2)."""
    half = num_buckets // 2 if bidirectional else num_buckets
    return half // 2


def t5_bucket(relative_position: np.ndarray, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True) -> np.ndarray:
    """T5's bucket of each offset Δ = key − query.  Shape of input, int64.

    Bidirectional: half of the buckets for keys at or before the query, half (offset by
    ``num_buckets//2``) for keys after it; n = |Δ|.  Causal: all buckets for the past,
    n = max(−Δ, 0), so every future key shares bucket 0 with Δ = 0.  With B the buckets of one side
    and E = B//2: n < E → bucket n; otherwise
    ``E + trunc(ln(n/E) / ln(max_distance/E) · (B − E))``, at most B − 1.

    The logarithmic branch is evaluated in float32, as the reference does (torch ``float()``
    tensors): the quotient n/E and the log are rounded to float32, ln(max_distance/E) is a float64
    constant rounded to float32, and the product is truncated toward zero.
    """
    rel = np.asarray(relative_position, dtype=np.int64)
    side = num_buckets
    offset = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        side = num_buckets // 2
        offset = np.where(rel > 0, side, 0)
        n = np.abs(rel)
    else:
        n = np.maximum(-rel, 0)
    exact = side // 2
    if exact < 1:
        raise ValueError("num_buckets leaves no exact bucket: need at least 4 (bidirectional) or 2 (causal)")
    if max_distance <= exact:
        raise ValueError(f"max_distance ({max_distance}) must exceed the exact range ({exact})")
    far = np.maximum(n, exact)  # the log branch is only used where n ≥ exact
    quotient = far.astype(np.float32) / np.float32(exact)
    log32 = np.log(quotient.astype(np.float64)).astype(np.float32)
    scaled = log32 / np.float32(math.log(max_distance / exact)) * np.float32(side - exact)
    large = np.minimum(exact + scaled.astype(np.int64), side - 1)
    return offset + np.where(n < exact, n, large)


def t5_bucket_ranges(num_buckets: int, max_distance: int, bidirectional: bool, limit: int) -> list[dict[str, int | None]]:
    """For each bucket, the offsets Δ in [−limit, limit] that fall in it, as {bucket, low, high, count}.

    low/high are the smallest and largest offset in the bucket (None when no offset in the range
    falls there, e.g. bucket num_buckets//2 in bidirectional mode, which Δ = 0 never reaches).
    """
    offsets = np.arange(-limit, limit + 1)
    buckets = t5_bucket(offsets, num_buckets, max_distance, bidirectional)
    # One pass instead of one scan per bucket: offsets are increasing, so a bucket's first and last
    # occurrences (stable sort by bucket) are its smallest and largest offsets.
    count = np.bincount(buckets, minlength=num_buckets)
    order = np.argsort(buckets, kind="stable")
    end = np.cumsum(count)
    present = count > 0
    low = np.zeros(num_buckets, dtype=np.int64)
    high = np.zeros(num_buckets, dtype=np.int64)
    low[present] = offsets[order[(end - count)[present]]]
    high[present] = offsets[order[end[present] - 1]]
    return [
        {
            "bucket": bucket,
            "low": int(lo) if has else None,
            "high": int(hi) if has else None,
            "count": int(n),
        }
        for bucket, (lo, hi, n, has) in enumerate(zip(low.tolist(), high.tolist(), count.tolist(), present.tolist(), strict=True))
    ]


def t5_bias_matrix(seq_len: int, bucket_bias: np.ndarray, num_buckets: int, max_distance: int, bidirectional: bool) -> np.ndarray:
    """bias[i, j] = bucket_bias[bucket(j − i)] for query i, key j in 0..seq_len−1.

    bucket_bias: ``(num_buckets,)`` (one head).  Returns ``(seq_len, seq_len)``.  The matrix is
    Toeplitz, so the buckets are computed for the 2L−1 offsets once and indexed.
    """
    offsets = np.arange(-(seq_len - 1), seq_len)
    per_offset = np.asarray(bucket_bias)[t5_bucket(offsets, num_buckets, max_distance, bidirectional)]
    i = np.arange(seq_len)
    return per_offset[(i[None, :] - i[:, None]) + seq_len - 1]


# ---------------------------------------------------------------------------------------------
# ALiBi


def alibi_slopes(num_heads: int) -> np.ndarray:
    """Slope m_h of each head, h = 0 … n−1.  Shape ``(n,)`` float64.

    n a power of two: m_h = 2^(−8(h+1)/n), a geometric sequence from 2^(−8/n) down to 2^(−8).
    Otherwise, with P the largest power of two below n: the P slopes of P heads, followed by the
    first n − P of the odd-numbered slopes of 2P heads, 2^(−8(2i+1)/(2P)) = 2^(−4(2i+1)/P)
    (the paper's ``get_slopes(2P)[0::2]``).  Example n = 12: 2^−1 … 2^−8, then 2^−0.5, 2^−1.5,
    2^−2.5, 2^−3.5.  Exponents are exact here and 2^x is evaluated directly, so powers of two are
    exact.
    """
    if num_heads < 1:
        raise ValueError("num_heads must be at least 1")
    power = 1 << (num_heads.bit_length() - 1)
    first = np.exp2(-8.0 * np.arange(1, power + 1) / power)
    extra = np.exp2(-4.0 * (2 * np.arange(num_heads - power) + 1) / power)
    return np.concatenate([first, extra])


def alibi_bias(slopes: np.ndarray, seq_len: int, form: str = "paper") -> np.ndarray:
    """Bias added to the scores of each head.  slopes ``(H,)`` → ``(H, L, L)``; NaN above the diagonal.

    ``paper``: −m_h·(i − j) for key j ≤ query i (0 on the diagonal, more negative further back).
    ``bloom``: m_h·j, what fairseq's ALiBi, BLOOM's ``build_alibi_tensor`` (all-ones mask) and MPT
    (shifted by a constant) add.  Row i of the two differs by the constant m_h·i, so the softmax
    of every row is the same.  Keys after the query are masked (NaN) in both.
    """
    i = np.arange(seq_len)
    slopes = np.asarray(slopes, dtype=np.float64)[:, None, None]
    if form == "paper":
        bias = -slopes * (i[:, None] - i[None, :])
    elif form == "bloom":
        bias = slopes * np.broadcast_to(i[None, :], (seq_len, seq_len))
    else:
        raise ValueError(f"form must be 'paper' or 'bloom', got {form!r}")
    return np.where(i[None, :] <= i[:, None], bias + 0.0, np.nan)  # + 0.0 turns −0.0 into 0.0


def alibi_penalty(slopes: np.ndarray, distances: np.ndarray) -> np.ndarray:
    """−m_h·n for each head and each distance n = i − j ≥ 0 to a past key.  ``(H,)``, ``(N,)`` → ``(H, N)``."""
    return -np.multiply.outer(np.asarray(slopes, dtype=np.float64), np.asarray(distances, dtype=np.float64))

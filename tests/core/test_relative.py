"""Shaw's clipped index, T5's buckets and ALiBi's slopes against the reference data and hand-built cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.relative import (
    alibi_bias,
    alibi_penalty,
    alibi_slopes,
    shaw_clipped_offsets,
    shaw_index_matrix,
    t5_bias_matrix,
    t5_bucket,
    t5_bucket_ranges,
    t5_exact_limit,
)
from tests.reference_data import cases

T5_CASES = cases("t5_buckets")


# ---- T5 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", T5_CASES, ids=[f"{c['num_buckets']}-{c['max_distance']}-{'bi' if c['bidirectional'] else 'causal'}" for c in T5_CASES]
)
def test_t5_buckets_match_hugging_face(case):
    rel = np.array(case["relative_position"])
    expected = np.array(case["bucket"])
    window = (rel >= -300) & (rel <= 300)
    assert window.sum() == 601  # every offset −300 … 300 is covered
    got = t5_bucket(rel, case["num_buckets"], case["max_distance"], case["bidirectional"])
    np.testing.assert_array_equal(got[window], expected[window])
    np.testing.assert_array_equal(got, expected)  # also ±1000 and ±20000


def test_reference_covers_two_settings_in_both_directions():
    settings = {(c["num_buckets"], c["max_distance"], c["bidirectional"]) for c in T5_CASES}
    assert {(32, 128, True), (32, 128, False), (16, 64, True), (16, 64, False)} <= settings


def _ranges(table: dict[tuple[int, int], int], n: np.ndarray) -> np.ndarray:
    out = np.full(n.shape, -1)
    for (low, high), bucket in table.items():
        out[(n >= low) & (n <= high)] = bucket
    return out


def test_t5_bidirectional_table_by_distance():
    # REFERENCE-FORMULAS §5: distances 0–7 exact, then 8–11→8, 12–15→9, 16–22→10, 23–31→11, 32–45→12,
    # 46–63→13, 64–90→14, ≥91→15; keys after the query add 16.
    table = {(0, 0): 0, (1, 1): 1, (2, 2): 2, (3, 3): 3, (4, 4): 4, (5, 5): 5, (6, 6): 6, (7, 7): 7,
             (8, 11): 8, (12, 15): 9, (16, 22): 10, (23, 31): 11, (32, 45): 12, (46, 63): 13, (64, 90): 14,
             (91, 10**6): 15}  # fmt: skip
    n = np.arange(0, 400)
    expected = _ranges(table, n)
    np.testing.assert_array_equal(t5_bucket(-n, 32, 128, True), expected)
    np.testing.assert_array_equal(t5_bucket(n[1:], 32, 128, True), expected[1:] + 16)
    assert 16 not in set(t5_bucket(np.arange(-500, 501), 32, 128, True).tolist())


def test_t5_causal_table_and_future_keys():
    table = {(0, 15): None, (16, 18): 16, (19, 20): 17, (21, 23): 18, (24, 26): 19, (27, 30): 20, (31, 34): 21,
             (35, 39): 22, (40, 45): 23, (46, 51): 24, (52, 58): 25, (59, 66): 26, (67, 76): 27, (77, 86): 28,
             (87, 98): 29, (99, 112): 30, (113, 10**6): 31}  # fmt: skip
    n = np.arange(0, 300)
    got = t5_bucket(-n, 32, 128, False)
    for (low, high), bucket in table.items():
        part = got[low : high + 1]
        if bucket is None:
            np.testing.assert_array_equal(part, np.arange(low, min(high, 299) + 1))
        else:
            assert set(part.tolist()) == {bucket}
    np.testing.assert_array_equal(t5_bucket(np.arange(1, 200), 32, 128, False), 0)


def test_t5_limits_and_bad_settings():
    assert t5_exact_limit(32, True) == 8 and t5_exact_limit(32, False) == 16
    with pytest.raises(ValueError):
        t5_bucket(np.arange(3), 2, 128, True)  # no exact bucket left on each side
    with pytest.raises(ValueError):
        t5_bucket(np.arange(3), 32, 8, True)  # max_distance must exceed max_exact


def test_t5_bias_matrix_looks_up_each_offset():
    bias = np.arange(32.0) * 0.5 - 3.0
    matrix = t5_bias_matrix(20, bias, 32, 128, True)
    for i in range(20):
        for j in range(20):
            assert matrix[i, j] == bias[t5_bucket(np.array([j - i]), 32, 128, True)[0]]


def test_t5_bucket_ranges_partition_the_offsets():
    ranges = t5_bucket_ranges(32, 128, True, 160)
    assert sum(r["count"] for r in ranges) == 321
    assert ranges[16]["count"] == 0 and ranges[16]["low"] is None
    assert ranges[8] == {"bucket": 8, "low": -11, "high": -8, "count": 4}
    assert ranges[0] == {"bucket": 0, "low": 0, "high": 0, "count": 1}


# ---- ALiBi --------------------------------------------------------------------------------------


def paper_get_slopes(n: int) -> list[float]:
    """The structure of the ALiBi paper's get_slopes: a geometric run for powers of two, and for
    other n the run of the closest lower power of two followed by every other slope of twice it."""

    def run(power: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(power) - 3)))
        return [start * start**i for i in range(power)]

    if math.log2(n).is_integer():
        return run(n)
    closest = 2 ** math.floor(math.log2(n))
    return run(closest) + paper_get_slopes(2 * closest)[0::2][: n - closest]


SLOPE_CASES = cases("alibi_slopes")


@pytest.mark.parametrize("case", SLOPE_CASES, ids=[str(c["num_heads"]) for c in SLOPE_CASES])
def test_alibi_slopes_match_bloom_and_mpt(case):
    got = alibi_slopes(case["num_heads"])
    assert got.shape == (case["num_heads"],)
    # Bloom and MPT are float32 and differ from each other by up to ~7e-7 relative
    np.testing.assert_allclose(got, case["bloom"], rtol=1e-6, atol=0)
    np.testing.assert_allclose(got, case["mpt"], rtol=1e-6, atol=0)
    np.testing.assert_allclose(got, case["crosscheck_paper_get_slopes"], rtol=1e-14, atol=0)


def test_reference_has_every_head_count_up_to_128():
    assert sorted(c["num_heads"] for c in SLOPE_CASES) == list(range(1, 129))


@pytest.mark.parametrize("n", [*range(1, 33), 40, 48, 64, 80, 96, 112, 128, 200, 256])
def test_alibi_slopes_follow_the_papers_recursion(n):
    # The paper's start·start**i carries the rounding of `start` into every power (≈ i ulps); the
    # app evaluates 2^(exponent) directly, so the two differ by at most a few 1e-14 relative at 256.
    np.testing.assert_allclose(alibi_slopes(n), paper_get_slopes(n), rtol=5e-14, atol=0)


def test_alibi_exact_closed_forms():
    assert alibi_slopes(8).tolist() == [2.0**-h for h in range(1, 9)]
    assert alibi_slopes(12).tolist() == [2.0**-h for h in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    assert alibi_slopes(1).tolist() == [2.0**-8]
    assert alibi_slopes(2).tolist() == [2.0**-4, 2.0**-8]
    assert alibi_slopes(16).tolist() == [2.0 ** (-h / 2) for h in range(1, 17)]
    assert alibi_slopes(112)[0] == 2.0 ** (-8 / 64)  # BLOOM-176B: 112 heads, 64 + 48


def test_alibi_bias_forms_agree_after_softmax():
    slopes = alibi_slopes(4)
    paper = alibi_bias(slopes, 7, "paper")
    bloom = alibi_bias(slopes, 7, "bloom")
    for h, m in enumerate(slopes):
        for i in range(7):
            for j in range(7):
                if j > i:
                    assert np.isnan(paper[h, i, j]) and np.isnan(bloom[h, i, j])
                else:
                    assert paper[h, i, j] == -m * (i - j)
                    assert bloom[h, i, j] == m * j
            # rows differ by the constant m·i, so their softmax (over the visible keys) is identical
            visible = slice(0, i + 1)
            np.testing.assert_allclose(bloom[h, i, visible] - paper[h, i, visible], m * i, rtol=0, atol=1e-12)
            soft = lambda row: np.exp(row - row.max()) / np.exp(row - row.max()).sum()
            np.testing.assert_allclose(soft(bloom[h, i, visible]), soft(paper[h, i, visible]), rtol=1e-12)
    assert not np.signbit(paper[:, np.arange(7), np.arange(7)]).any()  # zeros on the diagonal, not −0.0


def test_alibi_penalty_is_linear_in_distance():
    slopes = alibi_slopes(3)
    penalty = alibi_penalty(slopes, np.array([0, 1, 10]))
    np.testing.assert_array_equal(penalty, -np.outer(slopes, [0, 1, 10]))


# ---- Shaw --------------------------------------------------------------------------------------------


def test_shaw_square_case_by_hand():
    expected = np.array(
        [
            [2, 3, 4, 4, 4],
            [1, 2, 3, 4, 4],
            [0, 1, 2, 3, 4],
            [0, 0, 1, 2, 3],
            [0, 0, 0, 1, 2],
        ]
    )
    np.testing.assert_array_equal(shaw_index_matrix(5, 5, 2), expected)


def test_shaw_queries_are_the_last_positions():
    # tensor2tensor: range_vec_q = range_vec_k[-length_q:], so two queries over five keys sit at 3 and 4
    expected = np.array(
        [
            [0, 0, 1, 2, 3],  # query at 3: offsets −3 −2 −1 0 +1, clipped to ±2, plus 2
            [0, 0, 0, 1, 2],  # query at 4
        ]
    )
    np.testing.assert_array_equal(shaw_index_matrix(2, 5, 2), expected)
    full = shaw_index_matrix(5, 5, 2)
    np.testing.assert_array_equal(shaw_index_matrix(2, 5, 2), full[-2:])


def test_shaw_single_query_equals_incremental_decoding_row():
    # tensor2tensor's cache=True row: clip(range(−length_k + 1, 1), −k, k) + k
    for length, k in [(1, 0), (6, 2), (9, 20)]:
        row = np.clip(np.arange(-length + 1, 1), -k, k) + k
        np.testing.assert_array_equal(shaw_index_matrix(1, length, k), row[None, :])


def test_shaw_window_zero_and_errors():
    assert (shaw_index_matrix(4, 4, 0) == 0).all()
    np.testing.assert_array_equal(shaw_clipped_offsets(np.array([-9, -1, 0, 3, 9]), 3), [-3, -1, 0, 3, 3])
    with pytest.raises(ValueError):
        shaw_index_matrix(5, 4, 2)
    with pytest.raises(ValueError):
        shaw_index_matrix(2, 4, -1)


@pytest.mark.parametrize("num_buckets, max_distance, bidirectional, limit", [
    (32, 128, True, 160), (32, 128, False, 160), (8, 20, True, 0), (2, 3, False, 7), (256, 1_000_000, False, 8192), (256, 1_000_000, True, 8192), (5, 16, True, 100),
])
def test_t5_bucket_ranges_equal_a_scan_per_bucket(num_buckets, max_distance, bidirectional, limit):
    offsets = np.arange(-limit, limit + 1)
    buckets = t5_bucket(offsets, num_buckets, max_distance, bidirectional)
    got = t5_bucket_ranges(num_buckets, max_distance, bidirectional, limit)
    assert [r["bucket"] for r in got] == list(range(num_buckets))
    for r in got:
        members = offsets[buckets == r["bucket"]]
        assert r["count"] == members.size
        assert (r["low"], r["high"]) == ((int(members.min()), int(members.max())) if members.size else (None, None))


# ---- Shaw's relative term of the logit ---------------------------------------------------------------


@pytest.mark.parametrize(("query_len", "key_len", "k", "d"), [(1, 1, 0, 1), (4, 4, 1, 3), (3, 10, 2, 8), (6, 6, 10, 5)])
def test_shaw_key_term_is_the_explicit_dot_product(query_len, key_len, k, d):
    from app.core.relative import shaw_key_term

    rng = np.random.default_rng(7)
    queries, table = rng.standard_normal((query_len, d)), rng.standard_normal((2 * k + 1, d))
    term = shaw_key_term(queries, table, key_len, k)
    assert term.shape == (query_len, key_len)
    for i in range(query_len):
        position = key_len - query_len + i
        for j in range(key_len):
            row = table[min(max(j - position, -k), k) + k]
            assert term[i, j] == pytest.approx(sum(queries[i, c] * row[c] for c in range(d)) / d**0.5, rel=1e-12, abs=1e-15)


def test_shaw_key_term_refuses_a_table_of_the_wrong_size():
    from app.core.relative import shaw_key_term

    with pytest.raises(ValueError, match="2k\\+1"):
        shaw_key_term(np.zeros((2, 3)), np.zeros((4, 3)), 5, 2)

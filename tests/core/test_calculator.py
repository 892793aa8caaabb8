"""Men et al. criterion: every answer checked by brute force, one cosine per (m, pair), in the test.

Definitions (app/core/calculator.py): B_m(b) = Σ_j cos(m·b^(−2j/d)); b passes T when B_m ≥ 0 for
every integer 0 ≤ m < T; the smallest base is the smallest b ≥ 1 with four significant digits that
passes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.core import base_grid, calculator, men_table, scaling

DATA = json.loads((Path(__file__).parents[1] / "reference" / "data" / "rope_init.json").read_text())


def brute_margin(base, d, length):
    """B_m for m < length: an explicit loop over pairs, cos of each m·θ_j."""
    theta = np.array([base ** (-2.0 * j / d) for j in range(d // 2)])
    m = np.arange(length, dtype=np.float64)
    total = np.zeros(length)
    for t in theta:
        total += np.cos(m * t)
    return total


def brute_first_failing(base, d, length):
    negative = np.flatnonzero(brute_margin(base, d, length) < 0)
    return int(negative[0]) if negative.size else None


def four_digit_grid(stop):
    """1.000, 1.001, …, 9.999, 10.00, … below ``stop``, from decimal strings."""
    values = []
    e = 0
    while True:
        for k in range(1000, 10000):
            value = float(f"{k}e{e - 3}")
            if value >= stop:
                return values
            values.append(value)
        e += 1


def test_grid_is_four_significant_digits():
    grid = four_digit_grid(2e5)
    np.testing.assert_array_equal(base_grid.grid_values(0, len(grid)), grid)
    for value in (1.0, 4294.0, 26960.0, 6.543e7, 9.999e14):
        index = base_grid.grid_index_at_least(value)
        assert base_grid.grid_value(index) == value
    assert base_grid.grid_value(base_grid.grid_index_at_least(26961.0)) == 26970.0


def brute_smallest_base(d, length):
    """Every grid base from 1 upwards, each B_m at every m < length by the explicit loop."""
    e = 0
    while e < 15:
        bases = np.array([float(f"{k}e{e - 3}") for k in range(1000, 10000)])
        theta = bases[:, None] ** (-2.0 * np.arange(d // 2)[None, :] / d)
        margins = np.cos(np.arange(length)[None, :, None] * theta[:, None, :]).sum(axis=2)
        passing = np.flatnonzero((margins >= 0).all(axis=1))
        if passing.size:
            return bases[passing[0]]
        e += 1
    return None


@pytest.mark.parametrize("d, length", [(8, 12), (16, 40), (32, 25), (6, 30)])
def test_smallest_base_equals_an_exhaustive_brute_force_search(d, length):
    records = calculator.smallest_base_records(d, length)
    got = base_grid.grid_value(int(records.index[records.lookup(length)]))
    assert got == brute_smallest_base(d, length)


@pytest.mark.parametrize("d, longer, shorter", [(10, 40, 12), (6, 30, 9), (14, 33, 20)])
def test_a_shorter_length_answered_from_a_longer_live_search_is_the_smallest(d, longer, shorter):
    # The calculator asks for T and then L: the second answer comes from the first search.
    assert d not in men_table.RECORDS
    first = calculator.smallest_base(d, longer)
    second = calculator.smallest_base(d, shorter)
    assert first["source"] == second["source"] == "live"
    assert first["base"] == brute_smallest_base(d, longer)
    assert second["base"] == brute_smallest_base(d, shorter)
    # the grid value just below fails L first where the brute-force margin says
    assert second["previous_fails_at"] == brute_first_failing(second["previous_base"], d, shorter)


# Values for d = 128 (the table): 4.294e3, 1.159e4, 2.696e4; and T = 32768.
@pytest.mark.parametrize("length, want", [(1024, 4294.0), (2048, 11590.0), (4096, 26960.0), (32768, 630000.0)])
def test_d128_smallest_bases_pass_and_the_grid_value_below_fails(length, want):
    result = calculator.smallest_base(128, length)
    assert result["base"] == want and result["source"] == "table"
    assert brute_margin(want, 128, length).min() >= 0
    below = result["previous_base"]
    assert below == base_grid.grid_value(base_grid.grid_index_at_least(want) - 1)
    assert brute_first_failing(below, 128, length) == result["previous_fails_at"]


def test_bases_below_the_smallest_fail_sampled_by_brute_force():
    # Every 37th grid value below the T = 2048 answer fails somewhere below 2048.
    stop = base_grid.grid_index_at_least(11590.0)
    for value in base_grid.grid_values(0, stop)[::37]:
        assert brute_first_failing(value, 128, 2048) is not None, value


def test_passing_bases_are_not_an_interval():
    # d = 128, T = 4096: 26 960 passes, 27 000 fails, 28 700 passes again (its least B_m is 0.156).
    assert brute_margin(26960.0, 128, 4096).min() >= 0
    assert brute_first_failing(26950.0, 128, 4096) is not None
    assert brute_first_failing(27000.0, 128, 4096) == 4079
    assert brute_margin(28700.0, 128, 4096).min() == pytest.approx(0.15604, abs=1e-5)
    larger = calculator.larger_failing_base(128, 4096, base_grid.grid_index_at_least(26960.0))
    assert larger is not None and larger["base"] > 26960.0
    assert brute_margin(larger["base"], 128, 4096)[larger["fails_at"]] < 0


@pytest.mark.parametrize("d", [16, 64, 128, 256])
def test_table_records_equal_a_fresh_search(d):
    # The first records (lengths up to 3000) recomputed with the search the script runs.
    table = calculator.table_records(d)
    fresh = calculator.smallest_base_records(d, 3000)
    n = len(fresh.index) - 1  # the last fresh record passes 3000; the table's goes on
    np.testing.assert_array_equal(fresh.index[:n], table.index[:n])
    np.testing.assert_array_equal(fresh.reach[:n], table.reach[:n])
    np.testing.assert_array_equal(fresh.previous_fails_at[: n + 1], table.previous_fails_at[: n + 1])
    assert fresh.index[n] == table.index[table.lookup(3000)]


@pytest.mark.parametrize("d", [32, 96, 192])
def test_table_reach_is_the_first_failing_m_by_brute_force(d):
    table = calculator.table_records(d)
    for row in range(0, len(table.index) - 1, max(1, len(table.index) // 9)):
        reach = int(table.reach[row])
        if reach > 50000:
            break
        base = base_grid.grid_value(int(table.index[row]))
        assert brute_first_failing(base, d, reach + 1) == reach, (d, base)


def test_table_covers_every_head_dim_it_lists():
    assert men_table.LIMIT == 1 << 20
    assert sorted(men_table.RECORDS) == [*range(8, 97, 8), 112, 128, 160, 192, 256]
    assert men_table.RECORDS[8]["exhausted"] is True  # d = 8: no base below 1e15 passes 2^20
    assert calculator.smallest_base(8, 1 << 20)["base"] is None


@pytest.mark.parametrize("base, d, length", [(28700.0, 128, 4096), (1e6, 128, 32768), (10000.0, 64, 3000), (2.0, 8, 50)])
def test_verdict_and_envelope_equal_brute_force(base, d, length):
    want = brute_margin(base, d, length)
    negative = np.flatnonzero(want < 0)
    verdict = calculator.base_verdict(base, d, length)
    assert verdict["passes"] is (negative.size == 0)
    assert verdict["first_failing_m"] == (int(negative[0]) if negative.size else None)
    starts = np.arange(0, length, 7)
    envelope = calculator.margin_envelope(base, d, length, starts)
    np.testing.assert_allclose(envelope["low"], np.minimum.reduceat(want, starts), atol=1e-9)
    np.testing.assert_allclose(envelope["high"], np.maximum.reduceat(want, starts), atol=1e-9)
    assert envelope["min_at"] == int(np.argmin(want))


def test_d2_never_passes_beyond_two():
    # θ_0 = 1 whatever b, so for d = 2 B_m = cos m: B_2 < 0 for every base.
    assert calculator.smallest_base(2, 2)["base"] == 1.0
    result = calculator.smallest_base(2, 3)
    assert result["base"] is None and "10^15" in result["reason"]


def test_live_search_beyond_the_budget_says_why():
    result = calculator.smallest_base(100, 40000)
    assert result["base"] is None and result["source"] is None and "d = 100" in result["reason"]


def test_dynamic_base_matches_transformers():
    cases = [c for c in DATA["cases"] if c["rope_type"] == "dynamic" and "error" not in c and "partial_rotary_factor" not in c["config"]["rope_parameters"]]
    assert len(cases) > 100
    for case in cases:
        d = case["config"]["head_dim"]
        params = case["config"]["rope_parameters"]
        config = scaling.RopeConfig(rope_type="dynamic", rope_theta=params["rope_theta"], head_dim=d, factor=params["factor"],
                                    max_position_embeddings=case["config"]["max_position_embeddings"])
        base = scaling.dynamic_base(config, case["seq_len"])
        # inv_freq[1] = b'^(−2/d), so b' = inv_freq[1]^(−d/2)
        assert base == pytest.approx(case["inv_freq"][1] ** (-d / 2), rel=5e-5)


def test_llama3_band_counts():
    config = scaling.RopeConfig(rope_type="llama3", rope_theta=5e5, head_dim=128, original_max_position_embeddings=8192,
                                low_freq_factor=1.0, high_freq_factor=4.0)
    bands = scaling.llama3_band_counts(config)
    assert (bands["kept"], bands["smoothed"], bands["divided"]) == (29, 6, 29)
    assert (bands["high_freq_wavelen"], bands["low_freq_wavelen"]) == (2048.0, 8192.0)


@pytest.mark.parametrize("d, length", [(128, 131072), (128, 4096), (64, 32768)])
def test_a_larger_failing_base_is_found_and_checked_by_the_definition(d, length):
    # d = 128, T = 131,072: the 64 grid values the search used to try found none; 4,873,000 fails at m = 124,749.
    smallest = calculator.smallest_base(d, length)["base"]
    search = calculator.search_larger_failing_base(d, length, base_grid.grid_index_at_least(smallest))
    found = search["found"]
    assert found is not None and found["base"] > smallest and found["fails_at"] < length
    # B_m = Σ_j cos(m·b^(−2j/d)) written out, independent of the search's vectorised margins.
    theta = found["base"] ** (-np.arange(0, d, 2) / d)
    assert np.cos(found["fails_at"] * theta).sum() < 0
    assert "bounded search" in search["statement"]


def test_the_first_larger_failing_base_at_4096_is_the_next_but_one_grid_value():
    # Short lengths are scanned in order: 26 970 passes (brute force), 26 980 is the first that fails.
    search = calculator.search_larger_failing_base(128, 4096, base_grid.grid_index_at_least(26960.0))
    assert brute_margin(26970.0, 128, 4096).min() >= 0
    assert search["found"]["base"] == 26980.0
    assert brute_first_failing(26980.0, 128, 4096) == search["found"]["fails_at"]


def test_no_larger_failing_base_within_the_bound_is_said():
    search = calculator.search_larger_failing_base(128, 4096, base_grid.grid_index_at_least(26960.0), steps=1)
    assert search["found"] is None and search["statement"].startswith("None found within the search's bound")


@pytest.fixture
def no_search_history(monkeypatch):
    monkeypatch.setattr(calculator, "_LIVE_KNOWN", {})


def test_records_found_before_a_search_ran_out_answer_as_a_fresh_search(no_search_history):
    budget = 1 << 24
    with pytest.raises(calculator.SearchTooCostly):
        calculator.smallest_base_records(30, 10_000, budget)
    assert calculator.smallest_base(30, 10_000, budget)["base"] is None
    # d = 30, T = 30 is then answered from the records that search had found
    answer = calculator.smallest_base(30, 30, budget)
    fresh = calculator.smallest_base_records(30, 30, budget)
    assert answer["base"] == base_grid.grid_value(int(fresh.index[fresh.lookup(30)])) == brute_smallest_base(30, 30)
    assert answer["previous_fails_at"] == brute_first_failing(answer["previous_base"], 30, 30)


def test_a_search_that_ran_out_says_so_for_every_longer_length(no_search_history):
    budget = 1 << 23
    assert calculator.smallest_base(30, 30, budget)["base"] is None
    # not searched again, and a fresh search indeed runs out
    assert calculator.smallest_base(30, 100, budget)["base"] is None
    with pytest.raises(calculator.SearchTooCostly):
        calculator.smallest_base_records(30, 100, budget)
    # a shorter length is still searched
    assert calculator.smallest_base(30, 10, budget)["base"] == brute_smallest_base(30, 10)

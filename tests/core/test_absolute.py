"""Sinusoidal tables against the reference libraries, the shift matrix M_k against the angle-addition
identities, PE·PEᵀ's constant diagonals, and the learned table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.absolute import pair_columns, shift_matrix, toeplitz_deviation
from app.core.sinusoidal import sinusoid_frequencies, sinusoidal_table
from tests.reference_data import cases

LAYOUT_OF = {"distilbert": "interleaved", "marian": "concatenated", "whisper": "tensor2tensor"}
TABLE_CASES = [c for c in cases("sinusoidal") if "error" not in c]
LAYOUTS = ("interleaved", "concatenated", "tensor2tensor")


@pytest.mark.parametrize("case", TABLE_CASES, ids=[c["id"] for c in TABLE_CASES])
def test_sinusoidal_tables_match_the_reference_libraries(case):
    layout = LAYOUT_OF[case["reference_name"]]
    positions = np.arange(case["length"])
    got = sinusoidal_table(positions, case["dim"], 10000.0, layout)
    # DistilBERT and Marian compute in float64 and store float32: compare at float32 resolution.
    # Whisper also forms the angle p·w in float32, whose rounding (≈ p·2^-24) grows with p.
    tolerance = 1e-6 + (positions[:, None] * 2.0**-22 if case["reference_name"] == "whisper" else 0.0)
    assert np.all(np.abs(got - np.array(case["table"])) <= tolerance)


def test_reference_has_all_three_layouts():
    assert {c["reference_name"] for c in TABLE_CASES} == {"distilbert", "marian", "whisper"}


@pytest.mark.parametrize("dim", [4, 8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_tensor2tensor_spacing(dim, base):
    w = sinusoid_frequencies(dim, base, "tensor2tensor")
    count = dim // 2
    assert len(w) == count and w[0] == 1.0
    # timescales spread from 1 to base: the last frequency is 1/base (exp(−ln b), within an ulp)
    assert w[-1] == pytest.approx(1.0 / base, rel=1e-14)
    ratios = w[1:] / w[:-1]
    np.testing.assert_allclose(ratios, base ** (-1.0 / (count - 1)), rtol=1e-12)
    # Vaswani's layouts stop short: their last frequency is base^(−(d−2)/d)
    assert sinusoid_frequencies(dim, base, "interleaved")[-1] == pytest.approx(base ** (-(dim - 2) / dim), rel=1e-14)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shift", [0, 1, 3, -7, 250])
def test_shift_matrix_moves_every_position(layout, shift):
    dim = 16
    positions = np.arange(0, 200)
    table = sinusoidal_table(positions, dim, 10000.0, layout)
    moved = sinusoidal_table(positions + shift, dim, 10000.0, layout)
    matrix = shift_matrix(dim, 10000.0, layout, shift)
    residual = np.abs(moved - table @ matrix.T).max()
    largest_angle = (positions[-1] + abs(shift)) * 1.0
    assert residual <= 8 * np.finfo(float).eps * max(largest_angle, 1.0)


def test_shift_residual_is_at_rounding_level_for_small_positions():
    table = sinusoidal_table(np.arange(8), 8, 10000.0, "interleaved")
    moved = sinusoidal_table(np.arange(8) + 1, 8, 10000.0, "interleaved")
    assert np.abs(moved - table @ shift_matrix(8, 10000.0, "interleaved", 1).T).max() < 1e-15


@pytest.mark.parametrize("layout", LAYOUTS)
def test_shift_blocks_are_the_angle_addition_identities(layout):
    dim, shift, base = 12, 5, 10000.0
    matrix = shift_matrix(dim, base, layout, shift)
    sin_cols, cos_cols = pair_columns(dim, layout)
    w = sinusoid_frequencies(dim, base, layout)
    for i in range(dim // 2):
        b = shift * w[i]
        block = matrix[np.ix_([sin_cols[i], cos_cols[i]], [sin_cols[i], cos_cols[i]])]
        assert block.tolist() == [[math.cos(b), math.sin(b)], [-math.sin(b), math.cos(b)]]
        for a in (0.0, 0.3, 2.0, 17.25):
            sin_ab, cos_ab = block @ np.array([math.sin(a), math.cos(a)])
            assert sin_ab == pytest.approx(math.sin(a + b), abs=4e-15)
            assert cos_ab == pytest.approx(math.cos(a + b), abs=4e-15)
        # nothing outside the pair's 2×2 block
        others = np.setdiff1d(np.arange(dim), [sin_cols[i], cos_cols[i]])
        assert (matrix[sin_cols[i], others] == 0).all() and (matrix[cos_cols[i], others] == 0).all()


def test_shift_matrices_form_a_group_of_rotations():
    m3 = shift_matrix(10, 10000.0, "interleaved", 3)
    m5 = shift_matrix(10, 10000.0, "interleaved", 5)
    np.testing.assert_allclose(m3 @ m5, shift_matrix(10, 10000.0, "interleaved", 8), atol=1e-15)
    np.testing.assert_allclose(m3 @ m3.T, np.eye(10), atol=1e-15)
    np.testing.assert_array_equal(shift_matrix(10, 10000.0, "interleaved", -3), m3.T)
    np.testing.assert_array_equal(shift_matrix(10, 10000.0, "concatenated", 0), np.eye(10))


def test_shift_needs_even_dimension():
    with pytest.raises(ValueError):
        shift_matrix(7, 10000.0, "interleaved", 1)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_similarity_depends_only_on_the_offset(layout):
    positions = np.arange(64)
    table = sinusoidal_table(positions, 32, 10000.0, layout)
    similarity = table @ table.T
    w = sinusoid_frequencies(32, 10000.0, layout)[:16]
    closed = np.cos(np.subtract.outer(positions, positions)[:, :, None] * w).sum(axis=2)
    np.testing.assert_allclose(similarity, closed, atol=1e-12)
    assert toeplitz_deviation(similarity) < 1e-12
    assert np.allclose(np.diag(similarity), 16.0)


def test_toeplitz_deviation():
    toeplitz = np.subtract.outer(np.arange(5), np.arange(7)).astype(float) ** 2
    assert toeplitz_deviation(toeplitz) == 0.0
    broken = toeplitz.copy()
    broken[3, 4] += 0.5
    assert toeplitz_deviation(broken) == 0.5


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_learned_table_rows_do_not_depend_on_its_length(seed):
    # The view draws only the rows it shows: they must be the rows of the full max_len table.
    from app.core.absolute import learned_table

    full = learned_table(1024, 128, seed)
    for rows in (1, 40, 128):
        np.testing.assert_array_equal(learned_table(rows, 128, seed), full[:rows])

import math

import numpy as np
import pytest

from app.core.frequencies import angles, inverse_frequencies, rotary_dim, turns_within, wavelengths


def test_seed_numbers_for_a_64_dim_head():
    # Lecture notes: θ_0 = 1 and θ_31 ≈ 1.3e-4 for d = 64; about 7 500 tokens per radian at the slow end.
    theta = inverse_frequencies(64, 10000.0)
    assert theta.shape == (32,)
    assert theta[0] == 1.0
    assert theta[31] == pytest.approx(1.3335e-4, rel=1e-3)
    assert 1 / theta[31] == pytest.approx(7499, rel=1e-3)
    assert math.degrees(theta[0]) == pytest.approx(57.2958, rel=1e-5)


def test_ladder_matches_the_closed_form_term_by_term():
    d, b = 128, 500000.0
    theta = inverse_frequencies(d, b)
    expected = [b ** (-(2 * j) / d) for j in range(d // 2)]
    np.testing.assert_allclose(theta, expected, rtol=1e-15)
    # geometric: constant ratio between neighbours
    np.testing.assert_allclose(theta[1:] / theta[:-1], b ** (-2 / d), rtol=1e-13)


def test_last_frequency_stops_short_of_one_over_base():
    d = 8
    theta = inverse_frequencies(d, 10000.0)
    assert theta[-1] == pytest.approx(10000.0 ** (-(d - 2) / d))
    assert theta[-1] > 1e-4


def test_rotary_dim_uses_partial_factor_and_truncates():
    assert rotary_dim(64, 1.0) == 64
    assert rotary_dim(64, 0.25) == 16  # GPT-NeoX rotary_pct
    assert rotary_dim(80, 0.4) == 32  # int(32.0)
    assert rotary_dim(64, 0.2) == 12  # int(12.8)
    with pytest.raises(ValueError, match="even"):
        rotary_dim(10, 0.5)  # 5
    with pytest.raises(ValueError):
        rotary_dim(2, 0.5)  # 1


def test_exponent_divides_by_the_rotary_dimension():
    theta = inverse_frequencies(rotary_dim(64, 0.25), 10000.0)
    assert theta.shape == (8,)
    np.testing.assert_allclose(theta, [10000.0 ** (-2 * j / 16) for j in range(8)], rtol=1e-15)


def test_wavelengths_angles_and_turns():
    theta = np.array([1.0, 0.1])
    np.testing.assert_allclose(wavelengths(theta), [2 * math.pi, 20 * math.pi])
    np.testing.assert_allclose(angles([0, 3], theta), [[0, 0], [3, 0.3]])
    np.testing.assert_allclose(turns_within(2 * math.pi * 10, theta), [10, 1])

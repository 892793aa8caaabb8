"""Precision emulation: bfloat16 rounding against hand-checked bit patterns, float32/float16 angles
against numpy's own multiply, and the first colliding position against a brute-force scan."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.precision import angles_in, first_collision, to_bfloat16


def bits16(value):
    return int(np.asarray(value, dtype=np.float32).view(np.uint32)) >> 16


@pytest.mark.parametrize(
    "f32_bits, bf16_bits",
    [
        (0x3F800000, 0x3F80),  # 1.0 exact
        (0x3F808000, 0x3F80),  # halfway, lower is even: down
        (0x3F818000, 0x3F82),  # halfway, lower is odd: up to even
        (0x3F80C000, 0x3F81),  # above halfway: up
        (0x3F807FFF, 0x3F80),  # just below halfway: down
        (0x40490FDB, 0x4049),  # π → 3.140625
        (0x477FE000, 0x4780),  # 65504 → 65536
        (0x7F7FFFFF, 0x7F80),  # largest float32 → inf
        (0xC0200000, 0xC020),  # −2.5 exact
        (0x00000001, 0x0000),  # smallest subnormal → +0
        (0x3DCCCCCD, 0x3DCD),  # 0.1 → 0.10009765625
    ],
)
def test_bfloat16_rounding_bits(f32_bits, bf16_bits):
    value = np.array([f32_bits], dtype=np.uint32).view(np.float32)
    out = to_bfloat16(value)
    assert int(out.view(np.uint32)[0]) & 0xFFFF == 0
    assert bits16(out[0]) == bf16_bits


def test_bfloat16_known_values_and_nan():
    assert to_bfloat16(np.float32(0.1))[()] == np.float32(0.10009765625)
    assert to_bfloat16(np.float32(257.0))[()] == 256.0  # 9 significant bits needed: ties to even
    assert to_bfloat16(np.float32(259.0))[()] == 260.0
    assert np.isnan(to_bfloat16(np.float32(np.nan)))


def test_float32_angles_are_numpy_float32_products():
    rng = np.random.default_rng(7)
    m = rng.integers(0, 1 << 20, 5000)
    for theta in inverse_frequencies(128, 5e5)[::7]:
        expected = (m.astype(np.float32) * np.float32(theta)).astype(np.float64)
        np.testing.assert_array_equal(angles_in(m, theta, "float32"), expected)


def test_float16_angles_are_numpy_float16_products():
    m = np.arange(0, 70000, 37)
    theta = 0.0123
    with np.errstate(over="ignore"):
        expected = (m.astype(np.float16) * np.float16(np.float32(theta))).astype(np.float64)
    np.testing.assert_array_equal(angles_in(m, theta, "float16"), expected)
    assert np.isinf(angles_in(np.array([65520]), theta, "float16"))[0]


def test_bfloat16_angle_rounds_position_and_product():
    # 257 is not a bfloat16 integer: it becomes 256, so positions 256 and 257 share every angle.
    a = angles_in(np.array([256, 257]), 0.5, "bfloat16")
    assert a[0] == a[1] == 128.0


def _brute(theta, dtype, limit):
    m = np.arange(limit + 1)
    if dtype == "float32":
        phi = m.astype(np.float32) * np.float32(theta)
    elif dtype == "float16":
        phi = m.astype(np.float16) * np.float16(np.float32(theta))
    else:
        phi = to_bfloat16(to_bfloat16(m.astype(np.float32)) * to_bfloat16(np.float32(theta)))
    same = np.flatnonzero(phi[1:] == phi[:-1])
    return int(same[0]) if same.size else None


@pytest.mark.parametrize("dtype, limit", [("float32", 1 << 21), ("bfloat16", 600), ("float16", 5000)])
def test_first_collision_matches_brute_force(dtype, limit):
    rng = np.random.default_rng(3)
    thetas = list(10.0 ** rng.uniform(-6, 0.3, 25)) + [1.0, 0.5, 2.0**-10] + list(inverse_frequencies(128, 5e5)[::9])
    for theta in thetas:
        assert first_collision(theta, dtype, limit) == _brute(theta, dtype, limit), (dtype, theta)


def test_positions_collide_at_two_to_the_significand():
    assert first_collision(1.0, "bfloat16", 10**6) == 256
    assert first_collision(1.0, "float16", 10**6) == 2048
    assert first_collision(1.0, "float32", (1 << 24) + 1) == 1 << 24
    assert first_collision(1.0, "float64", 10**9) is None


@pytest.mark.parametrize("m, documented", [(100, 2.5e-6), (1000, 4e-5), (8191, 2e-4), (131071, 3.4e-3)])
def test_float32_cos_error_has_the_documented_size(m, documented):
    # REFERENCE-FORMULAS.md (d=128, θ=5e5): float32 angles move cos/sin by "about" these amounts
    # (its numbers also round cos/sin to float32 and use torch's θ, so only the size is compared).
    worst = max(abs(np.cos(angles_in(np.array([m]), t, "float32"))[0] - np.cos(m * t)) for t in inverse_frequencies(128, 5e5))
    assert documented / 3 < worst < documented * 3

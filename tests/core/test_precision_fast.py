"""The fast precision paths give exactly what a scan of every position gives.

``error_envelopes`` (per-column maxima without np.cos at every position), ``first_collision``
(closed form instead of a scan up to 2^24) and ``run_starts`` are compared, value for value,
with brute force written here: every position rounded with numpy's own float32/float16 types or
the bfloat16 bit rule below, every error computed, every column reduced.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.precision import error_envelopes, first_collision, run_starts

DTYPES = ("float32", "bfloat16", "float16")


def bf16(x):
    """Round float32 values to bfloat16 (nearest, ties to even) by their bit pattern."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    lower = bits & 0xFFFF
    keep = bits >> 16
    up = (lower > 0x8000) | ((lower == 0x8000) & (keep & 1 == 1))
    return ((keep + up) << 16).astype(np.uint32).view(np.float32)


def angles(m, theta, dtype):
    """The angle each precision computes for integer positions m (float64 array)."""
    t32 = np.float32(theta)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == "float32":
            return (m.astype(np.float32) * t32).astype(np.float64)
        if dtype == "float16":
            return (m.astype(np.float16) * np.float16(t32)).astype(np.float64)
        return bf16(bf16(m.astype(np.float32)) * bf16(t32)).astype(np.float64)


def brute_envelopes(length, theta, columns):
    m = np.arange(length, dtype=np.float64)
    exact = m * theta
    size = -(-length // columns)
    starts = np.arange(0, length, size)
    out = {}
    for dtype in DTYPES:
        approx = angles(m, theta, dtype)
        with np.errstate(invalid="ignore"):
            angle = np.abs(approx - exact)
            score = np.abs(np.cos(approx) - np.cos(exact))
        finite = np.isfinite(angle)
        out[dtype] = {
            "angle": np.fmax.reduceat(angle, starts),
            "score": np.fmax.reduceat(score, starts),
            "largest_angle": float(angle[finite].max()) if finite.any() else None,
            "largest_score": float(np.nanmax(score)) if np.isfinite(score).any() else None,
            "overflow_from": int(np.flatnonzero(~finite)[0]) if not finite.all() else None,
        }
    return out


THETAS = [1.0, 0.37, 0.0123, 3.3e-4, 2.7e-6, 1.04e-9] + list(inverse_frequencies(128, 5e5)[[1, 16, 40, 63]])


@pytest.mark.parametrize("length", [2, 3, 7, 599, 600, 601, 1000, 4099, 33000, 65519, 65521, 70001])
def test_error_envelopes_equal_a_scan_of_every_position(length):
    fast = error_envelopes(length, THETAS, min(600, length))
    for theta, got in zip(THETAS, fast, strict=True):
        want = brute_envelopes(length, theta, min(600, length))
        for dtype in DTYPES:
            for key in ("angle", "score"):
                np.testing.assert_array_equal(got[dtype][key], want[dtype][key], err_msg=f"{length} {theta} {dtype} {key}")
            for key in ("largest_angle", "largest_score", "overflow_from"):
                assert got[dtype][key] == want[dtype][key], (length, theta, dtype, key)


@pytest.mark.parametrize("theta", [1.0, 0.0372, 7.7e-5, 1.04e-9])
def test_error_envelopes_equal_a_scan_at_a_million_positions(theta):
    # Long bfloat16/float16 runs and float32 errors from 2^-40 to 2^-4 radians.
    length = (1 << 20) - 77
    got = error_envelopes(length, [theta], 600)[0]
    want = brute_envelopes(length, theta, 600)
    for dtype in DTYPES:
        for key in ("angle", "score"):
            np.testing.assert_array_equal(got[dtype][key], want[dtype][key], err_msg=f"{theta} {dtype} {key}")


def test_float16_overflow_and_underflow():
    # float16 positions from 65520 on are inf; a θ below float16's smallest subnormal rounds to 0,
    # so those angles are inf·0 = NaN: both must come out as a direct computation gives them.
    for theta in (0.5, 1e-9):
        got = error_envelopes(70000, [theta], 600)[0]["float16"]
        want = brute_envelopes(70000, theta, 600)["float16"]
        assert got["overflow_from"] == want["overflow_from"] == 65520
        np.testing.assert_array_equal(got["angle"], want["angle"])
        np.testing.assert_array_equal(got["score"], want["score"])


@pytest.mark.parametrize("dtype, length", [("bfloat16", 300_000), ("float16", 70_000), ("bfloat16", 200), ("float16", 3000)])
def test_run_starts_are_where_the_rounded_position_changes(dtype, length):
    m = np.arange(length, dtype=np.float64)
    with np.errstate(over="ignore"):
        rounded = bf16(m.astype(np.float32)) if dtype == "bfloat16" else m.astype(np.float16)
    change = np.flatnonzero(rounded[1:] != rounded[:-1]) + 1
    np.testing.assert_array_equal(run_starts(length, dtype), np.concatenate([[0], change]))


def scan_first_collision(theta, limit):
    """First m < limit with fl32(m·θ32) == fl32((m+1)·θ32), every m < 2^24 + 1 looked at."""
    t32 = np.float32(theta)
    top = min(limit, (1 << 24) + 1)
    for start in range(0, top, 1 << 22):
        m = np.arange(start, min(top, start + (1 << 22)) + 1).astype(np.float32)
        phi = m * t32
        same = np.flatnonzero(phi[1:] == phi[:-1])
        if same.size:
            return start + int(same[0]) if start + int(same[0]) < limit else None
    return None


def _k_theta(K, exponent=-30):
    """A θ whose float32 significand is the integer K (2^23 ≤ K < 2^24)."""
    return K * 2.0 ** (exponent - 24)


COLLISION_THETAS = (
    list(inverse_frequencies(128, 5e5)[[3, 17, 50, 63]])
    + [0.1, 1 / 3, 0.75, 1.0]
    + [_k_theta(K) for K in (2**24 - 1, 2**24 - 2**10, 3 * 2**22, 2**23 + 1, 2**23 + 5, 7 * 2**21, (2**20 - 1) * 2**4)]
)


@pytest.mark.parametrize("theta", COLLISION_THETAS)
def test_float32_first_collision_equals_a_full_scan(theta):
    want = scan_first_collision(theta, (1 << 24) + 1)
    assert first_collision(theta, "float32", (1 << 24) + 1) == want
    assert want is not None and want <= 1 << 24
    # The limit only cuts the answer off.
    for limit in (want, want + 1, 1000):
        expected = want if want < limit else None
        assert first_collision(theta, "float32", limit) == expected


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_first_collision_equals_a_scan(dtype):
    rng = np.random.default_rng(11)
    for theta in list(10.0 ** rng.uniform(-9, 0, 40)) + [1.0, 0.5]:
        m = np.arange(5000, dtype=np.float64)
        phi = angles(m, theta, dtype)
        same = np.flatnonzero(phi[1:] == phi[:-1])
        assert first_collision(theta, dtype, 4999) == (int(same[0]) if same.size else None), (dtype, theta)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_run_table_equals_run_starts(dtype):
    from app.core.precision import runs_below

    for length in (1, 2, 255, 257, 2049, 65519, 65520, 65521, 70000, 131072, 524288, (1 << 20) - 77):
        np.testing.assert_array_equal(runs_below(length, dtype), run_starts(length, dtype))


@pytest.mark.parametrize("theta", [1.0, 0.5, 2.0**-7, 2.0**-20, 0.75, 1.0 + 2.0**-23])
def test_power_of_two_angles_have_no_float32_error(theta):
    # θ a power of two: every float32 product m·θ is exact, errors are exactly 0 (θ_0 = 1 always).
    length = 70001
    got = error_envelopes(length, [theta], 600)[0]
    want = brute_envelopes(length, theta, 600)
    for dtype in DTYPES:
        for key in ("angle", "score"):
            np.testing.assert_array_equal(got[dtype][key], want[dtype][key], err_msg=f"{theta} {dtype} {key}")
    if math.frexp(theta)[0] == 0.5:
        assert not got["float32"]["angle"].any() and not got["float32"]["score"].any()

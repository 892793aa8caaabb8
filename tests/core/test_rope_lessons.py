"""The numbers the five RoPE lesson pages show, against independent formulations: plane geometry,
hand-built 2×2 and d×d rotation matrices, complex numbers, brute-force full matrices and curves, the
lecture notes' numbers and the transformers reference data."""

import math

import numpy as np
import pytest

from app.core.clock import closest_return, min_separation, near_returns, wrap_signed
from app.core.decimate import column_envelope, minmax_envelope
from app.core.frequencies import inverse_frequencies
from app.core.offsets import log_columns, offset_curves, prope_ladder
from app.core.rope import interleaved_to_half, rotation_matrix
from app.core.scores import content_vectors, diagonal_spread, theta_identity_errors
from app.views.clock import ClockParams, compute_clock
from app.views.conventions import ConventionsParams, compute_conventions
from app.views.offsets import OffsetsParams, compute_offsets
from app.views.rotation import PRESETS, RotationParams, compute_rotation
from app.views.scores import ScoresParams, compute_scores
from tests.reference_data import cases

# ---- independent helpers ------------------------------------------------------------------------


def rot2(phi: float) -> np.ndarray:
    return np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])


def unsigned_angle_degrees(u: np.ndarray, v: np.ndarray) -> float:
    cosine = float(u @ v) / float(np.linalg.norm(u) * np.linalg.norm(v))
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


def explicit_theta(m: float, theta: np.ndarray, pairing: str, d: int) -> np.ndarray:
    """Θ_m from 2×2 blocks placed by hand (interleaved: (2j, 2j+1); half: (j, j + r/2))."""
    r = 2 * len(theta)
    big = np.eye(d)
    for j, t in enumerate(theta):
        a, b = (2 * j, 2 * j + 1) if pairing == "interleaved" else (j, j + r // 2)
        block = rot2(m * t)
        big[np.ix_([a, b], [a, b])] = block
    return big


def brute_scores(q, k, theta, pairing, length):
    """Full L×L matrix ⟨Θ_m q_m, Θ_n k_n⟩/√d from explicit matrices (q, k: (d,) or (L, d))."""
    d = q.shape[-1]
    qs = np.broadcast_to(q, (length, d))
    ks = np.broadcast_to(k, (length, d))
    thetas = [explicit_theta(m, theta, pairing, d) for m in range(length)]
    rq = np.einsum("mij,mj->mi", np.array(thetas), qs)
    rk = np.einsum("mij,mj->mi", np.array(thetas), ks)
    return rq @ rk.T / math.sqrt(d)


def brute_block_means(full: np.ndarray, block: int) -> np.ndarray:
    """Mean of the finite cells of every block×block tile (the last tiles may be smaller); NaN if none."""
    length = full.shape[0]
    tiles = -(-length // block)
    padded = np.full((tiles * block, tiles * block), np.nan)
    padded[:length, :length] = full
    cells = padded.reshape(tiles, block, tiles, block)
    finite = np.isfinite(cells)
    total = np.where(finite, cells, 0.0).sum(axis=(1, 3))
    count = finite.sum(axis=(1, 3))
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def query(text: str) -> dict:
    return dict(item.split("=") for item in text.split("&"))


# ---- 1. rotation in the plane ---------------------------------------------------------------------


def test_lecture_preset_gives_120_degrees_in_both_panels():
    params = RotationParams(**query(PRESETS[0][1]))
    assert params.theta == math.pi / 6 and (params.m, params.n, params.shift) == (2, 5, 5)
    data = compute_rotation(params)
    # Geometry: q at 0°, k at 30°, each turned by position·30°: 60° and 180°, then 210° and 330°.
    for panel, (q_deg, k_deg) in zip(data["panels"], [(60, 180), (210, 330)], strict=True):
        expected_q = np.array([math.cos(math.radians(q_deg)), math.sin(math.radians(q_deg))])
        expected_k = np.array([math.cos(math.radians(k_deg)), math.sin(math.radians(k_deg))])
        np.testing.assert_allclose(panel["q_rot"], expected_q, atol=1e-15)
        np.testing.assert_allclose(panel["k_rot"], expected_k, atol=1e-15)
        assert panel["angle_between"] == pytest.approx(120.0, abs=1e-12)
        assert unsigned_angle_degrees(expected_q, expected_k) == pytest.approx(120.0, abs=1e-9)
        # ⟨R_m q, R_n k⟩ = cos 120° for unit vectors; the score divides by √2.
        assert panel["dot"] == pytest.approx(-0.5, abs=1e-15)
        assert panel["score"] == pytest.approx(-0.5 / math.sqrt(2), abs=1e-15)
    assert (data["panels"][1]["m"], data["panels"][1]["n"]) == (7, 10)


def test_worked_example_preset_is_cos_2():
    data = compute_rotation(RotationParams(**query(PRESETS[1][1])))
    for panel in data["panels"]:
        assert panel["dot"] == pytest.approx(math.cos(2.0), abs=1e-15)  # −0.4161468365471424
    assert [(p["m"], p["n"]) for p in data["panels"]] == [(0, 2), (5, 7)]


@pytest.mark.parametrize("q_angle,k_angle,m,n,theta,shift", [(20, 70, 1, 3, math.pi / 6, 4), (-90, 200, 17, 4, 1.0, 321), (5, 5, 0, 500, 2.5, 500)])
def test_shift_leaves_angle_and_score_alone(q_angle, k_angle, m, n, theta, shift):
    params = RotationParams(q_angle=q_angle, k_angle=k_angle, q_len=1.3, k_len=0.4, m=m, n=n, theta=theta, shift=shift)
    data = compute_rotation(params)
    q = 1.3 * np.array([math.cos(math.radians(q_angle)), math.sin(math.radians(q_angle))])
    k = 0.4 * np.array([math.cos(math.radians(k_angle)), math.sin(math.radians(k_angle))])
    expected = q @ rot2((n - m) * theta) @ k / math.sqrt(2)  # q^T R_{n−m} k / √2
    for panel in data["panels"]:
        assert panel["score"] == pytest.approx(expected, abs=1e-12)
    expected_signed = math.degrees(wrap_signed(math.radians(k_angle - q_angle) + (n - m) * theta))
    assert data["panels"][0]["angle"] == pytest.approx(expected_signed, abs=1e-9)
    np.testing.assert_allclose(data["shift_curve"]["rope"], expected, atol=1e-12)


def test_rotation_preserves_the_norm_and_addition_does_not():
    params = RotationParams(q_angle=20, q_len=1.0, m=3, theta=0.5)
    data = compute_rotation(params)
    q = np.array([math.cos(math.radians(20)), math.sin(math.radians(20))])
    positions = np.asarray(data["norm_curve"]["positions"])
    np.testing.assert_allclose(data["norm_curve"]["rotated"], 1.0, atol=1e-15)
    # ‖q + p_m‖² = ‖q‖² + ‖p_m‖² + 2 q·p_m with p_m = (sin mθ, cos mθ), ‖p_m‖ = 1.
    expected = np.sqrt(1.0 + 1.0 + 2 * (q[0] * np.sin(0.5 * positions) + q[1] * np.cos(0.5 * positions)))
    np.testing.assert_allclose(data["norm_curve"]["additive"], expected, atol=1e-14)
    assert np.ptp(expected) > 1.0  # the additive length really moves with m
    assert data["norms"]["q_rot"] == pytest.approx(data["norms"]["q"], abs=1e-15)
    assert data["norms"]["q_add"] == pytest.approx(expected[3], abs=1e-14)


# ---- 2. the clock ---------------------------------------------------------------------------------


def test_positions_0_and_6_alias_on_the_fast_hand():
    result = closest_return(1.0, 16)
    assert result["delta"] == 6
    assert result["gap"] == pytest.approx(6 - 2 * math.pi, abs=1e-15)  # ≈ −0.2832 rad
    assert result["gap"] == pytest.approx(-0.28318530717958623, abs=1e-15)
    assert abs(result["gap"]) < abs(result["step"]) == 1.0
    data = compute_clock(ClockParams())
    fast, slow = data["alias"]["fast"], data["alias"]["slow"]
    assert fast["closest"]["delta"] == 6 and fast["closest"]["gap"] == pytest.approx(6 - 2 * math.pi, abs=1e-15)
    # Every other pair of the 16 positions is further apart on the fast hand than 0 and 6.
    angles = np.asarray(fast["angles"])
    gaps = [abs(math.remainder(angles[b] - angles[a], 2 * math.pi)) for a in range(16) for b in range(a + 1, 16) if b - a != 6]
    assert min(gaps) > 0.2832
    # On the slow hand (θ = 0.1) they fan out in order: 0.0, 0.1, …, 1.5 rad.
    np.testing.assert_allclose(slow["angles"], 0.1 * np.arange(16), atol=1e-15)
    assert slow["in_order"] and slow["partner_gap"] == pytest.approx(0.6, abs=1e-15)


def test_near_returns_are_the_record_approaches():
    got = near_returns(1.0, 1000)
    deltas = np.arange(1, 1000)
    distance = np.abs(np.angle(np.exp(1j * deltas)))  # independent wrap via complex numbers
    records = [int(d) for i, d in enumerate(deltas) if i > 0 and distance[i] < distance[:i].min()]
    assert [item["delta"] for item in got] == records
    assert records[:5] == [6, 19, 25, 44, 333]
    exact = near_returns(math.pi / 6, 1000)  # period exactly 12
    assert exact[-1]["delta"] == 12 and abs(exact[-1]["gap"]) < 1e-12


@pytest.mark.parametrize("head_dim,base,length", [(8, 10.0, 5000), (8, 10000.0, 40000), (16, 100.0, 3000), (64, 10000.0, 4096), (4, 3.0, 2000)])
def test_min_separation_equals_brute_force_over_all_offsets(head_dim, base, length):
    theta = inverse_frequencies(head_dim, base)
    got = min_separation(theta, length)
    deltas = np.arange(1, length)
    separation = np.abs(np.angle(np.exp(1j * np.multiply.outer(deltas, theta)))).max(axis=1)
    assert got["separation"] == pytest.approx(separation.min(), abs=1e-9)
    assert got["delta"] == int(deltas[np.argmin(separation)])


def test_clock_periods_and_turn_counts():
    data = compute_clock(ClockParams(head_dim=64, context_len=4096))
    theta = 10000.0 ** (-np.arange(32) * 2 / 64)
    np.testing.assert_allclose(data["period"], 2 * np.pi / theta, rtol=1e-14)
    assert data["inv_freq"][0] == 1.0 and data["inv_freq"][31] == pytest.approx(1.33e-4, rel=5e-3)  # the notes' θ_31
    assert data["hands_full_turn"] == int(np.sum(2 * np.pi / theta <= 4096))
    # One step of the fastest hand is the tightest pair for the real ladder: 1 rad at Δ = 1.
    assert data["distinct"]["all_distinct"] and data["distinct"]["separation"] == pytest.approx(1.0)


# ---- 3. the score matrix --------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["repeated", "constant"])
@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_score_matrix_is_toeplitz_and_the_readout_says_so(content, pairing):
    length, dim = 200, 32
    data = compute_scores(ScoresParams(content=content, pairing=pairing, seq_len=length, head_dim=dim))
    scores = np.asarray(data["scores"])
    # Drawn from s(n − m): every diagonal is one number, bit for bit.
    assert all(np.unique(np.diagonal(scores, offset)).size == 1 for offset in range(-length + 1, length))

    # Independently, position by position with complex numbers: z_j = (x_a, x_b) as x_a + i·x_b,
    # turned by e^{i·p·θ_j}, θ_j = 10000^(−2j/d).
    q, k = content_vectors(content, length, dim, 0)
    half = dim // 2
    if pairing == "interleaved":
        zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
    else:
        zq, zk = q[:half] + 1j * q[half:], k[:half] + 1j * k[half:]
    theta = 10000.0 ** (-2.0 * np.arange(half) / dim)
    turn = np.exp(1j * np.outer(np.arange(length), theta))
    explicit = ((zq * turn).conj() @ (zk * turn).T).real / np.sqrt(dim)
    scale = np.abs(explicit).max()
    np.testing.assert_allclose(scores, explicit, rtol=0, atol=1e-12 * scale)

    # The readout measures the matrix rotated position by position, which is Toeplitz only up to rounding.
    worst = max(np.ptp(np.diagonal(explicit, offset)) for offset in range(-length + 1, length))
    assert worst <= 1e-12 * scale
    assert 0 <= data["toeplitz"]["spread"] <= 1e-12 * scale
    if content == "repeated":  # rounding differs along a diagonal: the readout is not measuring `scores`
        assert data["toeplitz"]["spread"] > 0
    assert data["toeplitz"]["scale"] == pytest.approx(scale)


def test_random_content_is_not_toeplitz():
    data = compute_scores(ScoresParams(content="random", seq_len=64, head_dim=16))
    assert data["toeplitz_relative"] > 0.1


def test_block_means_equal_brute_force_for_blocks_of_three():
    # L = 1030 over at most 512 cells: blocks of 3 (343 full ones and a last block of 1).
    params = ScoresParams(seq_len=1030, head_dim=8, base=100.0, pairing="half", seed=3)
    data = compute_scores(params)
    assert data["block"] == 3 and len(data["starts"]) == 344 and data["full_blocks"] == 343
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    full = brute_scores(q, k, 100.0 ** (-np.arange(4) * 2 / 8), "half", 1030)
    np.testing.assert_allclose(data["scores"], brute_block_means(full, 3), atol=1e-12)
    # Toeplitz check over the full-size blocks only.
    reduced = np.asarray(data["scores"])[:343, :343]
    assert max(np.ptp(np.diagonal(reduced, o)) for o in range(-342, 343)) <= 1e-12 * np.abs(reduced).max()


@pytest.mark.parametrize("content", ["repeated", "random"])
def test_causal_block_means_equal_brute_force(content):
    params = ScoresParams(seq_len=1030, head_dim=4, base=50.0, content=content, causal=True, seed=1)
    data = compute_scores(params)
    rng = np.random.default_rng(1)
    shape = (4,) if content == "repeated" else (1030, 4)
    q, k = rng.standard_normal(shape), rng.standard_normal(shape)
    full = brute_scores(q, k, 50.0 ** (-np.arange(2) * 2 / 4), "interleaved", 1030)
    full[np.triu_indices(1030, 1)] = np.nan  # keys after the query are masked
    expected = brute_block_means(full, 3)
    got = np.asarray(data["scores"], dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[np.isfinite(got)], expected[np.isfinite(expected)], atol=1e-12)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_theta_matrices_match_hand_built_blocks_and_the_identity_holds(pairing):
    theta = inverse_frequencies(16, 10000.0)
    for m in (0, 3, 1000, 131071):
        np.testing.assert_allclose(rotation_matrix(m, theta, pairing, 16), explicit_theta(m, theta, pairing, 16), atol=1e-15)
    for m, n in [(0, 63), (63, 0), (21, 42), (5000, 17)]:
        product = explicit_theta(m, theta, pairing, 16).T @ explicit_theta(n, theta, pairing, 16)
        np.testing.assert_allclose(product, explicit_theta(n - m, theta, pairing, 16), atol=1e-12)
    errors = theta_identity_errors(theta, pairing, 16, [(0, 63), (63, 0), (21, 42)])
    assert all(item["shift_error"] < 1e-12 and item["orthogonality_error"] < 1e-12 for item in errors)
    data = compute_scores(ScoresParams(pairing=pairing))
    assert data["identity_max_error"] < 1e-12 and data["orthogonality_max_error"] < 1e-12


def test_identity_check_is_not_vacuous():
    # The same check with the offset's sign flipped (Θ_{m−n}) must fail.
    theta = inverse_frequencies(8, 10000.0)
    product = rotation_matrix(3, theta, "interleaved", 8).T @ rotation_matrix(10, theta, "interleaved", 8)
    assert np.abs(product - rotation_matrix(3 - 10, theta, "interleaved", 8)).max() > 0.5


@pytest.mark.parametrize("case", [c for c in cases("rope_apply") if c["convention"] in ("interleaved", "rotate_half") and c["rotary_dim"] == c["head_dim"]], ids=lambda c: c["id"])
def test_theta_matrix_reproduces_transformers(case):
    pairing = "interleaved" if case["convention"] == "interleaved" else "half"
    theta = inverse_frequencies(case["rotary_dim"], case["base"])
    for row, position in enumerate(case["positions"]):
        got = rotation_matrix(position, theta, pairing, case["head_dim"]) @ np.array(case["q"])
        np.testing.assert_allclose(got, case["q_rot"][row], atol=1e-11)


def test_what_if_theta_zero_and_pi():
    zero = compute_scores(ScoresParams(theta_override="zero", seq_len=40, head_dim=8))
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    np.testing.assert_allclose(zero["scores"], q @ k / math.sqrt(8), atol=1e-14)  # position has vanished
    pi = compute_scores(ScoresParams(theta_override="pi", seq_len=40, head_dim=8))
    offsets = np.subtract.outer(np.arange(40), np.arange(40))
    np.testing.assert_allclose(pi["scores"], np.where(offsets % 2 == 0, 1.0, -1.0) * (q @ k) / math.sqrt(8), atol=1e-12)
    assert pi["content_dot"] == pytest.approx(q @ k / math.sqrt(8))


def test_diagonal_spread_ignores_masked_cells():
    matrix = np.array([[1.0, np.nan, np.nan], [2.0, 1.0, np.nan], [3.0, 2.5, 1.0]])
    result = diagonal_spread(matrix)
    assert result["spread"] == pytest.approx(0.5) and result["offset"] == -1 and result["scale"] == 3.0


@pytest.mark.parametrize("size", [1, 2, 3, 8, 61])
def test_diagonal_spread_equals_a_loop_over_diagonals(size):
    rng = np.random.default_rng(size)
    matrix = rng.standard_normal((size, size))
    matrix[rng.random((size, size)) < 0.3] = np.nan
    result = diagonal_spread(matrix)
    spreads = {}
    for offset in range(-(size - 1), size):
        cells = np.diagonal(matrix, offset)
        cells = cells[np.isfinite(cells)]
        if cells.size:
            spreads[offset] = cells.max() - cells.min()
    if not spreads:
        assert result["spread"] is None
    else:
        worst = max(spreads.values())
        assert result["spread"] == worst and spreads[result["offset"]] == worst


# ---- 4. offsets -----------------------------------------------------------------------------------


def direct_curve(q, k, theta, deltas):
    """s(Δ) from explicit rotation: Σ_j Re(conj(z_q) z_k e^{iΔθ_j}) with complex numbers, interleaved pairs."""
    zq = q[0::2] + 1j * q[1::2]
    zk = k[0::2] + 1j * k[1::2]
    return (np.exp(1j * np.multiply.outer(np.asarray(deltas, float), theta)) @ (np.conj(zq) * zk)).real


def test_offset_curves_match_direct_complex_evaluation():
    rng = np.random.default_rng(7)
    theta = inverse_frequencies(32, 10000.0)
    q, k = rng.standard_normal(32), rng.standard_normal(32)
    weights = np.conj(q[0::2] + 1j * q[1::2]) * (k[0::2] + 1j * k[1::2])
    got = offset_curves(weights, theta, 50000)
    np.testing.assert_allclose(got, direct_curve(q, k, theta, np.arange(50000)), atol=1e-9)


def test_constant_content_curve_is_the_cosine_sum():
    data = compute_offsets(OffsetsParams(head_dim=16, bases=(10000.0,), max_offset=40, columns=50, spacing="linear"))
    theta = 10000.0 ** (-np.arange(8) * 2 / 16)
    expected = 2 / math.sqrt(16) * np.cos(np.multiply.outer(np.arange(41), theta)).sum(axis=1)
    curve = data["curves"][0]
    np.testing.assert_allclose(curve["low"], expected, atol=1e-13)  # one offset per column
    np.testing.assert_allclose(curve["high"], expected, atol=1e-13)
    assert curve["s0"] == pytest.approx(math.sqrt(16))


@pytest.mark.parametrize("spacing", ["log", "linear"])
@pytest.mark.parametrize("max_offset", [20000, 131072])
def test_decimated_curve_keeps_the_true_min_and_max_of_every_column(spacing, max_offset):
    params = OffsetsParams(head_dim=64, bases=(10000.0, 500.0), max_offset=max_offset, columns=700, spacing=spacing)
    data = compute_offsets(params)
    ones = np.ones(64)
    for curve, base in zip(data["curves"], params.bases, strict=True):
        theta = base ** (-np.arange(32) * 2 / 64)
        full = direct_curve(ones, ones, theta, np.arange(max_offset + 1)) / 8.0
        starts, stops = np.asarray(data["column_start"]), np.asarray(data["column_stop"])
        assert stops[-1] == max_offset + 1 and np.all(starts[1:] == stops[:-1])
        assert len(starts) <= 700
        brute_low = np.array([full[a:b].min() for a, b in zip(starts, stops, strict=True)])
        brute_high = np.array([full[a:b].max() for a, b in zip(starts, stops, strict=True)])
        np.testing.assert_allclose(curve["low"], brute_low, atol=1e-9)
        np.testing.assert_allclose(curve["high"], brute_high, atol=1e-9)
        np.testing.assert_array_equal(data["points_per_column"], stops - starts)


def test_striding_would_draw_a_false_wave_the_envelope_does_not():
    # The fastest hand's cosine over 22000 offsets in 500 columns of 44: 44 offsets are 7 turns less 0.0177 rad.
    curve = np.cos(np.arange(44 * 500) * 1.0)
    envelope = minmax_envelope(curve, 500)
    strided = curve[::44]  # one sample per column: cos(0.0177·i), a slow wave that is not there
    assert np.all(strided[:40] > 0.7)
    assert np.all(envelope["high"] > 0.99) and np.all(envelope["low"] < -0.99)
    low, high = column_envelope(curve, envelope["start"])
    np.testing.assert_array_equal(low, envelope["low"])
    np.testing.assert_array_equal(high, envelope["high"])


def test_log_columns_cover_every_offset_once():
    starts, sizes = log_columns(1, 131073, 800)
    assert starts[0] == 1 and starts[-1] + sizes[-1] == 131073
    assert np.all(sizes >= 1) and np.all(starts[1:] == starts[:-1] + sizes[:-1]) and len(starts) <= 800


def test_random_content_mean_and_band_match_explicit_draws():
    params = OffsetsParams(head_dim=8, bases=(100.0,), max_offset=60, content="random", seeds=5, seed=11, columns=100, spacing="linear")
    data = compute_offsets(params)
    theta = 100.0 ** (-np.arange(4) * 2 / 8)
    curves = []
    for seed in range(11, 16):
        rng = np.random.default_rng(seed)
        q, k = rng.standard_normal(8), rng.standard_normal(8)
        curves.append(direct_curve(q, k, theta, np.arange(61)) / math.sqrt(8))
    curves = np.array(curves)
    mean, std = curves.mean(axis=0), curves.std(axis=0)
    curve = data["curves"][0]
    np.testing.assert_allclose(curve["low"], mean, atol=1e-12)
    np.testing.assert_allclose(curve["band_low"], mean - std, atol=1e-9)
    np.testing.assert_allclose(curve["band_high"], mean + std, atol=1e-9)


@pytest.mark.parametrize("case", [c for c in cases("rope_init") if c["rope_type"] == "proportional"], ids=lambda c: c["id"])
def test_prope_drops_the_same_pairs_as_transformers_proportional(case):
    head_dim = case["config"]["head_dim"]
    keep_fraction = case["config"]["rope_parameters"]["partial_rotary_factor"]
    got = prope_ladder(head_dim, case["config"]["rope_parameters"]["rope_theta"], (1 - keep_fraction) * 100)
    reference = np.array(case["inv_freq"])
    assert np.array_equal(got == 0, reference == 0)  # the slowest pairs (highest j) are the dropped ones
    np.testing.assert_allclose(got, reference, rtol=1e-6)


def test_prope_pairs_add_a_constant():
    kept = compute_offsets(OffsetsParams(head_dim=16, bases=(10000.0,), max_offset=30, drop_percent=50, columns=50, spacing="linear"))
    assert kept["kept_pairs"] == 4 and kept["dropped_pairs"] == 4
    theta = 10000.0 ** (-np.arange(8) * 2 / 16)
    theta[4:] = 0.0
    expected = 2 / 4 * np.cos(np.multiply.outer(np.arange(31), theta)).sum(axis=1)
    np.testing.assert_allclose(kept["curves"][0]["low"], expected, atol=1e-13)


def test_offsets_mark_the_fast_hand_returns():
    data = compute_offsets(OffsetsParams(max_offset=1000, columns=200))
    assert [mark["delta"] for mark in data["returns"]["marks"]][:4] == [6, 19, 25, 44]
    assert data["returns"]["marks"][0]["gap"] == pytest.approx(6 - 2 * math.pi)


# ---- 5. conventions -------------------------------------------------------------------------------


@pytest.mark.parametrize("head_dim,factor,content", [(8, 1.0, "repeated"), (64, 0.25, "random"), (2, 1.0, "repeated"), (32, 0.5, "repeated")])
def test_pairings_agree_after_the_permutation_and_differ_without(head_dim, factor, content):
    data = compute_conventions(ConventionsParams(head_dim=head_dim, partial_rotary_factor=factor, content=content, seq_len=12))
    r = int(head_dim * factor)
    assert data["permutation"].tolist() == list(range(0, r, 2)) + list(range(1, r, 2)) + list(range(r, head_dim))
    assert data["max_diff_permuted"] <= 1e-12 * data["scale"]
    assert data["max_diff_vectors"] <= 1e-12
    if r > 2:  # with one pair the two conventions coincide
        assert data["max_diff_raw"] > 1e-3 * data["scale"]
    # Independent: explicit matrices for both conventions on the permuted and raw vectors.
    rng = np.random.default_rng(0)
    shape = (head_dim,) if content == "repeated" else (12, head_dim)
    q, k = rng.standard_normal(shape), rng.standard_normal(shape)
    theta = inverse_frequencies(r, 10000.0)
    perm = np.concatenate([interleaved_to_half(r), np.arange(r, head_dim)])
    inter = brute_scores(q, k, theta, "interleaved", 12)
    np.testing.assert_allclose(data["scores"]["interleaved"], inter, atol=1e-12)
    np.testing.assert_allclose(brute_scores(q[..., perm], k[..., perm], theta, "half", 12), inter, atol=1e-12)
    np.testing.assert_allclose(data["scores"]["half_raw"], brute_scores(q, k, theta, "half", 12), atol=1e-12)


def test_pair_table_lists_both_conventions():
    data = compute_conventions(ConventionsParams(head_dim=8))
    assert data["interleaved_pairs"].tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert data["half_pairs"].tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]


def test_transformers_outputs_agree_through_the_permutation():
    # rope_apply.json holds GPT-J (interleaved) and Llama (rotate_half) outputs for the same seeded q.
    pairs = {}
    for case in cases("rope_apply"):
        if case["seed"] is not None and case["rotary_dim"] == case["head_dim"] and case["head_dim"] > 2:
            pairs.setdefault((case["head_dim"], case["base"]), {})[case["convention"]] = case
    pairs = {key: value for key, value in pairs.items() if len(value) == 2}
    assert pairs
    for (head_dim, base), pair in pairs.items():
        inter, half = pair["interleaved"], pair["rotate_half"]
        assert inter["q"] == half["q"] and inter["positions"] == half["positions"]
        perm = interleaved_to_half(head_dim)
        theta = inverse_frequencies(head_dim, base)
        for row, position in enumerate(inter["positions"]):
            # rotate_half(q[P]) = interleaved(q)[P] ...
            via_half = rotation_matrix(position, theta, "half", head_dim) @ np.array(inter["q"])[perm]
            np.testing.assert_allclose(via_half, np.array(inter["q_rot"][row])[perm], atol=1e-11)
        # ... while the two libraries' outputs for the same raw q differ once positions are non-zero.
        assert np.abs(np.array(inter["q_rot"])[1:] - np.array(half["q_rot"])[1:]).max() > 1e-3

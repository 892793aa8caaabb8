"""Property tests (Hypothesis) on the core, over random inputs rather than chosen examples.

Each property is checked against an independent formulation written here: pairs of dimensions
as complex numbers built from the pairing's definition, brute-force score matrices averaged
block by block, and the closed forms of the sinusoid frequencies.  Runs are derandomised so CI
sees the same examples every time.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.core import scaling
from app.core.frequencies import inverse_frequencies
from app.core.rope import offset_scores, rotate
from app.core.scores import score_matrix
from app.core.sinusoidal import sinusoid_frequencies, sinusoidal_table

PROPERTY = settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

pairings = st.sampled_from(["interleaved", "half"])
bases = st.floats(min_value=1.0001, max_value=1e9, allow_nan=False, allow_infinity=False)
components = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@st.composite
def vectors(draw, count: int = 1, max_dim: int = 32):
    """``count`` vectors of one even dimension d, and a rotary dimension r ≤ d (even)."""
    d = 2 * draw(st.integers(1, max_dim // 2))
    r = 2 * draw(st.integers(1, d // 2))
    out = [np.array(draw(st.lists(components, min_size=d, max_size=d))) for _ in range(count)]
    return (*out, r)


def reference_rotate(x: np.ndarray, position: float, base: float, r: int, pairing: str) -> np.ndarray:
    """Rotate pair j by position·base^(−2j/r) as the complex product z_j·e^{iφ} (dims ≥ r untouched)."""
    half = r // 2
    j = np.arange(half)
    first, second = (2 * j, 2 * j + 1) if pairing == "interleaved" else (j, j + half)
    z = (x[first] + 1j * x[second]) * np.exp(1j * position * base ** (-2.0 * j / r))
    out = x.astype(np.float64).copy()
    out[first], out[second] = z.real, z.imag
    return out


# ---- rotation --------------------------------------------------------------------------------


@PROPERTY
@given(vectors(), st.lists(st.integers(0, 1_000_000), min_size=1, max_size=8), bases, pairings)
def test_rotation_preserves_norms(xr, positions, base, pairing):
    x, r = xr
    rotated = rotate(x, np.array(positions), inverse_frequencies(r, base), pairing)
    norm = np.linalg.norm(x)
    assert np.allclose(np.linalg.norm(rotated, axis=1), norm, rtol=1e-12, atol=1e-12 * max(norm, 1.0))
    assert np.array_equal(rotated[:, r:], np.broadcast_to(x[r:], rotated[:, r:].shape))


@PROPERTY
@given(vectors(), st.integers(0, 10_000), bases, pairings)
def test_rotation_is_the_complex_product_of_each_pair(xr, position, base, pairing):
    x, r = xr
    rotated = rotate(x, np.array([position]), inverse_frequencies(r, base), pairing)[0]
    scale = max(np.linalg.norm(x), 1.0)
    assert np.allclose(rotated, reference_rotate(x, position, base, r, pairing), rtol=0, atol=1e-9 * scale)


@PROPERTY
@given(
    vectors(count=2),
    st.integers(0, 4096),
    st.integers(0, 4096),
    st.integers(-4096, 4096),
    bases,
    pairings,
)
def test_scores_depend_only_on_the_offset(qkr, m, n, shift, base, pairing):
    q, k, r = qkr
    assume(m + shift >= 0 and n + shift >= 0)
    inv_freq = inverse_frequencies(r, base)

    def score(a: int, b: int) -> float:
        return float(rotate(q, np.array([a]), inv_freq, pairing)[0] @ rotate(k, np.array([b]), inv_freq, pairing)[0])

    # Angles up to ~8192 rad carry ~1e-12 relative error, so compare on the scale of |q||k|.
    scale = max(np.linalg.norm(q) * np.linalg.norm(k), 1.0)
    assert math.isclose(score(m, n), score(m + shift, n + shift), rel_tol=0, abs_tol=1e-9 * scale)
    # … and both equal ⟨q, R_{n−m} k⟩, with the rotation built here from complex pairs.
    expected = float(q @ reference_rotate(k, n - m, base, r, pairing))
    assert math.isclose(score(m, n), expected, rel_tol=0, abs_tol=1e-9 * scale)
    assert math.isclose(float(offset_scores(q, k, inv_freq, np.array([n - m]), pairing)[0]), expected, rel_tol=0, abs_tol=1e-9 * scale)


# ---- block-averaged score matrices ----------------------------------------------------------


def brute_force_blocks(q, k, base, r, pairing, length, max_cells, causal):
    """Every s_mn = ⟨R_m q_m, R_n k_n⟩/√d, then the mean of each block's (visible) cells."""
    d = q.shape[-1]
    qs = np.broadcast_to(q, (length, d))
    ks = np.broadcast_to(k, (length, d))
    rq = np.array([reference_rotate(qs[m], m, base, r, pairing) for m in range(length)])
    rk = np.array([reference_rotate(ks[n], n, base, r, pairing) for n in range(length)])
    full = rq @ rk.T / math.sqrt(d)
    size = -(-length // max_cells)
    edges = list(range(0, length, size)) + [length]
    blocks = len(edges) - 1
    out = np.full((blocks, blocks), np.nan)
    for a in range(blocks):
        for c in range(blocks):
            cells = [
                full[m, n]
                for m in range(edges[a], edges[a + 1])
                for n in range(edges[c], edges[c + 1])
                if not causal or n <= m
            ]
            if cells:
                out[a, c] = np.mean(cells)
    return out, np.array(edges[:-1]), np.diff(edges)


@PROPERTY
@given(
    st.data(),
    st.integers(1, 24),
    st.integers(1, 24),
    st.sampled_from(["repeated", "constant", "random"]),
    st.sampled_from([2.0, 10.0, 10000.0, 500000.0]),
    pairings,
    st.booleans(),
)
def test_score_matrix_block_means_equal_brute_force(data, length, max_cells, content, base, pairing, causal):
    d = 2 * data.draw(st.integers(1, 6))
    r = 2 * data.draw(st.integers(1, d // 2))
    shape = (length, d) if content == "random" else (d,)
    if content == "constant":
        q = k = np.ones(d)
    else:
        elements = st.floats(-3, 3, allow_nan=False)
        q = np.array(data.draw(st.lists(elements, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(shape)
        k = np.array(data.draw(st.lists(elements, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(shape)
    got = score_matrix(q, k, inverse_frequencies(r, base), pairing, length, max_cells, causal)
    expected, starts, sizes = brute_force_blocks(q, k, base, r, pairing, length, max_cells, causal)
    assert np.array_equal(got["starts"], starts) and np.array_equal(got["sizes"], sizes)
    assert got["scores"].shape == expected.shape
    assert np.array_equal(np.isnan(got["scores"]), np.isnan(expected))
    finite = ~np.isnan(expected)
    assert np.allclose(got["scores"][finite], expected[finite], rtol=1e-9, atol=1e-9)


# ---- sinusoidal tables -----------------------------------------------------------------------


@PROPERTY
@given(
    st.integers(1, 256),
    st.integers(1, 64),
    bases,
    st.sampled_from(["interleaved", "concatenated", "tensor2tensor"]),
    st.integers(0, 10_000_000),
)
def test_sinusoidal_values_are_within_minus_one_and_one(dim, seq_len, base, layout, start):
    table = sinusoidal_table(np.arange(start, start + seq_len), dim, base, layout)
    assert table.shape == (seq_len, dim)
    assert np.all(np.isfinite(table)) and np.all(np.abs(table) <= 1.0)


@PROPERTY
@given(st.integers(2, 1024), bases)
def test_tensor2tensor_timescales_are_evenly_spaced_in_log_space_from_1_to_base(dim, base):
    w = sinusoid_frequencies(dim, base, "tensor2tensor")
    count = dim // 2
    assert len(w) == count
    assert w[0] == 1.0
    if count >= 2:
        # timescales 1/w_i = base^(i/(K−1)): equal ratios between neighbours, last one exactly base
        assert math.isclose(1.0 / w[-1], base, rel_tol=1e-12)
        steps = np.diff(np.log(w))
        assert np.allclose(steps, -math.log(base) / (count - 1), rtol=1e-9, atol=1e-12)
    table = sinusoidal_table(np.array([0.0, 1.0]), dim, base, "tensor2tensor")
    # position 0: all sines 0 then all cosines 1 (and a zero column when d is odd)
    assert np.array_equal(table[0, :count], np.zeros(count)) and np.array_equal(table[0, count : 2 * count], np.ones(count))
    assert np.allclose(table[1, :count], np.sin(w)) and np.allclose(table[1, count : 2 * count], np.cos(w))
    if dim % 2:
        assert np.all(table[:, -1] == 0)


# ---- scaling methods -------------------------------------------------------------------------

# The ranges the API accepts for these fields (the field types in app/views/_rope_scaling.py).
MAX_LENGTH = 1 << 27
lengths = st.integers(2, MAX_LENGTH)
optional_positive = st.one_of(st.none(), st.floats(0.0, 1000.0, allow_nan=False))


@st.composite
def rope_configs(draw):
    rope_type = draw(st.sampled_from(sorted(scaling.METHODS)))
    head_dim = 2 * draw(st.integers(1, 512))
    factor_choice = st.floats(1.0, 1e4, allow_nan=False)
    config = scaling.RopeConfig(
        rope_type=rope_type,
        rope_theta=draw(bases),
        head_dim=head_dim,
        partial_rotary_factor=draw(st.sampled_from([1.0, 0.5, 0.25])),
        max_position_embeddings=draw(lengths),
        factor=draw(st.one_of(st.none(), factor_choice) if rope_type in ("yarn", "longrope") else factor_choice),
        original_max_position_embeddings=draw(lengths),
        attention_factor=draw(st.one_of(st.none(), st.floats(0.01, 100.0, allow_nan=False))),
        beta_fast=draw(st.one_of(st.none(), st.floats(0.0, 1e6, allow_nan=False))),
        beta_slow=draw(st.one_of(st.none(), st.floats(0.0, 1e6, allow_nan=False))),
        mscale=draw(optional_positive),
        mscale_all_dim=draw(optional_positive),
        truncate=draw(st.booleans()),
        low_freq_factor=draw(st.floats(0.001, 1e4, allow_nan=False)),
        high_freq_factor=draw(st.floats(0.001, 1e4, allow_nan=False)),
    )
    pairs = config.rotary_dim // 2
    per_pair = st.lists(st.floats(1e-3, 1e6, allow_nan=False), min_size=pairs, max_size=pairs).map(tuple)
    return config.with_(short_factor=draw(per_pair), long_factor=draw(per_pair))


@PROPERTY
@given(rope_configs(), st.one_of(st.none(), st.integers(1, MAX_LENGTH)))
def test_scaling_gives_finite_positive_frequencies_for_every_valid_config(config, seq_len):
    try:
        scaling.validate(config, seq_len)
    except scaling.ScalingError:
        assume(False)  # not a valid config: the API refuses it with a 422 naming the field
    inv_freq, attention = scaling.compute(config, seq_len)
    assert inv_freq.shape == (config.rotary_dim // 2,)
    assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0), (config, seq_len, inv_freq)
    assert math.isfinite(attention) and attention > 0

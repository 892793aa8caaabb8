"""The formulas and rules that have one home in app/core, against formulations written out here:
the reference libraries' expressions, complex-number rotation, closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from app.core import men_table, scaling
from app.core.frequencies import angles, inverse_frequencies, pair_with_turns, wavelengths
from app.core.learned import pc_rotation
from app.core.mrope import pair_axes
from app.core.rope import ones_score
from app.core.sinusoidal import sinusoid_frequencies
from app.core.transformer_xl import relative_inverse_frequencies

ULP2 = 2.0**-51  # numpy's pow and the C library's may differ in the last bit


def _ladder(r: int, base: float) -> list[float]:
    """θ_j written out in Python floats: 1 / b^(2j/r)."""
    return [1.0 / base ** (2 * j / r) for j in range(r // 2)]


@pytest.mark.parametrize("r, base", [(128, 10000.0), (64, 500000.0), (96, 1e6), (2, 3.5)])
def test_every_ladder_is_the_reference_one(r, base):
    want = _ladder(r, base)
    np.testing.assert_allclose(inverse_frequencies(r, base), want, rtol=ULP2, atol=0)
    np.testing.assert_allclose(scaling.compute(scaling.RopeConfig(rope_theta=base, head_dim=r))[0], want, rtol=ULP2, atol=0)
    np.testing.assert_allclose(sinusoid_frequencies(r, base, "interleaved"), want, rtol=ULP2, atol=0)
    if base == 10000.0:
        np.testing.assert_allclose(relative_inverse_frequencies(r), want, rtol=ULP2, atol=0)
    # Odd width: the Vaswani sinusoid has ceil(d/2) frequencies 10000^(−2i/d).
    np.testing.assert_allclose(sinusoid_frequencies(7, base, "concatenated"), [1.0 / base ** (2 * i / 7) for i in range(4)], rtol=ULP2)


def test_many_bases_at_once_are_each_base_alone_bit_for_bit():
    """The Men et al. search evaluates grid bases in batches: each row must be that base's own ladder."""
    bases = np.concatenate([10 ** np.random.default_rng(0).uniform(0, 15, 200), [10000.0, 500000.0]])
    rows = inverse_frequencies(128, bases)
    assert rows.shape == (len(bases), 64)
    assert all(np.array_equal(row, inverse_frequencies(128, float(b))) for row, b in zip(rows, bases, strict=True))


def test_longrope_divides_inside_the_reciprocal_as_transformers_does():
    r, base = 8, 10000.0
    short, long = (1.0, 1.5, 2.0, 2.5), (2.0, 3.0, 4.0, 5.0)
    cfg = scaling.RopeConfig(rope_type="longrope", rope_theta=base, head_dim=r, short_factor=short, long_factor=long,
                             original_max_position_embeddings=4096, max_position_embeddings=131072)
    # transformers: inv_freq = 1.0 / (ext_factors * base ** (arange(0, dim, 2) / dim))
    for seq_len, ext in ((None, short), (4096, short), (4097, long)):
        want = 1.0 / (np.array(ext) * base ** (np.arange(0, r, 2) / r))
        assert np.array_equal(scaling.compute(cfg, seq_len)[0], want)
    switch = scaling.longrope_switch(cfg, 4096)
    assert switch["in_use"] == "short" and scaling.longrope_switch(cfg, 4097)["in_use"] == "long"
    np.testing.assert_allclose(switch["short_scale"], 1 / np.array(short), rtol=1e-15)
    np.testing.assert_allclose(switch["long_scale"], 1 / np.array(long), rtol=1e-15)
    at = dict(zip(switch["lengths"].tolist(), switch["scale_at_length"].T, strict=True))
    np.testing.assert_allclose(at[4096], 1 / np.array(short)[switch["pairs"]], rtol=1e-15)
    np.testing.assert_allclose(at[4097], 1 / np.array(long)[switch["pairs"]], rtol=1e-15)


def test_pair_with_turns_is_the_pair_that_makes_those_turns():
    r, base, L0 = 128, 10000.0, 4096
    theta = inverse_frequencies(r, base)
    # one turn over its own wavelength: pair j
    np.testing.assert_allclose(pair_with_turns(1, wavelengths(theta), r, base), np.arange(r // 2), atol=1e-9)
    for turns in (1, 1.5, 32):
        j = pair_with_turns(turns, L0, r, base)
        assert L0 * base ** (-2 * j / r) / (2 * math.pi) == pytest.approx(turns, rel=1e-12)
        assert pair_with_turns(turns, np.array([L0]), r, base)[0] == pytest.approx(j, rel=1e-15)


def test_the_drawn_yarn_ramp_passes_through_the_methods_pairs():
    """The spectrum's dense 'code' curve and transformers' per-pair scale are one float32 ramp
    (a float64 curve missed the pairs by 1e-7 for gpt-oss's untruncated ramp)."""
    for cfg in (
        scaling.RopeConfig(rope_type="yarn", rope_theta=150000.0, head_dim=64, factor=32.0, truncate=False,
                           original_max_position_embeddings=4096, beta_fast=32.0, beta_slow=1.0),
        scaling.RopeConfig(rope_type="yarn", rope_theta=10000.0, head_dim=128, factor=8.0, original_max_position_embeddings=4096),
    ):
        theta = inverse_frequencies(cfg.rotary_dim, cfg.rope_theta)
        curve = scaling.yarn_ramp_curves(cfg, wavelengths(theta))
        np.testing.assert_allclose(curve["code_scale"], scaling.compute(cfg)[0] / theta, rtol=1e-12)
        np.testing.assert_allclose(curve["pair"], np.arange(len(theta)), atol=1e-9)
        # the paper's edges λ = L0/β and L0/α sit at the unrounded correction dims
        edges = pair_with_turns(1, np.array(curve["paper_edges"]), cfg.rotary_dim, cfg.rope_theta)
        np.testing.assert_allclose(edges, curve["correction_range_unrounded"], rtol=1e-12)


def test_ones_score_is_the_complex_rotation_of_all_ones_vectors():
    d, base = 16, 10000.0
    theta = inverse_frequencies(d, base)
    for m, n in ((0, 0), (3, 11), (250, 7), (1000, 1001)):
        zq = (1 + 1j) * np.exp(1j * m * theta)  # pairs (1, 1) rotated to m
        zk = (1 + 1j) * np.exp(1j * n * theta)
        want = float(np.sum(np.real(np.conj(zq) * zk))) / math.sqrt(d)
        assert ones_score(angles(np.array([n - m]), theta))[0] == pytest.approx(want, abs=1e-12)
    assert ones_score(np.zeros(d // 2)) == pytest.approx(math.sqrt(d))  # Δ = 0: ‖1‖²/√d


@pytest.mark.parametrize("s", [1.0, 2.0, 8.0, 0.5])
def test_dynamic_alpha_and_base_follow_transformers(s):
    r, base, Lmax = 64, 10000.0, 4096
    cfg = scaling.RopeConfig(rope_type="dynamic", rope_theta=base, head_dim=r, factor=s, max_position_embeddings=Lmax)
    for seq_len in (None, 100, Lmax, 3 * Lmax):
        length = Lmax if seq_len is None else max(seq_len, Lmax)
        alpha = (s * length / Lmax) - (s - 1)  # transformers' _compute_dynamic_ntk_parameters
        assert scaling.dynamic_alpha(cfg, seq_len) == alpha
        assert scaling.dynamic_base(cfg, seq_len) == pytest.approx(base * alpha ** (r / (r - 2)), rel=1e-15)
    # the calculator's s = T/L at T: α = s² − s + 1
    T = int(s * Lmax)
    calc = scaling.RopeConfig(rope_type="dynamic", rope_theta=base, head_dim=r, factor=T / Lmax, max_position_embeddings=Lmax)
    assert scaling.dynamic_alpha(calc, T) == pytest.approx(s * s - s + 1 if s >= 1 else 1.0, rel=1e-15)


def test_extension_status_says_why_nothing_is_extended():
    assert scaling.extension_status(8192, 4096) == {"extends": True, "reason": None}
    below, equal = scaling.extension_status(2048, 4096), scaling.extension_status(4096, 4096)
    assert below["extends"] is equal["extends"] is False
    assert below["reason"].startswith("the target length T = 2,048 is below the training length L0 = 4,096 (T/L0 = 0.5)")
    assert equal["reason"].startswith("the target length T = 4,096 equals the training length L0 = 4,096")
    assert "nothing is extended" in below["reason"] and "nothing is extended" in equal["reason"]


def _model_message(model, **values) -> str:
    with pytest.raises(ValidationError) as caught:
        model(**values)
    (error,) = caught.value.errors()
    return error["msg"]


def test_each_rule_says_one_sentence_in_the_core_and_the_parameter_models():
    """The core's ValueError and the view's 422 (and so the page's rule) give the same words."""
    from app.views.ladder import LadderParams
    from app.views.mrope import MRopeParams
    from app.views.spectrum import SpectrumParams

    with pytest.raises(scaling.ScalingError) as core:
        scaling.validate(scaling.RopeConfig(rope_type="yarn", beta_fast=2.5, beta_slow=8.0, original_max_position_embeddings=4096))
    assert core.value.message == "beta_slow (8) must not exceed beta_fast (2.5); 0 or null means the defaults 1 and 32"
    assert _model_message(SpectrumParams, rope_type="yarn", beta_fast=2.5, beta_slow=8.0) == core.value.message

    with pytest.raises(scaling.ScalingError) as core:
        scaling.validate(scaling.RopeConfig(rope_type="ntk", head_dim=2, factor=4.0))
    assert "(r = 2;" in core.value.message
    assert _model_message(LadderParams, rope_type="ntk", head_dim=2) == core.value.message

    with pytest.raises(scaling.ScalingError) as core:
        scaling.validate(scaling.RopeConfig(rope_type="llama3", factor=8.0, low_freq_factor=2.5, high_freq_factor=1.5, original_max_position_embeddings=8192))
    assert core.value.message == (
        "high_freq_factor must be at least 2.5 here (not below low_freq_factor = 2.5; equal factors, as in Llama 4, "
        "leave no blended band); got 1.5"
    )
    assert _model_message(SpectrumParams, rope_type="llama3", low_freq_factor=2.5, high_freq_factor=1.5) == core.value.message

    with pytest.raises(ValueError) as core:
        pair_axes(128, (16, 24, 25))
    assert str(core.value) == (
        "mrope_section must add up to head_dim/2 = 64 (one count per axis for every rotary pair); its counts add up to 65"
    )
    assert _model_message(MRopeParams, head_dim=128, mrope_section=(16, 24, 25)) == str(core.value)


def test_pc_rotation_finds_the_period_of_a_steady_walk():
    omega = 2 * math.pi / 37.5
    p = np.arange(300)
    steady = {"coordinates": np.stack([3 * np.cos(omega * p), 3 * np.sin(omega * p)], axis=1)}
    period, share = pc_rotation(steady)
    assert period == pytest.approx(37.5, rel=1e-9) and share == 1.0
    wander = {"coordinates": np.random.default_rng(4).standard_normal((300, 2))}
    assert pc_rotation(wander)[0] is None


def test_men_table_file_round_trips_and_refuses_a_malformed_one(tmp_path):
    limit, records = men_table.shipped()
    assert limit == men_table.LIMIT == 1 << 20 and records is men_table.RECORDS
    path = tmp_path / "records.csv"
    men_table.write(path, limit, {d: records[d] for d in (8, 128)}, "a test copy")
    again_limit, again = men_table.load(path)
    assert again_limit == limit and sorted(again) == [8, 128]
    for d in (8, 128):
        for column in ("index", "reach", "previous_fails_at"):
            assert np.array_equal(again[d][column], records[d][column])
        assert again[d]["exhausted"] is records[d]["exhausted"]
        assert again[d]["smallest_base_at_limit"] == records[d]["smallest_base_at_limit"]
    path.write_text("head_dim,index,reach,previous_fails_at\n8,0,2,-1\n")
    with pytest.raises(ValueError, match="limit"):
        men_table.load(path)


def test_temperatures_of_many_scales_are_each_scale_alone():
    scales = np.array([0.25, 1.0, 1.5, 8.0, 40.0, 1e4])
    for one, many in (
        (lambda s: scaling.get_mscale(s), scaling.get_mscale(scales)),
        (lambda s: scaling.get_mscale(s, 0.707), scaling.get_mscale(scales, 0.707)),
        (lambda s: scaling.longrope_attention(s, 4096), scaling.longrope_attention(scales, 4096)),
    ):
        np.testing.assert_allclose(many, [one(float(s)) for s in scales], rtol=ULP2)
    assert scaling.get_mscale(8.0) == 0.1 * math.log(8.0) + 1  # transformers' get_mscale
    assert scaling.longrope_attention(8.0, 4096) == math.sqrt(1 + math.log(8.0) / math.log(4096))

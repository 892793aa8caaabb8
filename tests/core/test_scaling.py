"""The scaling registry against transformers 5.24.0's own outputs (tests/reference/data/rope_init.json)
and the worked numbers of REFERENCE-FORMULAS.md."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from app.core import scaling
from app.core.frequencies import pair_with_turns
from app.core.hf_config import TOP_KEYS as STANDARD_KEYS
from app.core.hf_config import rope_config_from_hf
from app.core.scaling import METHODS, RopeConfig, ScalingError, compute

DATA = json.loads((Path(__file__).parents[1] / "reference" / "data" / "rope_init.json").read_text())
CASES = [case for case in DATA["cases"] if case["rope_type"] != "proportional"]


def _config(case: dict) -> dict:
    config = copy.deepcopy(case["config"])
    if case["reference"].startswith("LlamaRotaryEmbedding"):
        # Llama's own default ignores partial_rotary_factor and rotates the whole head.
        config["rope_parameters"].pop("partial_rotary_factor", None)
    return config


def test_reference_covers_every_hf_method():
    assert {case["rope_type"] for case in CASES} == {name for name, m in METHODS.items() if m.hf_rope_type}
    assert len(CASES) == 1242


@pytest.mark.parametrize("case", CASES, ids=[case["id"] + f"/seq{case['seq_len']}" for case in CASES])
def test_matches_transformers(case):
    if "error" in case:
        assert case["error"] == "ZeroDivisionError"
        with pytest.raises(ScalingError) as info:
            rope_config_from_hf(case["config"], case["seq_len"])
        assert "rotary dimension above 2" in info.value.message
        return
    config, standardized, _ = rope_config_from_hf(_config(case), case["seq_len"])
    inv_freq, attention = compute(config, case["seq_len"])
    reference = np.asarray(case["inv_freq"])
    assert inv_freq.shape == reference.shape
    np.testing.assert_allclose(inv_freq, reference, rtol=1e-6, atol=0)
    assert attention == pytest.approx(case["attention_factor"], rel=1e-12)
    assert attention == pytest.approx(case["forward_attention_factor"], rel=1e-12)
    if "forward_inv_freq" in case:
        np.testing.assert_allclose(inv_freq, case["forward_inv_freq"], rtol=1e-6, atol=0)
    if not case["reference"].startswith("LlamaRotaryEmbedding") or "partial_rotary_factor" not in case["config"]["rope_parameters"]:
        ours = {key: value for key, value in standardized.items() if key not in STANDARD_KEYS}
        assert ours == case["rope_parameters_standardized"]


def test_llama_default_ignores_partial_rotary_but_neox_honours_it():
    neox = [c for c in CASES if c["reference"].startswith("GPTNeoX")]
    llama = [c for c in CASES if c["reference"].startswith("Llama") and "partial_rotary_factor" in c["config"]["rope_parameters"]]
    assert neox and llama
    for case in neox:
        prf = case["config"]["rope_parameters"]["partial_rotary_factor"]
        assert len(case["inv_freq"]) == int(case["config"]["head_dim"] * prf) // 2
    for case in llama:
        assert len(case["inv_freq"]) == case["config"]["head_dim"] // 2


# ---- worked numbers of REFERENCE-FORMULAS.md ---------------------------------------------------


def test_yarn_correction_range_d128():
    config = RopeConfig(rope_type="yarn", rope_theta=1e4, head_dim=128, factor=8.0, original_max_position_embeddings=4096)
    assert scaling.yarn_correction_range(config) == (20, 46)
    assert pair_with_turns(32, 4096, 128, 1e4) == pytest.approx(20.944, abs=5e-4)
    assert pair_with_turns(1, 4096, 128, 1e4) == pytest.approx(45.027, abs=5e-4)
    inv_freq, _ = compute(config)
    theta = 1e4 ** (-np.arange(0, 128, 2) / 128)
    np.testing.assert_allclose(inv_freq[:21], theta[:21], rtol=1e-12)  # below low: kept
    np.testing.assert_allclose(inv_freq[46:], theta[46:] / 8, rtol=1e-12)  # above high: divided by s


@pytest.mark.parametrize("s, value", [(2, 1.0693), (4, 1.1386), (8, 1.2079), (16, 1.2773), (32, 1.3466)])
def test_yarn_attention_factor(s, value):
    config = RopeConfig(rope_type="yarn", head_dim=64, factor=float(s), original_max_position_embeddings=4096)
    assert compute(config)[1] == pytest.approx(value, abs=5e-5)
    assert compute(config)[1] == pytest.approx(0.1 * math.log(s) + 1, rel=1e-15)


def test_yarn_mscale_rules():
    base = {"rope_type": "yarn", "head_dim": 64, "factor": 40.0, "original_max_position_embeddings": 4096}
    assert compute(RopeConfig(**base, mscale=0.707, mscale_all_dim=0.707))[1] == 1.0  # DeepSeek: equal → 1
    assert compute(RopeConfig(**base, mscale=0.707))[1] == pytest.approx(0.1 * math.log(40) + 1)  # alone: ignored
    ratio = (0.1 * 1.0 * math.log(40) + 1) / (0.1 * 0.5 * math.log(40) + 1)
    assert compute(RopeConfig(**base, mscale=1.0, mscale_all_dim=0.5))[1] == pytest.approx(ratio)
    assert compute(RopeConfig(**base, mscale=1.0, mscale_all_dim=0.5, attention_factor=1.25))[1] == 1.25


@pytest.mark.parametrize("s, value", [(4, 1.0801234), (32, 1.1902381)])
def test_longrope_attention_factor(s, value):
    pairs = 32
    config = RopeConfig(
        rope_type="longrope", head_dim=64, factor=float(s), original_max_position_embeddings=4096,
        short_factor=(1.0,) * pairs, long_factor=(2.0,) * pairs,
    )
    assert compute(config)[1] == pytest.approx(value, abs=5e-8)


def test_longrope_switches_strictly_above_original_length():
    pairs = 32
    config = RopeConfig(
        rope_type="longrope", head_dim=64, factor=4.0, original_max_position_embeddings=4096,
        short_factor=(1.0,) * pairs, long_factor=(2.0,) * pairs,
    )
    theta = 1e4 ** (-np.arange(0, 64, 2) / 64)
    for seq_len in (None, 0, 4096):
        np.testing.assert_allclose(compute(config, seq_len)[0], theta, rtol=1e-12)
    np.testing.assert_allclose(compute(config, 4097)[0], theta / 2, rtol=1e-12)


def test_llama3_bands_d128():
    config = RopeConfig(
        rope_type="llama3", rope_theta=5e5, head_dim=128, factor=8.0, low_freq_factor=1.0,
        high_freq_factor=4.0, original_max_position_embeddings=8192,
    )
    scale = compute(config)[0] / (5e5 ** (-np.arange(0, 128, 2) / 128))
    kept = np.isclose(scale, 1.0, rtol=1e-14, atol=0)
    divided = np.isclose(scale, 1 / 8, rtol=1e-14, atol=0)
    assert kept[:29].all() and divided[35:].all()
    assert np.all((scale[29:35] < 1.0 - 1e-9) & (scale[29:35] > 1 / 8 + 1e-9))
    assert (int(kept.sum()), int((~kept & ~divided).sum()), int(divided.sum())) == (29, 6, 29)


def test_llama3_blend_is_linear_in_frequency():
    config = RopeConfig(
        rope_type="llama3", rope_theta=5e5, head_dim=128, factor=8.0, low_freq_factor=1.0,
        high_freq_factor=4.0, original_max_position_embeddings=8192,
    )
    theta = 5e5 ** (-np.arange(0, 128, 2) / 128)
    inv_freq = compute(config)[0]
    for j in range(29, 35):
        sigma = (8192 * theta[j] / (2 * math.pi) - 1.0) / 3.0
        assert inv_freq[j] == pytest.approx((1 - sigma) * theta[j] / 8 + sigma * theta[j], rel=1e-12)


def test_static_ntk_base():
    config = RopeConfig(rope_type="ntk", rope_theta=1e4, head_dim=64, factor=4.0)
    new_base = 1e4 * 4.0 ** (64 / 62)
    np.testing.assert_allclose(compute(config)[0], new_base ** (-np.arange(0, 64, 2) / 64), rtol=1e-12)


def test_dynamic_is_static_ntk_with_effective_alpha():
    config = RopeConfig(rope_type="dynamic", rope_theta=1e4, head_dim=64, factor=4.0, max_position_embeddings=4096)
    alpha = 4.0 * 16384 / 4096 - 3.0
    expected = compute(RopeConfig(rope_type="ntk", rope_theta=1e4, head_dim=64, factor=alpha))[0]
    np.testing.assert_allclose(compute(config, 16384)[0], expected, rtol=1e-12)
    np.testing.assert_allclose(compute(config, 100)[0], compute(config, None)[0], rtol=0)  # floored at Lmax


# ---- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config, field",
    [
        (RopeConfig(rope_type="magic"), "rope_type"),
        (RopeConfig(rope_type="linear"), "factor"),
        (RopeConfig(rope_type="linear", factor=0.5), "factor"),
        (RopeConfig(rope_type="dynamic", factor=2.0, head_dim=2), "head_dim"),
        (RopeConfig(rope_type="ntk", factor=2.0, head_dim=8, partial_rotary_factor=0.25), "partial_rotary_factor"),
        (RopeConfig(rope_type="yarn", factor=2.0), "original_max_position_embeddings"),
        (RopeConfig(rope_type="yarn", factor=2.0, original_max_position_embeddings=4096, beta_fast=1, beta_slow=32), "beta_slow"),
        (RopeConfig(rope_type="yarn", factor=2.0, original_max_position_embeddings=4096, attention_factor=-1.0), "attention_factor"),
        (RopeConfig(rope_type="longrope", head_dim=64, original_max_position_embeddings=4096, short_factor=(1.0,) * 31, long_factor=(1.0,) * 32), "short_factor"),
        (RopeConfig(rope_type="longrope", head_dim=64, original_max_position_embeddings=4096, short_factor=(1.0,) * 32), "long_factor"),
        (RopeConfig(rope_type="llama3", factor=8.0, low_freq_factor=4.0, high_freq_factor=3.0, original_max_position_embeddings=8192), "high_freq_factor"),
        (RopeConfig(rope_type="llama3", factor=8.0, low_freq_factor=0.0, high_freq_factor=4.0, original_max_position_embeddings=8192), "low_freq_factor"),
        (RopeConfig(rope_type="llama3", factor=8.0, high_freq_factor=4.0, original_max_position_embeddings=8192), "low_freq_factor"),
        (RopeConfig(rope_theta=1.0), "rope_theta"),
        (RopeConfig(head_dim=6, partial_rotary_factor=0.5), "partial_rotary_factor"),
    ],
)
def test_refusals_name_the_field(config, field):
    with pytest.raises(ScalingError) as info:
        compute(config)
    assert info.value.field == field
    assert isinstance(info.value, ValueError)


def test_every_method_has_one_signature():
    for name, method in METHODS.items():
        assert method.name == name
        inv_freq, attention = method.compute(
            RopeConfig(
                rope_type=name, head_dim=16, factor=2.0, original_max_position_embeddings=1024,
                low_freq_factor=1.0, high_freq_factor=4.0, short_factor=(1.0,) * 8, long_factor=(1.0,) * 8,
            ),
            None,
        )
        assert inv_freq.shape == (8,)
        assert isinstance(attention, float)

"""Published config.json files of current families against transformers' own config classes and
rotary modules (tests/reference/data/hf_configs.json, made by tests/reference/generate.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from app.core import scaling
from app.core.hf_config import rope_settings_from_hf

DATA = json.loads((Path(__file__).parents[1] / "reference" / "data" / "hf_configs.json").read_text())
CASES = {case["id"]: case for case in DATA["cases"]}


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_every_setting_matches_the_rotary_module(case_id):
    case = CASES[case_id]
    parsed = rope_settings_from_hf(case["config"])
    reference = case["settings"]
    got = {setting["layer_type"] or "all": setting for setting in parsed["settings"]}
    assert set(got) == set(reference)
    for name, want in reference.items():
        config = got[name]["config"]
        inv_freq, attention = scaling.compute(config)
        assert config.rope_type == want["rope_type"]
        np.testing.assert_allclose(inv_freq, want["inv_freq"], rtol=1e-6, atol=0)  # float32 reference
        assert attention == pytest.approx(want["attention_factor"], rel=1e-6)
    primary = parsed["settings"][parsed["primary"]]
    assert (primary["layer_type"] or "all") == ("full_attention" if "full_attention" in reference else "all")


def test_gemma3_layers_and_thetas():
    parsed = rope_settings_from_hf(CASES["gemma3-4b-it"]["config"])
    by_type = {s["layer_type"]: s["config"] for s in parsed["settings"]}
    assert (by_type["full_attention"].rope_theta, by_type["full_attention"].factor) == (1e6, 8.0)
    assert (by_type["sliding_attention"].rope_theta, by_type["sliding_attention"].rope_type) == (1e4, "default")
    layers = parsed["top"]["layers"]["layer_types"]
    want = {}
    for i, kind in enumerate(CASES["gemma3-4b-it"]["layer_types"]):
        want.setdefault(kind, []).append(i)
    assert layers == want and layers["full_attention"][:2] == [5, 11]
    assert parsed["top"]["text_config"] == "text_config"


@pytest.mark.parametrize("case_id, section, interleaved", [
    ("qwen2-vl-7b-instruct", [16, 24, 24], False), ("qwen2.5-vl-7b-instruct", [16, 24, 24], False),
    ("qwen3-vl-8b-instruct", [24, 20, 20], True),
])
def test_mrope_sections(case_id, section, interleaved):
    # The core names no page: the link to /mrope is the POST answer's (tests/api/test_context_extension.py).
    top = rope_settings_from_hf(CASES[case_id]["config"])["top"]
    assert top["mrope"] == {"mrope_section": section, "mrope_interleaved": interleaved}


def test_llama4_rope_and_nope_layers():
    case = CASES["llama4-scout"]
    parsed = rope_settings_from_hf(case["config"])
    layers = parsed["top"]["layers"]
    assert layers["rope_layers"] == [i for i, flag in enumerate(case["no_rope_layers"]) if flag]
    assert layers["nope_layers"] == [i for i, flag in enumerate(case["no_rope_layers"]) if not flag] == list(range(3, 48, 4))
    # transformers' layer_types: RoPE layers are chunked_attention, NoPE layers full_attention.
    assert [i for i, t in enumerate(case["layer_types"]) if t == "full_attention"] == layers["nope_layers"]
    assert any("attn_temperature_tuning" in note for note in parsed["notes"])


def test_phi3_su_as_published_reads_the_top_level_length():
    case = CASES["phi3-mini-128k-su"]
    assert case["transformers_refuses_as_published"].startswith("KeyError")
    parsed = rope_settings_from_hf(case["config"])
    config = parsed["settings"][0]["config"]
    assert config.original_max_position_embeddings == 4096
    assert scaling.compute(config)[1] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-14)
    assert any("transformers 5.24 refuses" in note for note in parsed["settings"][0]["notes"])


@pytest.mark.parametrize("case_id", ["deepseek-v3", "deepseek-v2-lite"])
def test_deepseek_softmax_scale_multiplier(case_id):
    case = CASES[case_id]
    config = rope_settings_from_hf(case["config"])["settings"][0]["config"]
    assert config.rotary_dim == 64
    assert scaling.deepseek_softmax_multiplier(config) == pytest.approx(case["softmax_scale_multiplier"], rel=1e-12)


def test_deepseek_v2_multiplier_is_the_issue_number():
    # mscale_all_dim 0.707 at s = 40: (0.1·0.707·ln 40 + 1)² = 1.5896…
    config = rope_settings_from_hf(CASES["deepseek-v2-lite"]["config"])["settings"][0]["config"]
    assert scaling.deepseek_softmax_multiplier(config) == pytest.approx((0.0707 * math.log(40) + 1) ** 2, rel=1e-14)
    assert round(scaling.deepseek_softmax_multiplier(config), 3) == 1.590


def test_reference_versions_recorded():
    assert (DATA["transformers"], DATA["torch"]) == ("5.24.0", "2.13.0+cpu")

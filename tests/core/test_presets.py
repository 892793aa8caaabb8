"""Presets: every one parses as a config.json and carries its source."""

from __future__ import annotations

import math

import pytest

from app.core.hf_config import rope_config_from_hf
from app.core.presets import PRESETS
from app.core.scaling import compute

BY_NAME = {preset["name"]: preset for preset in PRESETS}


def test_required_models_are_present():
    wanted = ["Llama 2 7B", "Llama 3 8B", "Llama 3.1 8B", "Llama 3.2 1B", "Mistral 7B v0.1", "Mistral 7B v0.3", "Qwen2 7B",
              "CodeLlama 7B", "Gemma 7B", "DeepSeek-V2", "Phi-3 mini 128k", "GPT-NeoX-20B", "GPT-J-6B"]
    for name in wanted:
        assert any(preset["name"].startswith(name) for preset in PRESETS), name


@pytest.mark.parametrize("preset", PRESETS, ids=[p["name"] for p in PRESETS])
def test_preset_parses_and_cites_its_source(preset):
    assert "/" in preset["repo"] and preset["file"].endswith(".json")
    assert preset["source"] and preset["verified"]
    config, _, _ = rope_config_from_hf(preset["config"])
    inv_freq, attention = compute(config)
    assert len(inv_freq) == config.rotary_dim // 2 and attention > 0


def test_phi3_longrope_lists():
    config, _, _ = rope_config_from_hf(BY_NAME["Phi-3 mini 128k (LongRoPE)"]["config"])
    assert config.rope_type == "longrope" and len(config.short_factor) == len(config.long_factor) == 48
    assert compute(config)[1] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-14)
    assert config.long_factor[0] == pytest.approx(1.07, abs=1e-6) and config.long_factor[-1] == pytest.approx(64.76, abs=1e-5)


def test_partial_rotary_presets():
    neox, _, _ = rope_config_from_hf(BY_NAME["GPT-NeoX-20B (partial rotary)"]["config"])
    gptj, std, _ = rope_config_from_hf(BY_NAME["GPT-J-6B (interleaved, partial rotary)"]["config"])
    assert (neox.head_dim, neox.rotary_dim) == (96, 24)
    assert (gptj.head_dim, gptj.rotary_dim, std["pairing"]) == (256, 64, "interleaved")

"""POST /api/rope/frequencies reads a config.json by what it contains, not by its model_type.

Each body holds the RoPE-relevant fields of a published config.json, written out here and named by
its hub repository.  The expected numbers come from the configs themselves (the layer indices a
list or an interval names, the dimensions a key names) and from transformers' config classes
(their ``default_theta``, ``partial_rotary_factor`` and interval defaults), not from this app.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

# moonshotai/Kimi-K2-Instruct config.json: DeepSeek-V3's layout (architectures DeepseekV3ForCausalLM)
# under its own model_type.  hidden_size / num_attention_heads = 112 would be 56 pairs.
KIMI_K2 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "kimi_k2",
    "hidden_size": 7168,
    "num_attention_heads": 64,
    "num_hidden_layers": 61,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "max_position_embeddings": 131072,
    "rope_theta": 50000.0,
    "rope_scaling": {
        "beta_fast": 1.0, "beta_slow": 1.0, "factor": 32.0, "mscale": 1.0, "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096, "type": "yarn",
    },
}

# HuggingFaceTB/SmolLM3-3B config.json: every 4th layer (3, 7, ..., 35) has no RoPE.
SMOLLM3 = {
    "architectures": ["SmolLM3ForCausalLM"],
    "model_type": "smollm3",
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "num_hidden_layers": 36,
    "max_position_embeddings": 65536,
    "rope_theta": 5000000.0,
    "rope_scaling": None,
    "no_rope_layer_interval": 4,
    "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(36)],
}
SMOLLM3_NOPE = list(range(3, 36, 4))

# Qwen/Qwen3-Next-80B-A3B-Instruct config.json: 48 layers, full attention every 4th, the others
# Gated DeltaNet (linear attention, no positions); a quarter of each 256-dim head rotates.
QWEN3_NEXT = {
    "architectures": ["Qwen3NextForCausalLM"],
    "model_type": "qwen3_next",
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "num_hidden_layers": 48,
    "full_attention_interval": 4,
    "partial_rotary_factor": 0.25,
    "max_position_embeddings": 262144,
    "rope_theta": 10000000,
    "rope_scaling": None,
}

# meta-llama/Llama-2-7b-hf config.json: no rope_theta key at all.
LLAMA2 = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_scaling": None}


def post(client, body):
    response = client.post("/api/rope/frequencies", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def ladder(rotary_dim, base):
    return [base ** (-2 * j / rotary_dim) for j in range(rotary_dim // 2)]


def test_kimi_k2_rotates_qk_rope_head_dim_like_deepseek_v3(client):
    kimi = post(client, KIMI_K2)
    assert kimi["rotary_dim"] == 64 and len(kimi["inv_freq"]) == 32
    np.testing.assert_allclose(kimi["unscaled_inv_freq"], ladder(64, 50000.0), rtol=1e-14)
    # The same numbers as the file with DeepSeek-V3's own model_type.
    deepseek = post(client, {**KIMI_K2, "model_type": "deepseek_v3"})
    assert kimi["inv_freq"] == deepseek["inv_freq"] and kimi["attention_factor"] == deepseek["attention_factor"]
    assert any("qk_rope_head_dim = 64" in note and "32 pairs" in note for note in kimi["notes"])


@pytest.mark.parametrize("with_list", [True, False], ids=["no_rope_layers", "interval only"])
def test_smollm3_nope_layers(client, with_list):
    body = SMOLLM3 if with_list else {key: value for key, value in SMOLLM3.items() if key != "no_rope_layers"}
    data = post(client, body)
    assert data["layers"]["nope_layers"] == SMOLLM3_NOPE
    assert data["layers"]["rope_layers"] == [i for i in range(36) if i not in SMOLLM3_NOPE]
    note = next(note for note in data["notes"] if note.startswith("NoPE layers"))
    assert "9 of 36" in note and "3, 7, 11" in note
    np.testing.assert_allclose(data["inv_freq"], ladder(128, 5e6), rtol=1e-14)


def test_qwen3_next_hybrid_layers_and_partial_rotary(client):
    data = post(client, QWEN3_NEXT)
    full = list(range(3, 48, 4))
    assert data["layers"]["layer_types"]["full_attention"] == full
    assert data["layers"]["layer_types"]["linear_attention"] == [i for i in range(48) if i not in full]
    assert data["rotary_dim"] == 64 and len(data["inv_freq"]) == 32
    np.testing.assert_allclose(data["inv_freq"], ladder(64, 1e7), rtol=1e-14)
    notes = " ".join(data["notes"])
    assert "36 linear_attention" in notes and "no RoPE" in notes and "full_attention_interval = 4" in notes
    assert "partial_rotary_factor = 0.25" in notes and "64 of the 256" in notes
    # Without the key, Qwen3NextConfig's default 0.25 still applies, and is said.
    bare = post(client, {key: value for key, value in QWEN3_NEXT.items() if key != "partial_rotary_factor"})
    assert bare["rotary_dim"] == 64 and any("0.25" in note and "default" in note for note in bare["notes"])


@pytest.mark.parametrize(
    "body, base, whose",
    [
        (LLAMA2, 10000.0, "default_theta"),
        # SmolLM3Config.default_theta is 2e6 (the published file says 5e6; without the key the class decides).
        ({key: value for key, value in SMOLLM3.items() if key != "rope_theta"}, 2e6, "'smollm3'"),
    ],
    ids=["llama-2", "smollm3"],
)
def test_missing_rope_theta_is_named(client, body, base, whose):
    data = post(client, body)
    assert data["resolved"]["rope_theta"] == base
    note = next(note for note in data["notes"] if note.startswith("rope_theta not given"))
    assert f"{base:.0f}" in note and whose in note
    assert math.isclose(data["inv_freq"][-1], base ** (-(data["rotary_dim"] - 2) / data["rotary_dim"]), rel_tol=1e-14)

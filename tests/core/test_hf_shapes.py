"""Config shapes read by content (issue 38): ChatGLM's kv_channels / rope_ratio, phi-2's first
phi-msft form, Ministral 3's llama_4_scaling_beta, Llama 4's NoPE temperature, each family's
pairing and the list of position-bearing keys.

Each expected number is an independent formula written from the model's own reference code (cited
beside it), never this app's output.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from app.core import model_families, scaling
from app.core.hf_config import rope_settings_from_hf, text_config_of
from app.core.presets import PRESETS
from app.core.scaling import ScalingError

DATA = json.loads((Path(__file__).parents[1] / "reference" / "data" / "hf_configs.json").read_text())

# THUDM/chatglm3-6b config.json (RoPE-relevant keys): 32 heads of kv_channels = 128.
CHATGLM3 = {
    "model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32, "kv_channels": 128, "seq_length": 8192,
    "num_layers": 28, "original_rope": True, "multi_query_group_num": 2,
}
# THUDM/chatglm3-6b-32k: the same with rope_ratio 50.
CHATGLM3_32K = {**CHATGLM3, "seq_length": 32768, "rope_ratio": 50}
# microsoft/phi-2 config.json in its first, phi-msft form.
PHI2_MSFT = {
    "model_type": "phi-msft", "n_embd": 2560, "n_head": 32, "n_layer": 32, "n_positions": 2048, "rotary_dim": 32,
    "flash_rotary": False, "architectures": ["PhiForCausalLM"],
}
# mistralai/Ministral-3-8B-Instruct-2512 config.json (text_config, v5 rope_parameters).
MINISTRAL3 = {
    "model_type": "mistral3",
    "text_config": {
        "model_type": "ministral3", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 34, "max_position_embeddings": 262144, "sliding_window": None,
        "rope_parameters": {
            "rope_type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "original_max_position_embeddings": 16384,
            "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0, "llama_4_scaling_beta": 0.1,
        },
    },
    "vision_config": {"model_type": "pixtral", "rope_theta": 10000.0, "head_dim": 64},
}


def chatglm_theta(kv_channels: int, rope_ratio: float) -> np.ndarray:
    # THUDM modeling_chatglm.py: RotaryEmbedding(rotary_dim // 2) with rotary_dim = kv_channels, so
    # n_elem = kv_channels // 2 and theta = 1 / ((10000 * rope_ratio) ** (arange(0, n_elem, 2) / n_elem)).
    n_elem = kv_channels // 2
    return 1.0 / ((10000.0 * rope_ratio) ** (np.arange(0, n_elem, 2) / n_elem))


@pytest.mark.parametrize("body, ratio", [(CHATGLM3, 1), (CHATGLM3_32K, 50)])
def test_chatglm_rotates_half_of_kv_channels_with_base_times_rope_ratio(body, ratio):
    parsed = rope_settings_from_hf(body)
    config = parsed["settings"][0]["config"]
    inv_freq, attention = scaling.compute(config)
    assert (config.head_dim, config.rotary_dim) == (128, 64)
    np.testing.assert_allclose(inv_freq, chatglm_theta(128, ratio), rtol=1e-15)
    assert attention == 1.0
    assert parsed["top"]["max_position_embeddings"] == body["seq_length"]
    # apply_rotary_pos_emb reshapes x[..., :rot_dim] to (..., rot_dim // 2, 2): adjacent pairs.
    assert (parsed["top"]["pairing"], parsed["top"]["pairing_known"]) == ("interleaved", True)
    notes = " ".join(parsed["notes"])
    assert "kv_channels" in notes and "original_rope is not read" in notes


def test_chatglm_rope_theta_is_named_as_unread():
    parsed = rope_settings_from_hf({**CHATGLM3, "rope_theta": 123456.0})
    assert parsed["settings"][0]["config"].rope_theta == 10000.0
    assert any(note.startswith("rope_theta is not read") for note in parsed["notes"])


def test_phi_msft_reads_rotary_dim_of_n_embd_over_n_head():
    parsed = rope_settings_from_hf(PHI2_MSFT)
    config = parsed["settings"][0]["config"]
    # phi-msft modeling_phi.py: RotaryEmbedding(rotary_dim) with base 10000,
    # inv_freq = 1 / (10000 ** (arange(0, rotary_dim, 2) / rotary_dim)); head 2560 / 32 = 80.
    want = 1.0 / (10000.0 ** (np.arange(0, 32, 2) / 32))
    inv_freq, _ = scaling.compute(config)
    assert (config.head_dim, config.rotary_dim) == (80, 32)
    np.testing.assert_allclose(inv_freq, want, rtol=1e-15)
    assert parsed["top"]["max_position_embeddings"] == 2048
    # _apply_rotary_emb: x_rot.chunk(2, dim=-1), halves.
    assert parsed["top"]["pairing"] == "half"


@pytest.mark.parametrize("head_dim, rotary", [(80, 32), (96, 32), (112, 48), (100, 30), (256, 64)])
def test_rotary_dim_survives_the_float_round_trip(head_dim, rotary):
    config = rope_settings_from_hf({"model_type": "codegen", "head_dim": head_dim, "rotary_dim": rotary})["settings"][0]["config"]
    assert config.rotary_dim == rotary


def ministral_scale(position: int, beta: float, original: int) -> float:
    # modeling_ministral3.py _get_llama_4_attn_scale: 1 + beta * log(1 + floor(positions_ids / max_position_embeddings)),
    # called with cache_position and rope_parameters' llama_4_scaling_beta / original_max_position_embeddings.
    return 1 + beta * math.log(1 + math.floor(position / original))


def test_ministral3_query_scale_and_no_deepseek_multiplier():
    parsed = rope_settings_from_hf(MINISTRAL3)
    top = parsed["top"]
    scale = top["query_scale"]
    assert (scale["beta"], scale["interval"], scale["offset"], scale["layers"]) == (0.1, 16384, 0, "all")
    assert scale["at_max_length"] == pytest.approx(ministral_scale(262143, 0.1, 16384), rel=1e-15)
    assert round(scale["at_max_length"], 3) == 1.277  # the issue's × 1.277 at 262,143
    assert round(float(model_families.query_scale(16384, 0.1, 16384)), 3) == 1.069
    assert model_families.query_scale(16383, 0.1, 16384) == 1.0
    positions = np.array([0, 1, 16383, 16384, 32767, 32768, 100000, 262143])
    np.testing.assert_allclose(
        model_families.query_scale(positions, 0.1, 16384), [ministral_scale(int(p), 0.1, 16384) for p in positions], rtol=1e-15
    )
    # Plain 1/sqrt(head_dim) attention: the DeepSeek multiplier does not belong to it.
    assert top["latent_attention"] is False
    # YaRN's attention factor as _compute_yarn_parameters resolves it: mscale and mscale_all_dim both set,
    # so get_mscale(16, 1) / get_mscale(16, 1) = 1.
    config = parsed["settings"][0]["config"]
    assert scaling.compute(config)[1] == 1.0
    notes = " ".join(parsed["notes"] + parsed["settings"][0]["notes"])
    assert "llama_4_scaling_beta" not in " ".join(parsed["settings"][0]["notes"])  # not "ignored"
    assert "vision_config is not read" in notes and "sliding_window is not read" in notes
    assert top["pairing"] == "half"  # Ministral3's rotate_half


def test_ministral3_beta_without_an_interval_is_refused_by_name():
    body = {"head_dim": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "llama_4_scaling_beta": 0.1}}
    with pytest.raises(ScalingError) as info:
        rope_settings_from_hf(body)
    assert info.value.field == "rope_parameters.llama_4_scaling_beta"


def test_llama4_nope_layers_query_scale():
    case = next(case for case in DATA["cases"] if case["id"] == "llama4-scout")
    parsed = rope_settings_from_hf(case["config"])
    scale = parsed["top"]["query_scale"]
    text, _ = text_config_of(case["config"])
    beta, floor_scale = text.get("attn_scale", 0.1), text.get("floor_scale", 8192)
    # modeling_llama4.py Llama4TextAttention: on NoPE layers with attn_temperature_tuning,
    # log1p(floor((cache_position + 1) / floor_scale)) * attn_scale + 1.
    length = parsed["top"]["max_position_embeddings"]
    assert (scale["beta"], scale["interval"], scale["offset"], scale["layers"]) == (beta, floor_scale, 1, "nope")
    assert scale["at_max_length"] == pytest.approx(math.log1p(math.floor(length / floor_scale)) * beta + 1, rel=1e-15)
    assert scale["first_rise"] == floor_scale - 1
    assert model_families.query_scale(floor_scale - 2, beta, floor_scale, 1) == 1.0
    assert parsed["top"]["pairing"] == "interleaved"


@pytest.mark.parametrize(
    "body, pairing",
    [
        ({"model_type": "llama", "head_dim": 128}, "half"),
        ({"model_type": "mistral", "head_dim": 128}, "half"),
        ({"model_type": "qwen2", "head_dim": 128}, "half"),
        ({"model_type": "gemma", "head_dim": 256}, "half"),
        ({"model_type": "phi3", "head_dim": 96}, "half"),
        ({"model_type": "smollm3", "head_dim": 128}, "half"),
        ({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64}, "interleaved"),
        ({"model_type": "llama4_text", "head_dim": 128}, "interleaved"),
        ({"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64}, "interleaved"),
        ({"model_type": "glm", "head_dim": 128, "partial_rotary_factor": 0.5}, "interleaved"),
        (CHATGLM3, "interleaved"),
        ({"model_type": "deepseek_v3", "head_dim": 128, "qk_rope_head_dim": 64}, "interleaved"),
        ({"model_type": "deepseek_v3", "head_dim": 128, "qk_rope_head_dim": 64, "rope_interleave": False}, "half"),
    ],
)
def test_pairing_of_one_model_per_family(body, pairing):
    top = rope_settings_from_hf(body)["top"]
    assert (top["pairing"], top["pairing_known"]) == (pairing, True)
    assert top["pairing_source"]


def test_an_unknown_family_is_said_to_be_unknown():
    parsed = rope_settings_from_hf({"model_type": "made_up_lm", "head_dim": 64})
    assert parsed["top"]["pairing_known"] is False
    assert any("made_up_lm" in note and "unknown" in note for note in parsed["notes"])


def test_latent_attention_only_for_deepseek_layouts():
    assert rope_settings_from_hf({"model_type": "kimi_k2", "head_dim": 128, "qk_rope_head_dim": 64})["top"]["latent_attention"]
    assert not rope_settings_from_hf({"model_type": "qwen3", "head_dim": 128})["top"]["latent_attention"]


def test_position_key_tables_are_disjoint_and_give_reasons():
    assert not set(model_families.READ_POSITION_KEYS) & set(model_families.UNREAD_POSITION_KEYS)
    for reason in model_families.UNREAD_POSITION_KEYS.values():
        assert reason and not reason.endswith(".")


def test_an_unknown_positional_key_is_named():
    parsed = rope_settings_from_hf({"head_dim": 64, "rope_wobble": 3})
    assert any(note.startswith("rope_wobble looks position-related") for note in parsed["notes"])


def _published_bodies():
    bodies = [(case["id"], case["config"]) for case in DATA["cases"]]
    bodies += [(preset["name"], preset["config"]) for preset in PRESETS]
    bodies += [("chatglm3", CHATGLM3), ("phi-2 msft", PHI2_MSFT), ("ministral3", MINISTRAL3)]
    return bodies


@pytest.mark.parametrize("name, body", _published_bodies(), ids=[name for name, _ in _published_bodies()])
def test_every_position_bearing_key_is_read_or_named(name, body):
    """The contract: a key that bears on position is in READ_POSITION_KEYS or UNREAD_POSITION_KEYS
    (app/core/model_families.py, the one list), and an unread one is said in a note."""
    text, _ = text_config_of(body)
    assert model_families.unnamed_position_keys(body) == []
    assert model_families.unnamed_position_keys(text) == []
    parsed = rope_settings_from_hf(body)
    notes = " ".join(parsed["notes"])
    for key in [*body, *text]:
        if key in model_families.UNREAD_POSITION_KEYS:
            assert f"{key} is not read" in notes

"""config.json standardisation: the rules transformers 5.24 applies, checked with explicit formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.hf_config import rope_config_from_hf
from app.core.scaling import ScalingError, compute


def theta(r, base):
    return np.array([base ** (-2 * j / r) for j in range(r // 2)])


def test_hidden_size_over_heads_and_default_theta():
    config, _standardized, _ = rope_config_from_hf({"hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 32000})
    assert (config.head_dim, config.rope_type, config.rope_theta) == (128, "default", 10000.0)
    np.testing.assert_allclose(compute(config)[0], theta(128, 1e4), rtol=1e-13)


def test_head_dim_wins_over_hidden_size():
    config, _, _ = rope_config_from_hf({"hidden_size": 3072, "num_attention_heads": 16, "head_dim": 256})
    assert config.head_dim == 256


def test_rope_scaling_type_and_rope_type_are_the_same():
    old = {"head_dim": 64, "max_position_embeddings": 8192, "rope_scaling": {"type": "linear", "factor": 2.0}}
    new = {"head_dim": 64, "max_position_embeddings": 8192, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}
    v5 = {"head_dim": 64, "max_position_embeddings": 8192, "rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}}
    results = [compute(rope_config_from_hf(c)[0])[0] for c in (old, new, v5)]
    for result in results:
        np.testing.assert_allclose(result, theta(64, 1e4) / 2, rtol=1e-13)


def test_rope_scaling_wins_over_rope_parameters():
    config, _, _ = rope_config_from_hf(
        {"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 4.0}, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}
    )
    assert config.factor == 4.0


def test_theta_inside_the_dict_wins_over_top_level():
    config, _, _ = rope_config_from_hf({"head_dim": 64, "rope_theta": 5e5, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}})
    assert config.rope_theta == 1e6


def test_original_length_filled_from_max_position_embeddings():
    config, standardized, _ = rope_config_from_hf(
        {"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}
    )
    assert standardized["original_max_position_embeddings"] == 4096
    assert config.original_max_position_embeddings == 4096


def test_top_level_original_length_overrides_the_dict():
    # transformers re-standardises inside the init function, after the config stored the top-level key.
    config, _, _ = rope_config_from_hf(
        {
            "head_dim": 64,
            "max_position_embeddings": 8192,
            "original_max_position_embeddings": 1000,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048},
        }
    )
    assert config.original_max_position_embeddings == 1000
    low = math.floor(64 * math.log(1000 / (32 * 2 * math.pi)) / (2 * math.log(1e4)))
    high = math.ceil(64 * math.log(1000 / (1 * 2 * math.pi)) / (2 * math.log(1e4)))
    inv_freq = compute(config)[0]
    th = theta(64, 1e4)
    np.testing.assert_allclose(inv_freq[: low + 1], th[: low + 1], rtol=1e-12)
    np.testing.assert_allclose(inv_freq[high:], th[high:] / 4, rtol=1e-12)


def test_phi3_su_and_yarn_are_longrope():
    lists = {"short_factor": [1.0] * 48, "long_factor": [2.0] * 48}
    base = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096}
    for kind in ("yarn", "longrope"):
        config, _, notes = rope_config_from_hf({**base, "rope_scaling": {"type": kind, **lists}})
        assert config.rope_type == "longrope"
        assert compute(config)[1] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-14)
    config, _, _ = rope_config_from_hf({**base, "rope_scaling": {"type": "su", "original_max_position_embeddings": 4096, **lists}})
    assert config.rope_type == "longrope"
    # The first 128k release: no original_max_position_embeddings inside the dict.  transformers 5.24
    # refuses it (KeyError in its longrope check), 4.x read the top-level value: so do we, with a note.
    config, _, notes = rope_config_from_hf({**base, "rope_scaling": {"type": "su", **lists}})
    assert config.rope_type == "longrope" and config.original_max_position_embeddings == 4096
    assert any("transformers 5.24 refuses" in note for note in notes)


def test_yarn_outside_phi3_stays_yarn():
    config, _, _ = rope_config_from_hf({"model_type": "qwen2", "head_dim": 128, "max_position_embeddings": 32768, "rope_scaling": {"type": "yarn", "factor": 4.0}})
    assert config.rope_type == "yarn"


def test_gpt_neox_and_gptj_names():
    neox, _, _ = rope_config_from_hf({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0.25, "rotary_emb_base": 10000})
    assert (neox.head_dim, neox.rotary_dim) == (96, 24)
    neox_default, _, _ = rope_config_from_hf({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64})
    assert neox_default.rotary_dim == 24  # GPTNeoXConfig's default rotary_pct is 0.25
    gptj, standardized, _ = rope_config_from_hf({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64, "n_positions": 2048})
    assert (gptj.head_dim, gptj.rotary_dim, standardized["pairing"]) == (256, 64, "interleaved")


def test_deepseek_rotates_qk_rope_head_dim():
    config, _, _ = rope_config_from_hf(
        {"model_type": "deepseek_v2", "hidden_size": 5120, "num_attention_heads": 128, "qk_rope_head_dim": 64, "max_position_embeddings": 163840,
         "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096, "mscale": 0.707, "mscale_all_dim": 0.707, "beta_fast": 32, "beta_slow": 1}}
    )
    assert config.rotary_dim == 64
    assert compute(config)[1] == 1.0


def test_truncate_null_means_false_and_betas_zero_mean_defaults():
    base = {"head_dim": 128, "max_position_embeddings": 32768, "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096}}
    plain = rope_config_from_hf(base)[0]
    nulled = rope_config_from_hf({**base, "rope_scaling": {**base["rope_scaling"], "truncate": None}})[0]
    zeros = rope_config_from_hf({**base, "rope_scaling": {**base["rope_scaling"], "beta_fast": 0, "beta_slow": 0}})[0]
    assert plain.truncate is True and nulled.truncate is False
    np.testing.assert_array_equal(compute(zeros)[0], compute(plain)[0])


@pytest.mark.parametrize(
    "config, field",
    [
        ({"num_attention_heads": 32}, "head_dim"),
        ({"head_dim": 64, "rope_scaling": {"rope_type": "su2", "factor": 2.0}}, "rope_scaling.rope_type"),
        ({"head_dim": 64, "rope_scaling": {"rope_type": "ntk", "factor": 2.0}}, "rope_scaling.rope_type"),
        ({"head_dim": 64, "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}, "rope_scaling.low_freq_factor"),
        ({"head_dim": 64, "rope_parameters": {"rope_type": "linear", "factor": "2"}}, "rope_parameters.factor"),
        ({"head_dim": 64, "rope_parameters": {"rope_type": "linear", "factor": 0.5}}, "rope_parameters.factor"),
        ({"head_dim": 64, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, "max_position_embeddings"),
        ({"head_dim": 64, "rope_scaling": "yarn"}, "rope_scaling"),
        ({"head_dim": 64, "rope_theta": None}, "rope_theta"),
        ({"head_dim": 2, "max_position_embeddings": 2048, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, "head_dim"),
        ([1, 2], "body"),
    ],
)
def test_bad_configs_name_the_field(config, field):
    with pytest.raises(ScalingError) as info:
        rope_config_from_hf(config)
    assert info.value.field == field


def test_keys_outside_the_method_are_named_in_notes_not_refused():
    config, standardized, notes = rope_config_from_hf(
        {"head_dim": 64, "max_position_embeddings": 2048,
         "rope_scaling": {"type": "dynamic", "factor": 2.0, "low_freq_factor": 1.0, "finetuned": True}}
    )
    assert config.rope_type == "dynamic" and "finetuned" not in standardized and "low_freq_factor" not in standardized
    assert any("rope_scaling.finetuned" in note for note in notes)
    assert any("rope_scaling.low_freq_factor" in note for note in notes)


def test_nested_dict_under_an_unknown_key_names_it():
    with pytest.raises(ScalingError) as info:
        rope_config_from_hf({"head_dim": 64, "rope_parameters": {"global_layers": {"rope_type": "default"}}})
    assert info.value.field == "rope_parameters.global_layers"


def test_mrope_section_must_cover_the_pairs():
    with pytest.raises(ScalingError) as info:
        rope_config_from_hf({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 20]}})
    assert info.value.field == "rope_scaling.mrope_section" and "64" in info.value.message


def test_errors_inside_text_config_name_the_path():
    with pytest.raises(ScalingError) as info:
        rope_config_from_hf({"model_type": "mistral3", "text_config": {"head_dim": 128, "rope_scaling": {"rope_type": "linear", "factor": "2"}}})
    assert info.value.field == "text_config.rope_scaling.factor"

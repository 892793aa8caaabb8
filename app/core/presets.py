"""Published model configs (the RoPE-relevant part of each ``config.json``), with their sources.

Each preset is a plain dict in config.json form, read by ``app.core.hf_config`` exactly like a
pasted config.  ``repo`` and ``file`` name the Hugging Face hub file the values come from;
``verified`` says what each value was checked against.  The hub itself could not be reached
from the machine this was written on (no network besides package registries), so the checks
are against copies of those files or of their values found in public code (mirrors, conversion
scripts, model-support tables); a value that could not be checked is said to be unchecked.
"""

from __future__ import annotations

from typing import Any

PHI3_MINI_128K_LONG = [
    1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558, 1.5699999332427979,
    1.7999999523162842, 2.129999876022339, 2.129999876022339, 3.009999990463257, 5.910000324249268,
    6.950000286102295, 9.070000648498535, 9.930000305175781, 10.710000038146973, 11.130000114440918,
    14.609999656677246, 15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
    38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516, 53.66000747680664,
    54.9373893737793, 56.89738845825195, 57.28738784790039, 59.98738479614258, 60.86738586425781,
    60.887386322021484, 61.71739196777344, 62.91739273071289, 62.957393646240234, 63.41739273071289,
    63.8173942565918, 63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
    64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906, 64.24435424804688,
    64.57435607910156, 64.69000244140625, 64.76000213623047,
]
PHI3_MINI_128K_SHORT = [
    1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003, 1.3500000000000003, 1.4000000000000004,
    1.5500000000000005, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.0500000000000007, 2.0500000000000007,
    2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.1000000000000005,
    2.1000000000000005, 2.1500000000000004, 2.25, 2.25, 2.25, 2.25, 2.25, 2.3999999999999995,
    2.4499999999999993, 2.499999999999999, 2.6999999999999984, 2.6999999999999984, 2.7499999999999982,
    2.799999999999998, 2.8999999999999977, 3.049999999999997,
]

VERIFIED_BY_REFERENCE = (
    "Written from the published config.json as recalled (the hub could not be reached); its RoPE values are those "
    "transformers 5.24's own config class and rotary module compute for this dict (tests/reference/data/"
    "hf_configs.json), not checked against the hub file itself."
)

PRESETS: list[dict[str, Any]] = [
    {
        "name": "Llama 2 7B",
        "repo": "meta-llama/Llama-2-7b-hf",
        "file": "config.json",
        "config": {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_scaling": None,
        },
        "source": "meta-llama/Llama-2-7b-hf config.json (no rope_theta key: transformers' default 10000 applies).",
        "verified": "Checked against several verbatim copies of the hub file in public code (hidden_size 4096, 32 heads, max_position_embeddings 4096, rope_scaling null, no rope_theta key; a transformers log of the loaded snapshot shows rope_theta defaulting to 10000.0).",
    },
    {
        "name": "Llama 3 8B",
        "repo": "meta-llama/Meta-Llama-3-8B",
        "file": "config.json",
        "config": {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 8192,
            "rope_theta": 500000.0,
            "rope_scaling": None,
        },
        "source": "meta-llama/Meta-Llama-3-8B config.json.",
        "verified": "hidden_size, heads and max_position_embeddings 8192 checked against a public copy of the config; rope_theta 500000.0 checked against model tables quoting the file, not against the file itself.",
    },
    {
        "name": "Llama 3.1 8B",
        "repo": "meta-llama/Llama-3.1-8B",
        "file": "config.json",
        "config": {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
        "source": "meta-llama/Llama-3.1-8B config.json.",
        "verified": "Checked against a verbatim copy of the hub file (transformers_version 4.43.0.dev0) in public benchmark code: every RoPE value matches.",
    },
    {
        "name": "Llama 3.2 1B",
        "repo": "meta-llama/Llama-3.2-1B",
        "file": "config.json",
        "config": {
            "model_type": "llama",
            "hidden_size": 2048,
            "num_attention_heads": 32,
            "head_dim": 64,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 32.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
        "source": "meta-llama/Llama-3.2-1B config.json.",
        "verified": "Checked against a public copy of the hub file: head_dim 64, hidden 2048, 32 heads, max_position_embeddings 131072 and the whole rope_scaling block; rope_theta 500000.0 was cut off in that copy (unchecked).",
    },
    {
        "name": "Mistral 7B v0.1",
        "repo": "mistralai/Mistral-7B-v0.1",
        "file": "config.json",
        "config": {
            "model_type": "mistral",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 32768,
            "rope_theta": 10000.0,
        },
        "source": "mistralai/Mistral-7B-v0.1 config.json (sliding window 4096; max_position_embeddings 32768).",
        "verified": "Checked against a transformers dump of the loaded hub config (MistralConfig with _name_or_path mistralai/Mistral-7B-v0.1): rope_theta 10000.0, max_position_embeddings 32768, sliding_window 4096.",
    },
    {
        "name": "Mistral 7B v0.3",
        "repo": "mistralai/Mistral-7B-v0.3",
        "file": "config.json",
        "config": {
            "model_type": "mistral",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
        },
        "source": "mistralai/Mistral-7B-v0.3 config.json (base raised to 1e6, as in Mistral-7B-Instruct-v0.2).",
        "verified": "hidden_size, heads and max_position_embeddings checked against a public copy; rope_theta 1e6 checked only against Mistral's reference parameters for Mistral-7B-v0.2 (the v0.3 hub file itself was not found).",
    },
    {
        "name": "Qwen2 7B Instruct",
        "repo": "Qwen/Qwen2-7B-Instruct",
        "file": "config.json",
        "config": {
            "model_type": "qwen2",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
            "rope_scaling": None,
        },
        "source": "Qwen/Qwen2-7B-Instruct config.json.",
        "verified": "Checked against a transformers dump of the loaded hub config (_name_or_path Qwen/Qwen2-7B-Instruct): hidden 3584, 28 heads, max_position_embeddings 32768, rope_theta 1000000.0, rope_scaling null.",
    },
    {
        "name": "CodeLlama 7B",
        "repo": "codellama/CodeLlama-7b-hf",
        "file": "config.json",
        "config": {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 16384,
            "rope_theta": 1000000,
            "rope_scaling": None,
        },
        "source": "codellama/CodeLlama-7b-hf config.json.",
        "verified": "Checked against a public copy of the hub file (_name_or_path codellama/CodeLlama-7b-hf): rope_theta 1000000, max_position_embeddings 16384, rope_scaling null.",
    },
    {
        "name": "Gemma 7B",
        "repo": "google/gemma-7b",
        "file": "config.json",
        "config": {
            "model_type": "gemma",
            "hidden_size": 3072,
            "num_attention_heads": 16,
            "head_dim": 256,
            "max_position_embeddings": 8192,
            "rope_theta": 10000.0,
        },
        "source": "google/gemma-7b config.json (head_dim 256 ≠ hidden_size/heads = 192).",
        "verified": "Checked against google/gemma_pytorch's 7B config (head_dim 256, hidden 3072, 16 heads, max_position_embeddings 8192) and transformers' GemmaConfig defaults, which it documents as gemma-7b (rope_theta 10000.0); the hub file itself was not found.",
    },
    {
        "name": "DeepSeek-V2 (YaRN)",
        "repo": "deepseek-ai/DeepSeek-V2",
        "file": "config.json",
        "config": {
            "model_type": "deepseek_v2",
            "hidden_size": 5120,
            "num_attention_heads": 128,
            "qk_rope_head_dim": 64,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 0.707,
                "mscale_all_dim": 0.707,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
        },
        "source": "deepseek-ai/DeepSeek-V2 config.json (RoPE on qk_rope_head_dim = 64 dims per head).",
        "verified": "rope_scaling, rope_theta 10000, qk_rope_head_dim 64 and max_position_embeddings 163840 checked against a verbatim copy of DeepSeek-V2-Lite's config.json (the same RoPE block) and SGLang's test config quoting DeepSeek-V2; hidden_size 5120 and 128 heads from DeepSeek-V2 model configs (they do not affect RoPE).",
    },
    {
        "name": "Phi-3 mini 128k (LongRoPE)",
        "repo": "microsoft/Phi-3-mini-128k-instruct",
        "file": "config.json",
        "config": {
            "model_type": "phi3",
            "hidden_size": 3072,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {
                "long_factor": PHI3_MINI_128K_LONG,
                "short_factor": PHI3_MINI_128K_SHORT,
                "type": "longrope",
            },
        },
        "source": "microsoft/Phi-3-mini-128k-instruct config.json, the revision with \"type\": \"longrope\" (the "
        "first release said \"su\" with other factor lists).",
        "verified": "The 48 long and short factors are copied from a Microsoft script's LONGROPE_PARAMS found in public code (type longrope); hidden 3072, 32 heads and original_max_position_embeddings 4096 match transformers' Phi3Config defaults. The hub file itself could not be read, so the pairing of these lists with this exact revision is not confirmed.",
    },
    {
        "name": "GPT-NeoX-20B (partial rotary)",
        "repo": "EleutherAI/gpt-neox-20b",
        "file": "config.json",
        "config": {
            "model_type": "gpt_neox",
            "hidden_size": 6144,
            "num_attention_heads": 64,
            "max_position_embeddings": 2048,
            "rotary_pct": 0.25,
            "rotary_emb_base": 10000,
        },
        "source": "EleutherAI/gpt-neox-20b config.json (rotary_pct 0.25: 24 of 96 dims per head rotate).",
        "verified": "hidden_size 6144, 64 heads and max_position_embeddings 2048 checked against a public copy; rotary_pct 0.25 and base 10000 match GPTNeoXConfig's defaults and the model card (RoPE on 25% of each head).",
    },
    {
        "name": "GPT-J-6B (interleaved, partial rotary)",
        "repo": "EleutherAI/gpt-j-6b",
        "file": "config.json",
        "config": {
            "model_type": "gptj",
            "n_embd": 4096,
            "n_head": 16,
            "n_positions": 2048,
            "rotary_dim": 64,
        },
        "source": "EleutherAI/gpt-j-6b config.json (rotary_dim 64 of 256 dims per head, interleaved pairs; base "
        "10000 fixed in modeling_gptj).",
        "verified": "Checked against the model card (16 heads of 256 dims, RoPE on 64 dims, n_ctx 2048) and transformers' GPTJConfig defaults (rotary_dim 64, n_positions 2048); the hub file itself was not found.",
    },
    {
        "name": "Gemma 3 4B (sliding and full layers)",
        "repo": "google/gemma-3-4b-it",
        "file": "config.json",
        "config": {'architectures': ['Gemma3ForConditionalGeneration'], 'model_type': 'gemma3', 'image_token_index': 262144, 'text_config': {'model_type': 'gemma3_text', 'hidden_size': 2560, 'intermediate_size': 10240, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'head_dim': 256, 'num_hidden_layers': 34, 'rope_scaling': {'factor': 8.0, 'rope_type': 'linear'}, 'sliding_window': 1024}},
        "source": "google/gemma-3-4b-it config.json (Gemma3ForConditionalGeneration; text_config with rope_scaling linear 8; rope_theta 1e6 and rope_local_base_freq 1e4 left to Gemma3TextConfig's defaults)",
        "verified": VERIFIED_BY_REFERENCE,
    },
    {
        "name": "Llama 4 Scout (RoPE and NoPE layers)",
        "repo": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "file": "config.json",
        "config": {'architectures': ['Llama4ForConditionalGeneration'], 'model_type': 'llama4', 'text_config': {'model_type': 'llama4_text', 'hidden_size': 5120, 'intermediate_size': 8192, 'num_attention_heads': 40, 'num_key_value_heads': 8, 'head_dim': 128, 'num_hidden_layers': 48, 'max_position_embeddings': 10485760, 'rope_theta': 500000.0, 'rope_scaling': {'factor': 16.0, 'high_freq_factor': 1.0, 'low_freq_factor': 1.0, 'original_max_position_embeddings': 8192, 'rope_type': 'llama3'}, 'attention_chunk_size': 8192, 'attn_temperature_tuning': True, 'floor_scale': 8192, 'attn_scale': 0.1, 'interleave_moe_layer_step': 1, 'use_qk_norm': True}},
        "source": "meta-llama/Llama-4-Scout-17B-16E(-Instruct) config.json (text_config: llama3 scaling with factor 16 and low = high = 1, NoPE every 4th layer by no_rope_layer_interval's default)",
        "verified": VERIFIED_BY_REFERENCE,
    },
    {
        "name": "Qwen2.5-VL 7B (M-RoPE)",
        "repo": "Qwen/Qwen2.5-VL-7B-Instruct",
        "file": "config.json",
        "config": {'architectures': ['Qwen2_5_VLForConditionalGeneration'], 'model_type': 'qwen2_5_vl', 'hidden_size': 3584, 'num_attention_heads': 28, 'num_key_value_heads': 4, 'num_hidden_layers': 28, 'max_position_embeddings': 128000, 'rope_theta': 1000000.0, 'rope_scaling': {'type': 'mrope', 'mrope_section': [16, 24, 24]}},
        "source": 'Qwen/Qwen2.5-VL-7B-Instruct config.json (rope_scaling type mrope)',
        "verified": VERIFIED_BY_REFERENCE,
    },
    {
        "name": "Qwen3 8B",
        "repo": "Qwen/Qwen3-8B",
        "file": "config.json",
        "config": {'architectures': ['Qwen3ForCausalLM'], 'model_type': 'qwen3', 'head_dim': 128, 'hidden_size': 4096, 'num_attention_heads': 32, 'num_key_value_heads': 8, 'num_hidden_layers': 36, 'max_position_embeddings': 40960, 'rope_theta': 1000000, 'rope_scaling': None, 'sliding_window': None},
        "source": 'Qwen/Qwen3-8B config.json (no scaling, rope_theta 1e6, head_dim 128)',
        "verified": VERIFIED_BY_REFERENCE,
    },
    {
        "name": "gpt-oss-20b (YaRN)",
        "repo": "openai/gpt-oss-20b",
        "file": "config.json",
        "config": {'architectures': ['GptOssForCausalLM'], 'model_type': 'gpt_oss', 'head_dim': 64, 'hidden_size': 2880, 'num_attention_heads': 64, 'num_key_value_heads': 8, 'num_hidden_layers': 24, 'max_position_embeddings': 131072, 'rope_theta': 150000, 'sliding_window': 128, 'layer_types': ['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention', 'sliding_attention', 'full_attention'], 'rope_scaling': {'beta_fast': 32.0, 'beta_slow': 1.0, 'factor': 32.0, 'original_max_position_embeddings': 4096, 'rope_type': 'yarn', 'truncate': False}},
        "source": 'openai/gpt-oss-20b config.json (YaRN factor 32, truncate false; sliding/full layers share it)',
        "verified": VERIFIED_BY_REFERENCE,
    },
    {
        "name": "DeepSeek-V3 (YaRN)",
        "repo": "deepseek-ai/DeepSeek-V3",
        "file": "config.json",
        "config": {'architectures': ['DeepseekV3ForCausalLM'], 'model_type': 'deepseek_v3', 'hidden_size': 7168, 'num_attention_heads': 128, 'num_key_value_heads': 128, 'num_hidden_layers': 61, 'q_lora_rank': 1536, 'kv_lora_rank': 512, 'qk_nope_head_dim': 128, 'qk_rope_head_dim': 64, 'v_head_dim': 128, 'max_position_embeddings': 163840, 'rope_theta': 10000, 'rope_scaling': {'beta_fast': 32, 'beta_slow': 1, 'factor': 40, 'mscale': 1.0, 'mscale_all_dim': 1.0, 'original_max_position_embeddings': 4096, 'type': 'yarn'}},
        "source": 'deepseek-ai/DeepSeek-V3 config.json (YaRN factor 40, mscale = mscale_all_dim = 1)',
        "verified": VERIFIED_BY_REFERENCE,
    },
]

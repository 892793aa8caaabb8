"""What a model family does with positions beyond its frequencies: how it pairs dimensions, which
attention temperatures its own code applies, and which config keys bear on position at all.

Everything here is decided from each family's reference code (cited beside each entry) and read by
``app.core.hf_config``.  Pure Python and numpy.

Pairing (which two dimensions of a head rotate together):
- ``"half"``: (x_j, x_{j+r/2}), the ``rotate_half`` of transformers' Llama code and every family
  copied from it (GPT-NeoX style).
- ``"interleaved"``: adjacent (x_{2j}, x_{2j+1}) (GPT-J style, RoFormer's original): GPT-J's
  ``rotate_every_two``, Llama 4's ``view_as_complex`` over the last axis reshaped to (…, r/2, 2),
  Cohere's ``rotate_half`` on ``x[..., ::2]`` / ``x[..., 1::2]`` with ``repeat_interleave``d cos/sin,
  GLM's ``x[..., 0::2]`` / ``x[..., 1::2]``, ChatGLM's reshape to (…, r/2, 2), and DeepSeek-V2/V3,
  whose checkpoints keep each pair adjacent (transformers' ``rope_interleave``, default true,
  de-interleaves before ``rotate_half``).

Query scales that grow with position (multiplying q, so the logits, by the factor):
- Ministral 3 (``modeling_ministral3._get_llama_4_attn_scale``): every layer,
  1 + β·ln(1 + ⌊pos / L0⌋) with β = ``rope_parameters.llama_4_scaling_beta`` and
  L0 = ``rope_parameters.original_max_position_embeddings``; pos is the 0-based cache position.
- Llama 4 (``modeling_llama4.Llama4TextAttention``, ``attn_temperature_tuning``): only the NoPE
  layers, 1 + attn_scale·ln(1 + ⌊(pos + 1) / floor_scale⌋).
"""

from __future__ import annotations

import math
import re
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np

HALF_SOURCE = "transformers' rotate_half (modeling_llama.py and the families copied from it) pairs x_j with x_(j+r/2)"
# model_type → (pairing, the reference code that decides it).
PAIRING_BY_FAMILY: dict[str, tuple[str, str]] = {
    **dict.fromkeys((
        "llama", "mistral", "mixtral", "ministral", "ministral3", "mistral3", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
        "qwen3_next", "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text", "qwen3_vl", "qwen3_vl_text",
        "qwen3_vl_moe", "qwen3_vl_moe_text", "gemma", "gemma2", "gemma3", "gemma3_text", "phi", "phi3", "phimoe",
        "smollm3", "olmo", "olmo2", "granite", "starcoder2",
    ), ("half", HALF_SOURCE)),
    "gpt_neox": ("half", "modeling_gpt_neox.py: rotate_half over the rotary_pct part of each head"),
    "gpt_oss": ("half", "modeling_gpt_oss.py: _apply_rotary_emb splits each head into a first and a second half"),
    "phi-msft": ("half", "phi-2's first modeling_phi.py (phi-msft): _apply_rotary_emb splits x[..., :rotary_dim] into two halves"),
    "gptj": ("interleaved", "modeling_gptj.py: rotate_every_two pairs x_(2j) with x_(2j+1)"),
    "llama4": ("interleaved", "modeling_llama4.py: apply_rotary_emb reshapes q and k to (…, r/2, 2) and multiplies as complex numbers"),
    "llama4_text": ("interleaved", "modeling_llama4.py: apply_rotary_emb reshapes q and k to (…, r/2, 2) and multiplies as complex numbers"),
    "cohere": ("interleaved", "modeling_cohere.py: rotate_half takes x[..., ::2] and x[..., 1::2], cos and sin are repeat_interleave'd"),
    "cohere2": ("interleaved", "modeling_cohere2.py: rotate_half takes x[..., ::2] and x[..., 1::2], cos and sin are repeat_interleave'd"),
    "glm": ("interleaved", "modeling_glm.py: rotate_half takes x[..., 0::2] and x[..., 1::2]"),
    "glm4": ("interleaved", "modeling_glm4.py: rotate_half takes x[..., 0::2] and x[..., 1::2]"),
    "chatglm": ("interleaved", "ChatGLM's modeling_chatglm.py: apply_rotary_pos_emb reshapes the rotated part to (…, r/2, 2)"),
    **dict.fromkeys(("deepseek_v2", "deepseek_v3", "kimi_k2"),
                    ("interleaved", "modeling_deepseek_v3.py: the checkpoint keeps each pair adjacent (rope_interleave, default true)")),
}
PAIRINGS = ("interleaved", "half")

# Multi-head latent attention: the families whose attention multiplies its softmax scale by
# get_mscale(s, mscale_all_dim)² (modeling_deepseek_v3.py / modeling_deepseek_v2.py; Kimi-K2 runs DeepSeek-V3's code).
LATENT_ATTENTION_FAMILIES = ("deepseek_v2", "deepseek_v3", "kimi_k2")


def family_pairing(model_type: str | None, config: dict[str, Any]) -> dict[str, Any]:
    """``{"pairing", "known", "source"}`` for a config: its family's pairing from the table above
    (DeepSeek's ``rope_interleave: false`` turns it to half), or, for a family not in it, "half"
    with ``known`` false and a sentence saying so."""
    if model_type in PAIRING_BY_FAMILY:
        pairing, source = PAIRING_BY_FAMILY[model_type]
        if model_type in LATENT_ATTENTION_FAMILIES and config.get("rope_interleave") is False:
            pairing, source = "half", "modeling_deepseek_v3.py with rope_interleave = false: the checkpoint is in halves already"
        return {"pairing": pairing, "known": True, "source": source}
    what = f"model_type {model_type!r}" if model_type else "a config without model_type"
    return {
        "pairing": "half",
        "known": False,
        "source": (
            f"{what} is not a family whose rotary code this app has read, so its pairing is unknown: 'half' (transformers' "
            "rotate_half, the most common) is assumed; check the model's apply_rotary_pos_emb before trusting the pairs"
        ),
    }


def latent_attention(model_type: str | None, config: dict[str, Any]) -> bool:
    """Whether the config is DeepSeek-style latent attention: one of its families, or a config that
    has its layout (``qk_rope_head_dim``) under another name."""
    return model_type in LATENT_ATTENTION_FAMILIES or "qk_rope_head_dim" in config


# ---- query scales that grow with position ----------------------------------------------------


def query_scale(positions: np.ndarray | float, beta: float, interval: int, offset: int = 0) -> np.ndarray | float:
    """1 + β·ln(1 + ⌊(pos + offset) / interval⌋), the factor on q at 0-based position ``pos``
    (shape of ``positions``; a float for a number).  ``offset`` 0: Ministral 3; 1: Llama 4."""
    if np.ndim(positions):
        steps = np.floor((np.asarray(positions, dtype=np.float64) + offset) / interval)
        return 1.0 + beta * np.log1p(steps)
    return 1.0 + beta * math.log1p(math.floor((positions + offset) / interval))


def query_scale_curve(beta: float, interval: int, offset: int, length: int, samples: int = 400) -> dict[str, Any]:
    """The scale at positions 0 … length−1, as steps: the first position of each step (where it rises)
    and the value there, at most ``samples`` steps (a staircase drawn exactly when the length holds
    few intervals; sampled evenly, with the last position, when it holds more)."""
    last = max(length - 1, 0)
    steps = (last + offset) // interval
    if steps + 1 <= samples:
        starts = np.array([0] + [k * interval - offset for k in range(1, steps + 1)], dtype=np.int64)
    else:
        starts = np.unique(np.linspace(0, last, samples).astype(np.int64))
    positions = np.unique(np.concatenate([starts, [last]]))
    return {"position": positions, "scale": query_scale(positions, beta, interval, offset)}


# ---- config keys that bear on position ------------------------------------------------------------

# A key whose name says it may bear on position: every such key of a config must be in one of the
# two tables below (tests/api/test_configs_contract.py checks the published configs against them).
POSITION_KEY_PATTERN = re.compile(
    r"rope|rotary|position|theta|mscale|kv_channels|seq_length|n_positions|window|chunk|nope|layer_types|interleave"
    r"|floor_scale|attn_scale|temperature|alibi|^n_embd$|^n_head$|head_dim|^hidden_size$|num_attention_heads"
    r"|num_hidden_layers|scaling|max_seq|context"
)

# Keys this app reads (at the top level or in text_config), and what for.
READ_POSITION_KEYS: dict[str, str] = {
    "model_type": "the family: pairing, default base, config-class defaults",
    "text_config": "multimodal wrappers keep the text model's keys there",
    "rope_theta": "the base",
    "rope_scaling": "the scaling dict (older name)",
    "rope_parameters": "the scaling dict (transformers 5), flat or per layer type",
    "head_dim": "the size of a head",
    "hidden_size": "with num_attention_heads, the size of a head when head_dim is not given",
    "num_attention_heads": "with hidden_size, the size of a head",
    "num_hidden_layers": "how many layers the layer lists cover",
    "partial_rotary_factor": "the share of each head that rotates",
    "max_position_embeddings": "the advertised length (dynamic NTK's reference, YaRN's default L0)",
    "original_max_position_embeddings": "the training length L0 of llama3, yarn and longrope",
    "rotary_pct": "GPT-NeoX's partial_rotary_factor",
    "rotary_emb_base": "GPT-NeoX's rope_theta",
    "rotary_dim": "GPT-J, CodeGen and phi-msft: how many dimensions of a head rotate",
    "n_embd": "GPT-J and phi-msft's hidden_size",
    "n_head": "GPT-J and phi-msft's num_attention_heads",
    "n_positions": "GPT-J and phi-msft's max_position_embeddings",
    "kv_channels": "ChatGLM's head size (half of it rotates)",
    "rope_ratio": "ChatGLM's base multiplier: base = 10000 · rope_ratio",
    "seq_length": "ChatGLM's max_position_embeddings",
    "qk_rope_head_dim": "DeepSeek-style latent attention: the rotated part of each head",
    "qk_nope_head_dim": "DeepSeek-style latent attention: the part of each head without position",
    "rope_interleave": "DeepSeek-V3: whether the checkpoint pairs are adjacent",
    "no_rope_layers": "which layers use no RoPE",
    "no_rope_layer_interval": "every interval-th layer uses no RoPE (Llama 4, SmolLM3)",
    "layer_types": "which layers use which RoPE setting",
    "sliding_window_pattern": "Gemma 3: every pattern-th layer is full attention",
    "full_attention_interval": "Qwen3-Next: every interval-th layer is full attention",
    "rope_local_base_freq": "Gemma 3's base of the sliding-window layers",
    "llama_4_scaling_beta": "Ministral 3's query scale 1 + β·ln(1 + ⌊pos/L0⌋)",
    "attn_temperature_tuning": "Llama 4: whether the NoPE layers scale their queries with position",
    "floor_scale": "Llama 4: the interval of the NoPE layers' query scale",
    "attn_scale": "Llama 4: β of the NoPE layers' query scale",
}

# Keys that bear on position but do not change what this app computes, each with the reason.
UNREAD_POSITION_KEYS: dict[str, str] = {
    "sliding_window": "it limits which keys a query sees, not how positions rotate",
    "use_sliding_window": "it switches the sliding window on, which limits the keys a query sees, not the rotation",
    "max_window_layers": "it says which layers use the sliding window, not how positions rotate",
    "sliding_window_size": "it limits which keys a query sees, not how positions rotate",
    "attention_chunk_size": "Llama 4's RoPE layers attend within chunks of this many tokens; the rotation is unchanged",
    "vision_config": "the vision encoder places image patches with its own positions, outside the text model's RoPE",
    "position_embedding_type": "it names learned or absolute position embeddings of encoder models, not RoPE",
    "max_sequence_length": "not a key transformers' rotary code reads",
    "position_encoding_2d": "ChatGLM-6B's first release adds block positions in a second rotation, which this app does not draw",
    "original_rope": "ChatGLM's choice between two equivalent ways of writing the same rotation",
    "apply_query_key_layer_scaling": "ChatGLM's per-layer division of the logits, undone before the softmax",
    "flash_rotary": "phi-msft's choice of kernel for the same rotation",
    "v_head_dim": "values carry no position",
    "linear_key_head_dim": "Qwen3-Next's linear-attention heads use no RoPE",
    "linear_value_head_dim": "Qwen3-Next's linear-attention heads use no RoPE",
    "interleave_moe_layer_step": "it says which layers are mixture-of-experts, not how positions rotate",
}


def position_key_notes(config: dict[str, Any], skip: AbstractSet[str] = frozenset()) -> list[str]:
    """One note per key of ``config`` that bears on position and is not read: each UNREAD key with its
    reason, and each key that looks positional (:data:`POSITION_KEY_PATTERN`) but is in neither table."""
    notes = []
    for key in config:
        if key in skip or key in READ_POSITION_KEYS:
            continue
        if key in UNREAD_POSITION_KEYS:
            notes.append(f"{key} is not read: {UNREAD_POSITION_KEYS[key]}.")
        elif POSITION_KEY_PATTERN.search(key):
            notes.append(f"{key} looks position-related but this app does not know it; it is not read.")
    return notes


def unnamed_position_keys(config: dict[str, Any]) -> list[str]:
    """Keys of ``config`` that look positional and are in neither table (the contract test wants none)."""
    return [key for key in config if POSITION_KEY_PATTERN.search(key) and key not in READ_POSITION_KEYS and key not in UNREAD_POSITION_KEYS]

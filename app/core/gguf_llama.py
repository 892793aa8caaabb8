"""A llama-architecture model in numpy: its forward pass and its tokenizer.

The weights come from a GGUF file (``app.trained.gguf_file`` reads and dequantises it with the ``gguf``
package, the format's own reader); the forward pass is written here in numpy, in float32 as
llama.cpp and transformers compute it: RMSNorm, grouped-query attention with RoPE, a SiLU-gated MLP,
and the output head (tied to the token embedding when the file has no ``output.weight``).

RoPE layout: llama.cpp's converter permutes the rows of W_q and W_k so that, in the file's order,
RoPE rotates *adjacent* pairs (x[2i], x[2i+1]). Pair i then turns at theta_i = base**(-2i/d), the
frequency the model really gives it. ``rope_adjacent`` applies exactly that rotation.

``tokenizers`` is imported only when a tokenizer is made, so the rest of app.core does not need it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.core.frequencies import inverse_frequencies


class NotLlamaGGUF(ValueError):
    """The file is not a GGUF file of a llama-architecture model this module can run."""


@dataclass
class LlamaConfig:
    n_layer: int
    d_model: int
    n_head: int
    n_kv_head: int
    head_dim: int
    d_ff: int
    rope_base: float
    rms_eps: float
    vocab_size: int


@dataclass
class LlamaModel:
    config: LlamaConfig
    embed: np.ndarray  # (vocab, d_model) float32
    layers: list[dict[str, np.ndarray]]
    out_norm: np.ndarray
    out_head: np.ndarray  # (vocab, d_model)
    tokens: list[str] = field(default_factory=list)
    merges: list[str] = field(default_factory=list)
    bos_id: int = 1
    eos_id: int = 2


LAYER_KEYS = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")


def rope_adjacent(x: np.ndarray, inv_freq: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
    """Rotate adjacent pairs (x[..., 2i], x[..., 2i+1]) by angle position * inv_freq[i].

    x has shape (..., T, d). A pair whose inv_freq is 0 is left as it is.
    """
    T = x.shape[-2]
    pos = np.arange(T, dtype=np.float64) if positions is None else np.asarray(positions, dtype=np.float64)
    ang = pos[:, None] * np.asarray(inv_freq, dtype=np.float64)[None, :]
    c = np.cos(ang).astype(np.float32)
    s = np.sin(ang).astype(np.float32)
    a = x[..., 0::2]
    b = x[..., 1::2]
    out = np.empty_like(x, dtype=np.float32)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


def _rms(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def forward(model: LlamaModel, ids, keep_qk: bool = True, progress=None, logits: bool = True) -> dict:
    """Run the model on token ids. Returns logits (T, vocab) (None when ``logits`` is false) and, per
    layer, pre-rotation q (H, T, d) and k (Hkv, T, d) when ``keep_qk``, and the hidden state after it.

    Every activation stays float32 (the weights are float32): a float64 scalar in the score scale
    would turn them float64 and every matmul after it into a slow mixed-type one.
    ``progress(i, n)`` is called after each layer i = 1 .. n when given; an exception it raises stops
    the pass there (a time limit).
    """
    cfg = model.config
    ids = np.asarray(ids, dtype=np.int64)
    T = len(ids)
    H, Hk, d = cfg.n_head, cfg.n_kv_head, cfg.head_dim
    group = H // Hk
    inv = inverse_frequencies(d, cfg.rope_base)
    scale = np.float32(1.0 / np.sqrt(d))
    x = np.asarray(model.embed[ids], dtype=np.float32)
    mask = np.triu(np.full((T, T), -np.inf, dtype=np.float32), 1)
    qs, ks, hiddens = [], [], []
    for li, L in enumerate(model.layers):
        h = _rms(x, L["attn_norm"], cfg.rms_eps)
        q = (h @ L["attn_q"].T).reshape(T, H, d).transpose(1, 0, 2)
        k = (h @ L["attn_k"].T).reshape(T, Hk, d).transpose(1, 0, 2)
        v = (h @ L["attn_v"].T).reshape(T, Hk, d).transpose(1, 0, 2)
        if keep_qk:
            qs.append(q.copy())
            ks.append(k.copy())
        qr = rope_adjacent(q, inv)
        kr = rope_adjacent(k, inv)
        kr_full = np.repeat(kr, group, axis=0)
        v_full = np.repeat(v, group, axis=0)
        s = (qr @ kr_full.transpose(0, 2, 1)) * scale + mask
        s = s - s.max(axis=-1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=-1, keepdims=True)
        a = (p @ v_full).transpose(1, 0, 2).reshape(T, H * d)
        x = x + a @ L["attn_output"].T
        h = _rms(x, L["ffn_norm"], cfg.rms_eps)
        g = h @ L["ffn_gate"].T
        u = h @ L["ffn_up"].T
        x = x + ((g / (1.0 + np.exp(-g))) * u) @ L["ffn_down"].T
        hiddens.append(x.copy())
        if progress is not None:
            progress(li + 1, cfg.n_layer)
    out = _rms(x, model.out_norm, cfg.rms_eps) @ model.out_head.T if logits else None
    return {"logits": out, "q": qs, "k": ks, "hidden": hiddens}


def greedy(model: LlamaModel, ids, n_new: int) -> list[int]:
    """Greedy continuation (recomputes the whole prefix each step: fine for a few tokens)."""
    ids = list(ids)
    out = []
    for _ in range(n_new):
        logits = forward(model, ids, keep_qk=False)["logits"]
        nxt = int(np.argmax(logits[-1]))
        out.append(nxt)
        ids.append(nxt)
    return out


def make_tokenizer(model: LlamaModel):
    """A byte-level BPE tokenizer from the file's own vocabulary and merges (SmolLM's pre-tokenizer:
    digits split one by one, then GPT-2's byte-level split)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = {t: i for i, t in enumerate(model.tokens)}
    merges = [tuple(m.split(" ", 1)) for m in model.merges]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
    )
    tok.decoder = decoders.ByteLevel()
    specials = [t for t in model.tokens if t.startswith("<|") and t.endswith("|>")]
    if specials:
        tok.add_special_tokens(specials)
    return tok

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

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from app.core.frequencies import inverse_frequencies

if TYPE_CHECKING:
    from tokenizers import Tokenizer

F32 = npt.NDArray[np.float32]
# Token ids: a list, or an integer array (T,).
TokenIds = Sequence[int] | npt.NDArray[np.integer]
# ``progress(layer, n_layer)``, called after each layer; an exception it raises stops the pass.
Progress = Callable[[int, int], None]


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


def rope_angles(inv_freq: npt.ArrayLike, positions: npt.ArrayLike, attention_factor: float = 1.0) -> tuple[F32, F32]:
    """cos and sin of position * inv_freq[i], each ``(T, r/2)`` float32, both multiplied by
    ``attention_factor`` as transformers does (``LlamaRotaryEmbedding.forward``: ``cos = emb.cos() *
    self.attention_scaling``, the same for sin), so that q.k after rotation is multiplied by its square.
    Angles are computed in float64 and cast once (the forward pass stays float32)."""
    pos = np.asarray(positions, dtype=np.float64)
    ang = pos[:, None] * np.asarray(inv_freq, dtype=np.float64)[None, :]
    c = (np.cos(ang) * attention_factor).astype(np.float32)
    s = (np.sin(ang) * attention_factor).astype(np.float32)
    return c, s


def rotate_adjacent(x: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Rotate adjacent pairs (x[..., 2i], x[..., 2i+1]) of x ``(..., T, d)`` by the angles whose cos and
    sin are c, s ``(T, d/2)`` (from :func:`rope_angles`)."""
    a = x[..., 0::2]
    b = x[..., 1::2]
    out = np.empty_like(x, dtype=np.float32)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


def rope_adjacent(x: np.ndarray, inv_freq: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
    """Rotate adjacent pairs (x[..., 2i], x[..., 2i+1]) by angle position * inv_freq[i].

    x has shape (..., T, d). A pair whose inv_freq is 0 is left as it is.
    """
    T = x.shape[-2]
    c, s = rope_angles(inv_freq, np.arange(T) if positions is None else positions)
    return rotate_adjacent(x, c, s)


def _rms(x: F32, w: F32, eps: float) -> F32:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def causal_attention(
    qr: np.ndarray, kr: np.ndarray, v: np.ndarray, scale: float | np.floating, block: int | None = None
) -> F32:
    """Causal grouped-query softmax attention in blocks of queries; returns ``(T, H*d)`` float32.

    qr ``(H, T, d)`` (rotated), kr ``(Hkv, T, d)`` (rotated), v ``(Hkv, T, d)``; query head h reads key
    head h // (H/Hkv), as ``np.repeat(k, H/Hkv, axis=0)`` pairs them.  Queries [a, b) of a block are
    scored only against keys [0, b) (their causal range), the triangle above the diagonal of the block's
    last b − a keys set to −inf, so the largest array held is ``(H, block, T)`` scores, never ``(H, T, T)``
    (block = None or ≥ T: one block, the plain pass).  softmax(s)·v is computed as exp(s − max)·v
    divided by the row sums afterwards, which is the same number up to float32 rounding.
    """
    H, T, d = qr.shape
    Hk = kr.shape[0]
    g = H // Hk
    B = T if block is None else max(1, min(int(block), T))
    scale = np.float32(scale)
    out = np.empty((T, H, d), dtype=np.float32)
    for a in range(0, T, B):
        b = min(T, a + B)
        n = b - a
        q = np.ascontiguousarray(qr[:, a:b]).reshape(Hk, g * n, d)
        s = q @ kr[:, :b].transpose(0, 2, 1)  # (Hk, g*n, b)
        s *= scale
        s4 = s.reshape(Hk, g, n, b)
        s4[..., a:] += np.triu(np.full((n, n), -np.inf, dtype=np.float32), 1)
        s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        den = s.sum(axis=-1, keepdims=True)
        o = (s @ v[:, :b]) / den  # (Hk, g*n, d)
        out[a:b] = o.reshape(H, n, d).transpose(1, 0, 2)
        del s, s4
    return out.reshape(T, H * d)


def _layers(
    model: LlamaModel,
    ids: TokenIds,
    inv_freq: npt.ArrayLike | None = None,
    attention_factor: float = 1.0,
    block: int | None = None,
    progress: Progress | None = None,
) -> Iterator[tuple[F32, F32, F32]]:
    """The decoder layers, one at a time: yields ``(q, k, x)`` after each layer (pre-rotation q
    ``(H, T, d)``, k ``(Hkv, T, d)``, the hidden state ``(T, d_model)``); the one implementation of a layer
    that :func:`forward` and :func:`next_token_loss` share."""
    cfg = model.config
    ids = np.asarray(ids, dtype=np.int64)
    T = len(ids)
    H, Hk, d = cfg.n_head, cfg.n_kv_head, cfg.head_dim
    inv = inverse_frequencies(d, cfg.rope_base) if inv_freq is None else np.asarray(inv_freq, dtype=np.float64)
    c, sn = rope_angles(inv, np.arange(T), attention_factor)
    scale = np.float32(1.0 / np.sqrt(d))
    x = np.asarray(model.embed[ids], dtype=np.float32)
    for li, L in enumerate(model.layers):
        h = _rms(x, L["attn_norm"], cfg.rms_eps)
        q = (h @ L["attn_q"].T).reshape(T, H, d).transpose(1, 0, 2)
        k = (h @ L["attn_k"].T).reshape(T, Hk, d).transpose(1, 0, 2)
        v = np.ascontiguousarray((h @ L["attn_v"].T).reshape(T, Hk, d).transpose(1, 0, 2))
        a = causal_attention(rotate_adjacent(q, c, sn), rotate_adjacent(k, c, sn), v, scale, block)
        x = x + a @ L["attn_output"].T
        h = _rms(x, L["ffn_norm"], cfg.rms_eps)
        g = h @ L["ffn_gate"].T
        u = h @ L["ffn_up"].T
        x = x + ((g / (1.0 + np.exp(-g))) * u) @ L["ffn_down"].T
        yield q, k, x
        if progress is not None:
            progress(li + 1, cfg.n_layer)


def forward(
    model: LlamaModel,
    ids: TokenIds,
    keep_qk: bool = True,
    progress: Progress | None = None,
    logits: bool = True,
    inv_freq: npt.ArrayLike | None = None,
    attention_factor: float = 1.0,
    block: int | None = None,
) -> dict[str, Any]:
    """Run the model on token ids. Returns logits (T, vocab) (None when ``logits`` is false) and, per
    layer, pre-rotation q (H, T, d) and k (Hk, T, d) when ``keep_qk``, and the hidden state after it.

    Every activation stays float32 (the weights are float32): a float64 scalar in the score scale
    would turn them float64 and every matmul after it into a slow mixed-type one.
    ``progress(i, n)`` is called after each layer i = 1 .. n when given; an exception it raises stops
    the pass there (a time limit).  ``inv_freq`` (r/2,) and ``attention_factor`` replace the model's own
    RoPE (default: base**(-2i/d), factor 1), as a scaling method resolves them; ``block``: queries per
    attention block (:func:`causal_attention`; None = one block).
    """
    qs: list[F32] = []
    ks: list[F32] = []
    hiddens: list[F32] = []
    for q, k, x in _layers(model, ids, inv_freq, attention_factor, block, progress):
        if keep_qk:
            qs.append(q.copy())
            ks.append(k.copy())
        hiddens.append(x)
    if logits and not hiddens:
        raise NotLlamaGGUF("the model has no layers")
    out = _rms(hiddens[-1], model.out_norm, model.config.rms_eps) @ model.out_head.T if logits else None
    return {"logits": out, "q": qs, "k": ks, "hidden": hiddens}


def next_token_loss(
    model: LlamaModel,
    ids: TokenIds,
    inv_freq: npt.ArrayLike | None = None,
    attention_factor: float = 1.0,
    block: int | None = 512,
    chunk: int = 512,
    progress: Progress | None = None,
) -> npt.NDArray[np.float64]:
    """Per-position next-token loss −log p(ids[t+1] | ids[0..t]) in nats, shape ``(T−1,)`` float64, in
    memory bounded for long inputs: attention in query blocks (:func:`causal_attention`), no per-layer
    state kept, and the output head applied to ``chunk`` positions at a time, of which only the
    log-softmax of the next token is kept (a full T × vocab logits matrix is never made: at T = 16,384
    and SmolLM2's 49,152 tokens it would be 3.2 GB).  The log-softmax is max + log Σ exp(l − max) − l[next],
    in float32 like the logits, accumulated into float64.

    ``inv_freq`` and ``attention_factor`` come from outside (``app.core.scaling.compute``); a method that
    reads the sequence length (dynamic NTK) is resolved by the caller for the one length of this pass.
    """
    ids = np.asarray(ids, dtype=np.int64)
    T = len(ids)
    x: F32 | None = None
    for _, _, hidden in _layers(model, ids, inv_freq, attention_factor, block, progress):
        x = hidden  # the last layer's output
    if x is None:
        raise NotLlamaGGUF("the model has no layers")
    h = _rms(x, model.out_norm, model.config.rms_eps)
    loss = np.empty(T - 1, dtype=np.float64)
    for a in range(0, T - 1, chunk):
        b = min(T - 1, a + chunk)
        lg = h[a:b] @ model.out_head.T
        m = lg.max(axis=-1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(lg - m).sum(axis=-1))
        loss[a:b] = lse.astype(np.float64) - lg[np.arange(b - a), ids[a + 1 : b + 1]].astype(np.float64)
    return loss


def greedy(model: LlamaModel, ids: Iterable[int], n_new: int) -> list[int]:
    """Greedy continuation (recomputes the whole prefix each step: fine for a few tokens)."""
    prefix = list(ids)
    out = []
    for _ in range(n_new):
        logits = forward(model, prefix, keep_qk=False)["logits"]
        nxt = int(np.argmax(logits[-1]))
        out.append(nxt)
        prefix.append(nxt)
    return out


def make_tokenizer(model: LlamaModel) -> Tokenizer:
    """A byte-level BPE tokenizer from the file's own vocabulary and merges (SmolLM's pre-tokenizer:
    digits split one by one, then GPT-2's byte-level split)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = {t: i for i, t in enumerate(model.tokens)}
    merges = [_merge_pair(m) for m in model.merges]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
    )
    tok.decoder = decoders.ByteLevel()
    specials = [t for t in model.tokens if t.startswith("<|") and t.endswith("|>")]
    if specials:
        tok.add_special_tokens(specials)
    return tok


def _merge_pair(merge: str) -> tuple[str, str]:
    """A BPE merge as the file writes it, "left right", as the pair (left, right)."""
    parts = merge.split(" ", 1)
    if len(parts) != 2:
        raise NotLlamaGGUF(f"tokenizer.ggml.merges holds {merge!r}, not two tokens separated by a space")
    return parts[0], parts[1]

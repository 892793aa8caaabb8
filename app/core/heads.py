"""What a trained model's heads do with RoPE: attention patterns from stored pre-rotation q and k,
energy per rotary pair, mean score per offset, head classes, and RoPE surgery.

q has shape (H, T, d) and k (Hkv, T, d), before rotation, in the GGUF layout where pair j is the
adjacent pair (x[2j], x[2j+1]) turning at inv_freq[j]. Query head h reads key/value head
h // (H // Hkv) (grouped-query attention).
"""

from __future__ import annotations

import numpy as np

from app.core import scaling
from app.core.gguf_llama import rope_adjacent


def kv_head(h: int, n_head: int, n_kv_head: int) -> int:
    return h // (n_head // n_kv_head)


def attention(q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Causal softmax of (R q_m)·(R k_n)/√d · scale for one head: q, k (T, d). Zeros above the diagonal."""
    T, d = q.shape
    qr = rope_adjacent(q.astype(np.float32), inv_freq)
    kr = rope_adjacent(k.astype(np.float32), inv_freq)
    s = (qr @ kr.T) * (scale / np.sqrt(d))
    s = np.where(np.tri(T, dtype=bool), s, -np.inf)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    return p / p.sum(axis=1, keepdims=True)


def pair_energy(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """E_j = mean over positions of ‖q_j‖·‖k_j‖ (before rotation): q, k (T, d) → (d/2,)."""
    qn = np.hypot(q[:, 0::2].astype(np.float64), q[:, 1::2].astype(np.float64))
    kn = np.hypot(k[:, 0::2].astype(np.float64), k[:, 1::2].astype(np.float64))
    return (qn * kn).mean(axis=0)


def offset_scores(q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """Mean pre-softmax score (R q_m)·(R k_n)/√d over all (m, n = m − Δ), for Δ = 0 .. T−1."""
    T, d = q.shape
    qr = rope_adjacent(q.astype(np.float32), inv_freq).astype(np.float64)
    kr = rope_adjacent(k.astype(np.float32), inv_freq).astype(np.float64)
    s = qr @ kr.T / np.sqrt(d)
    return np.array([np.diagonal(s, -delta).mean() for delta in range(T)])


def mass(weights: np.ndarray) -> dict[str, float]:
    """Mean attention mass on the previous token (queries m ≥ 1) and on the first token (m ≥ 1)."""
    T = weights.shape[0]
    if T < 2:
        return {"previous": 0.0, "first": 0.0}
    rows = np.arange(1, T)
    return {"previous": float(weights[rows, rows - 1].mean()), "first": float(weights[rows, 0].mean())}


def classify(weights: np.ndarray, threshold: float = 0.5) -> str:
    """'previous-token' or 'first-token' when that mean mass exceeds threshold, else 'other'."""
    m = mass(weights)
    if m["previous"] >= threshold and m["previous"] >= m["first"]:
        return "previous-token"
    if m["first"] >= threshold:
        return "first-token"
    return "other"


def js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen–Shannon divergence (natural log) between rows of p and q."""
    m = 0.5 * (p + q)

    def kl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(a > 0, a * np.log(a / np.where(b > 0, b, 1.0)), 0.0)
        return t.sum(axis=-1)

    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def surgery_inv_freq(
    base_inv_freq: np.ndarray,
    config: scaling.RopeConfig | None,
    band: tuple[int, int] | None,
    band_mode: str,
    seq_len: int,
) -> tuple[np.ndarray, float, np.ndarray]:
    """The frequencies after surgery, the attention factor, and a keep-mask per pair.

    config: a registry method (its rope_theta is the new base), or None to keep the model's own.
    band (lo, hi) inclusive pairs: 'unrotated' sets their frequency to 0, 'dropped' removes them
    from the dot product.
    """
    if config is not None:
        inv, att = scaling.compute(config, seq_len)
    else:
        inv, att = np.asarray(base_inv_freq, dtype=np.float64), 1.0
    inv = inv.copy()
    keep = np.ones(len(inv), dtype=bool)
    if band is not None:
        lo, hi = band
        if band_mode == "unrotated":
            inv[lo : hi + 1] = 0.0
        else:
            keep[lo : hi + 1] = False
    return inv, att, keep


def surgered_attention(
    q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, attention_factor: float, keep: np.ndarray
) -> np.ndarray:
    """Attention with the surgery's frequencies; dropped pairs are zeroed in q (the √d stays the model's)."""
    if not keep.all():
        mask = np.repeat(keep, 2).astype(np.float32)
        q = q.astype(np.float32) * mask
    # HF scales cos and sin by attention_factor on both q and k: the score by its square.
    return attention(q, k, inv_freq, scale=attention_factor**2)

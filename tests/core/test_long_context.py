"""The long-context forward pass (app.core.gguf_llama.next_token_loss / causal_attention) on the real
SmolLM2-135M GGUF, and the curves shipped for /long-context.

Independent formulations the blocked code is checked against: a dense causal softmax attention written
here (a T x T mask, np.repeat of the key heads, softmax normalised before multiplying by v, as the pass
was written before blocking); the log-softmax of the full logits matrix; transformers' logits
(tests/reference/model/reference.json); RoPE's rotation written with complex numbers.
Tolerances: float32 sums taken in a different order differ by ~1e-6 relative; 1e-5 on attention outputs
(the issue's bound), 1e-4 nats on losses of size ~1-15, 1e-3 on logits (as tests/core/test_gguf_reference.py).
"""

import json
from pathlib import Path

import numpy as np
import pytest

from app.core import gguf_llama, scaling
from app.core.frequencies import inverse_frequencies
from app.trained import gguf_file as model_file
from tests.smollm import gguf_path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests" / "reference" / "model" / "reference.json").read_text())
DATA = ROOT / "app" / "data" / "smollm2-135m" / "long-context"
N = 1024


@pytest.fixture(scope="module")
def model():
    return model_file.load_gguf(gguf_path())


@pytest.fixture(scope="module")
def ids():
    # the first 1,024 tokens of the shipped natural text (the run's own input)
    return np.load(DATA / "python-docs.npz")["token_ids"][:N].astype(np.int64)


@pytest.fixture(scope="module")
def plain(model, ids):
    """One unblocked pass (one block of all T queries) keeping q, k and the hidden states."""
    return gguf_llama.forward(model, ids, keep_qk=True, block=None)


def dense_attention(qr, kr, v, scale):
    H, T, d = qr.shape
    g = H // kr.shape[0]
    k = np.repeat(kr, g, axis=0)
    vv = np.repeat(v, g, axis=0)
    s = (qr.astype(np.float64) @ k.transpose(0, 2, 1).astype(np.float64)) * scale
    s += np.triu(np.full((T, T), -np.inf), 1)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return (p @ vv.astype(np.float64)).transpose(1, 0, 2).reshape(T, H * d)


def log_softmax_loss(logits, ids):
    lg = logits.astype(np.float64)
    m = lg.max(axis=-1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(lg - m).sum(axis=-1))
    return lse[:-1] - lg[np.arange(len(ids) - 1), ids[1:]]


@pytest.mark.parametrize("layer", [0, 17])
def test_blocked_attention_equals_dense_attention_on_1024_real_tokens(model, ids, plain, layer):
    cfg = model.config
    L = model.layers[layer]
    prev = plain["hidden"][layer - 1] if layer else np.asarray(model.embed[ids], dtype=np.float32)
    h = prev / np.sqrt(np.mean(prev * prev, axis=-1, keepdims=True) + cfg.rms_eps) * L["attn_norm"]
    v = np.ascontiguousarray((h @ L["attn_v"].T).reshape(N, cfg.n_kv_head, cfg.head_dim).transpose(1, 0, 2))
    inv = inverse_frequencies(cfg.head_dim, cfg.rope_base)
    qr = gguf_llama.rope_adjacent(plain["q"][layer], inv)
    kr = gguf_llama.rope_adjacent(plain["k"][layer], inv)
    scale = 1.0 / np.sqrt(cfg.head_dim)
    want = dense_attention(qr, kr, v, scale)
    for block in (None, 512, 100, 1):  # one block, a divisor of T, a short last block, one query at a time
        got = gguf_llama.causal_attention(qr, kr, v, scale, block)
        assert got.dtype == np.float32 and got.shape == (N, cfg.n_head * cfg.head_dim)
        assert np.abs(got - want).max() <= 1e-5, block


def test_none_on_1024_tokens_equals_the_plain_unblocked_pass(model, ids, plain):
    """The long-context loss (attention in blocks of 100 queries, head in chunks of 300 positions, the
    registry's default inv_freq) equals the log-softmax of the unblocked pass's full logits."""
    inv, attention = scaling.compute(scaling.RopeConfig(rope_theta=model.config.rope_base, head_dim=model.config.head_dim))
    assert attention == 1.0
    assert np.array_equal(inv, inverse_frequencies(model.config.head_dim, model.config.rope_base))
    logits = gguf_llama._rms(plain["hidden"][-1], model.out_norm, model.config.rms_eps) @ model.out_head.T
    want = log_softmax_loss(logits, ids)
    got = gguf_llama.next_token_loss(model, ids, inv_freq=inv, attention_factor=attention, block=100, chunk=300)
    assert got.shape == (N - 1,) and np.all(np.isfinite(got))
    assert np.abs(got - want).max() <= 1e-4


@pytest.mark.parametrize("case", REFERENCE["prompts"], ids=[p["text"] for p in REFERENCE["prompts"]])
def test_blocked_pass_gives_the_reference_logits(model, case):
    """transformers' logits (the reference's top 10 per position) from a pass in blocks of 3 queries,
    and the chunked loss equal to the log-softmax of those logits."""
    logits = gguf_llama.forward(model, case["ids"], keep_qk=False, block=3)["logits"]
    ours = np.take_along_axis(logits, np.array(case["top_ids"]), axis=1)
    assert np.abs(ours - np.array(case["top_logits"])).max() <= 1e-3
    ids = np.array(case["ids"])
    loss = gguf_llama.next_token_loss(model, ids, block=3, chunk=2)
    assert np.abs(loss - log_softmax_loss(logits, ids)).max() <= 1e-4


def test_attention_factor_multiplies_rotated_scores_by_its_square():
    """cos and sin times f (transformers' attention_scaling) = q.k times f^2; rotation checked against
    complex multiplication by exp(i * t * theta)."""
    rng = np.random.default_rng(0)
    T, d = 40, 8
    q = rng.standard_normal((T, d)).astype(np.float32)
    k = rng.standard_normal((T, d)).astype(np.float32)
    inv = inverse_frequencies(d, 100_000.0) / 2
    f = 1.0693147180559945
    c, s = gguf_llama.rope_angles(inv, np.arange(T), f)
    qr, kr = gguf_llama.rotate_adjacent(q, c, s), gguf_llama.rotate_adjacent(k, c, s)
    turn = np.exp(1j * np.arange(T)[:, None] * inv[None, :])
    qc = (q[:, 0::2] + 1j * q[:, 1::2]) * turn * f
    assert np.allclose(qr[:, 0::2] + 1j * qr[:, 1::2], qc, atol=1e-5)
    kc = (k[:, 0::2] + 1j * k[:, 1::2]) * turn
    plain_scores = (qc / f) @ kc.conj().T
    assert np.allclose(qr @ kr.T, f * f * plain_scores.real, atol=1e-4)


def test_shipped_curves_are_finite_and_binned_as_declared():
    meta = json.loads((DATA / "meta.json").read_text())
    assert meta["trained_length"] == 8192 and meta["length"] >= 2 * 8192
    assert {t["id"] for t in meta["texts"]} >= {"copy", "python-docs"}
    for text in meta["texts"]:
        data = np.load(DATA / f"{text['id']}.npz")
        ids, edges = data["token_ids"], data["bin_edges"]
        assert len(ids) == meta["length"] == text["n_tokens"]
        assert edges[0] == 0 and edges[-1] == len(ids) - 1 and np.all(np.diff(edges) >= 1) and np.all(np.diff(edges) <= 256)
        for name in meta["methods"]:
            curve = data[f"loss_{name}"]
            assert curve.shape == (len(edges) - 1,) and np.all(np.isfinite(curve)) and np.all(curve > 0), (text["id"], name)
    copy = np.load(DATA / "copy.npz")["token_ids"]
    half = len(copy) // 2
    assert np.array_equal(copy[:half], copy[half:])
    assert meta["methods"]["yarn"]["attention_factor"] == pytest.approx(0.1 * np.log(2) + 1)
    # resolved by the registry: s = 2, NTK's base b * 2^(64/62), dynamic's at 16,384 with alpha = 2*2 - 1 = 3
    assert meta["methods"]["ntk"]["base"] == pytest.approx(100_000 * 2 ** (64 / 62), rel=1e-12)
    assert meta["methods"]["dynamic"]["base"] == pytest.approx(100_000 * 3 ** (64 / 62), rel=1e-12)
    controls = np.load(DATA / "copy.npz")
    assert np.all(2 * controls["control_halves"] <= meta["trained_length"])
    assert np.all(np.isfinite(controls["control_repeat_loss"])) and np.all(controls["control_repeat_loss"] > 0)

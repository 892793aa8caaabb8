"""app.core.heads against independent formulations (complex rotation, explicit loops)."""

import numpy as np

from app.core import heads, scaling
from app.core.frequencies import inverse_frequencies
from app.core.gguf_llama import rope_adjacent


def _complex_rope(x, inv_freq):
    z = x[:, 0::2] + 1j * x[:, 1::2]
    T = x.shape[0]
    z = z * np.exp(1j * np.arange(T)[:, None] * inv_freq[None, :])
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def test_rope_adjacent_is_a_complex_rotation_of_adjacent_pairs():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((12, 64)).astype(np.float32)
    inv = inverse_frequencies(64, 100000.0)
    assert np.allclose(rope_adjacent(x, inv), _complex_rope(x.astype(np.float64), inv), atol=1e-5)
    assert np.isclose(inv[1], 100000.0 ** (-2 / 64))


def test_attention_is_causal_softmax_and_energy_matches_loop():
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((2, 9, 8))
    inv = inverse_frequencies(8, 10000.0)
    w = heads.attention(q, k, inv)
    qr, kr = _complex_rope(q, inv), _complex_rope(k, inv)
    for m in range(9):
        s = np.array([qr[m] @ kr[n] / np.sqrt(8) for n in range(m + 1)])
        e = np.exp(s - s.max())
        assert np.allclose(w[m, : m + 1], e / e.sum(), atol=1e-5)
        assert np.all(w[m, m + 1 :] == 0)
    e = heads.pair_energy(q, k)
    want = [np.mean([np.linalg.norm(q[t, 2 * j : 2 * j + 2]) * np.linalg.norm(k[t, 2 * j : 2 * j + 2]) for t in range(9)]) for j in range(4)]
    assert np.allclose(e, want)


def test_previous_token_pattern_is_classified_and_js_is_zero_on_itself():
    T = 6
    w = np.zeros((T, T))
    w[0, 0] = 1
    for m in range(1, T):
        w[m, m - 1] = 1
    assert heads.classify(w) == "previous-token"
    w2 = np.tri(T) / np.arange(1, T + 1)[:, None]
    assert np.allclose(heads.js_divergence(w, w), 0)
    assert 0 < heads.js_divergence(w, w2).mean() <= np.log(2)


def test_surgery_default_config_keeps_the_pattern_and_band_unrotated_zeroes_frequencies():
    rng = np.random.default_rng(3)
    _q, _k = rng.standard_normal((2, 10, 64))
    base = inverse_frequencies(64, 100000.0)
    cfg = scaling.RopeConfig(rope_theta=100000.0, head_dim=64)
    inv, att, keep = heads.surgery_inv_freq(base, cfg, None, "unrotated", 10)
    assert np.allclose(inv, base) and att == 1.0 and keep.all()
    inv, _, _ = heads.surgery_inv_freq(base, None, (0, 3), "unrotated", 10)
    assert np.all(inv[:4] == 0) and np.allclose(inv[4:], base[4:])
    _, _, keep = heads.surgery_inv_freq(base, None, (30, 31), "dropped", 10)
    assert keep.sum() == 30

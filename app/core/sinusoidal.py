"""Fixed sinusoidal absolute position encodings in the three layouts libraries use.

* ``interleaved`` (Vaswani et al. 2017 §3.5; DistilBERT/XLM): column 2i = sin(p·w_i),
  column 2i+1 = cos(p·w_i), w_i = base^(−2i/d), i = 0 … ceil(d/2)−1.
* ``concatenated`` (Marian, RoFormer): the same frequencies, all ceil(d/2) sines then the
  floor(d/2) cosines.
* ``tensor2tensor`` (``get_timing_signal_1d``; Whisper, fairseq): K = d//2 timescales spread
  geometrically from 1 to ``base``, w_i = exp(−i·ln(base)/max(K−1, 1)), sines then cosines,
  and one zero column when d is odd.  The last frequency is exactly 1/base, unlike Vaswani's
  base^(−(d−2)/d).
"""

from __future__ import annotations

import numpy as np

from app.core.frequencies import inverse_frequencies

LAYOUTS: tuple[str, ...] = ("interleaved", "concatenated", "tensor2tensor")


def sinusoid_frequencies(dim: int, base: float, layout: str) -> np.ndarray:
    """Angular frequencies w_i per position.  Shape ``(ceil(d/2),)`` for the Vaswani layouts,
    ``(d//2,)`` for tensor2tensor."""
    if layout in ("interleaved", "concatenated"):
        return inverse_frequencies(dim, base, count=(dim + 1) // 2)
    if layout == "tensor2tensor":
        count = dim // 2
        increment = np.log(float(base)) / max(count - 1, 1)
        return np.exp(-increment * np.arange(count, dtype=np.float64))
    raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")


def sinusoidal_table(positions: np.ndarray, dim: int, base: float, layout: str) -> np.ndarray:
    """PE[p, :] for each position.  positions ``(P,)`` → ``(P, dim)`` float64."""
    positions = np.asarray(positions, dtype=np.float64)
    freq = sinusoid_frequencies(dim, base, layout)
    phase = np.multiply.outer(positions, freq)
    table = np.zeros((len(positions), dim))
    if layout == "interleaved":
        table[:, 0::2] = np.sin(phase)
        table[:, 1::2] = np.cos(phase[:, : dim // 2])
    elif layout == "concatenated":
        sines = len(freq)
        table[:, :sines] = np.sin(phase)
        table[:, sines:] = np.cos(phase[:, : dim // 2])
    else:
        count = len(freq)
        table[:, :count] = np.sin(phase)
        table[:, count : 2 * count] = np.cos(phase)
    return table


def column_labels(dim: int, layout: str) -> list[str]:
    """What each column holds, e.g. ``"sin w3"``; length ``dim``."""
    if layout == "interleaved":
        return [f"{'sin' if c % 2 == 0 else 'cos'} w{c // 2}" for c in range(dim)]
    sines = (dim + 1) // 2 if layout == "concatenated" else dim // 2
    cosines = dim // 2
    labels = [f"sin w{i}" for i in range(sines)] + [f"cos w{i}" for i in range(cosines)]
    return labels + ["zero"] * (dim - len(labels))

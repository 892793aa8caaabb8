"""The RoPE inverse-frequency ladder, its wavelengths and angles.

Source: Su et al. 2021 (RoFormer, eq. 15) and Hugging Face transformers
``modeling_rope_utils._compute_default_rope_parameters``:
``inv_freq = 1 / base ** (arange(0, r, 2) / r)`` with ``r`` the rotary dimension.
"""

from __future__ import annotations

import numpy as np


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """Number of rotated dimensions ``r = int(head_dim * partial_rotary_factor)``.

    Hugging Face truncates with ``int()`` (GPT-NeoX ``rotary_pct``, Phi ``partial_rotary_factor``).
    Raises ``ValueError`` when ``r`` is odd or below 2, since pairs cannot be formed.
    """
    r = int(head_dim * partial_rotary_factor)
    if r < 2 or r % 2:
        raise ValueError(
            f"rotary dimension int({head_dim} * {partial_rotary_factor}) = {r} must be even and at least 2"
        )
    return r


def inverse_frequencies(rotary_dim: int, base: float) -> np.ndarray:
    """θ_j = base^(-2j/r) for j = 0 .. r/2-1.

    Shape: ``(r/2,)`` float64.  The exponent divides by the rotary dimension ``r``, not the
    head dimension (HF ``_compute_default_rope_parameters``).  θ_0 = 1 for every base.
    """
    j = np.arange(rotary_dim // 2, dtype=np.float64)
    return 1.0 / np.power(float(base), 2.0 * j / rotary_dim)


def wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    """λ_j = 2π/θ_j: the number of positions pair j needs for one full turn.  Shape of input."""
    return 2.0 * np.pi / np.asarray(inv_freq, dtype=np.float64)


def angles(positions: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """φ[p, j] = positions[p] · θ_j, in radians.  Shape ``(P, r/2)``."""
    return np.multiply.outer(np.asarray(positions, dtype=np.float64), np.asarray(inv_freq, dtype=np.float64))


def turns_within(length: float, inv_freq: np.ndarray) -> np.ndarray:
    """How many full turns pair j makes over ``length`` positions: length·θ_j / 2π.  Shape ``(r/2,)``."""
    return float(length) * np.asarray(inv_freq, dtype=np.float64) / (2.0 * np.pi)

"""The RoPE inverse-frequency ladder, its wavelengths and angles: the one home of θ_j = b^(−2j/r).

Source: Su et al. 2021 (RoFormer, eq. 15) and Hugging Face transformers
``modeling_rope_utils._compute_default_rope_parameters``:
``inv_freq = 1 / base ** (arange(0, r, 2) / r)`` with ``r`` the rotary dimension.  Every ladder of
the app (RoPE and its scaling methods, the Vaswani sinusoid, Transformer-XL's relative sinusoid,
the GGUF model's rotation, the Men et al. search over many bases) is :func:`inverse_frequencies`.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np
import numpy.typing as npt


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """Number of rotated dimensions ``r = int(head_dim * partial_rotary_factor)``.

    Hugging Face truncates with ``int()`` (GPT-NeoX ``rotary_pct``, Phi ``partial_rotary_factor``).
    Raises ``ValueError`` (:func:`rotary_dim_problem`) when ``r`` is odd or below 2.
    """
    problem = rotary_dim_problem(head_dim, partial_rotary_factor)
    if problem:
        raise ValueError(problem)
    return int(head_dim * partial_rotary_factor)


def rotary_dim_problem(head_dim: int, partial_rotary_factor: float) -> str | None:
    """The rule on r = int(head_dim · partial_rotary_factor): pairs need r even and at least 2.
    Returns the one sentence that says it is broken, or None."""
    r = int(head_dim * partial_rotary_factor)
    if r >= 2 and r % 2 == 0:
        return None
    return f"rotary dimension int({head_dim} × {partial_rotary_factor:g}) = {r} must be even and at least 2"


def inverse_frequencies(
    rotary_dim: int, base: float | np.ndarray, count: int | None = None, divisors: npt.ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """θ_j = 1 / (divisor_j · b^(2j/r)) for j = 0 … count−1 (count = r/2 unless given).

    Without ``divisors`` this is the RoPE ladder θ_j = b^(−2j/r): the exponent divides by the rotary
    dimension ``r``, not the head dimension (HF ``_compute_default_rope_parameters``), and θ_0 = 1
    for every base.  ``divisors`` ``(count,)``: LongRoPE's per-pair factors, which HF applies inside
    the reciprocal (``1 / (ext_factors * base ** (arange(0, r, 2) / r))``).  ``count``: the Vaswani
    sinusoid of odd width d takes ceil(d/2) frequencies with r = d.

    ``base`` a number → shape ``(count,)``; an array of G bases → ``(G, count)``, row g equal bit
    for bit to the ladder of ``base[g]`` alone.  Float64, computed as 1/b^(2j/r) like the reference
    (float32 there: cast the result to float32 for identical bits).
    """
    pairs = rotary_dim // 2 if count is None else count
    exponent = 2.0 * np.arange(pairs, dtype=np.float64) / rotary_dim
    if np.ndim(base):
        powers = np.power(np.asarray(base, dtype=np.float64)[:, None], exponent[None, :])
    else:
        powers = np.power(float(base), exponent)
    if divisors is not None:
        powers = np.asarray(divisors, dtype=np.float64) * powers
    return 1.0 / powers


@overload
def pair_with_turns(turns: float, length: float, rotary_dim: int, base: float) -> float: ...
@overload
def pair_with_turns(turns: float, length: np.ndarray, rotary_dim: int, base: float) -> npt.NDArray[np.float64]: ...
def pair_with_turns(turns: float, length: float | np.ndarray, rotary_dim: int, base: float) -> float | npt.NDArray[np.float64]:
    """The fractional pair index j at which θ_j = b^(−2j/r) makes ``turns`` full turns over ``length``
    tokens: j = r·ln(length/(2π·turns)) / (2·ln b).

    With ``turns`` = 1 it is the pair whose wavelength 2π/θ_j is ``length`` (the critical pair of a
    training length, a wavelength axis read as pair indices); with ``turns`` = β and the training
    length it is YaRN's ``find_correction_dim`` (HF ``_compute_yarn_parameters``).  ``length`` a
    number → a float computed as HF does (``math.log``); an array → the same shape (``np.log``).
    """
    if np.ndim(length):
        return (rotary_dim * np.log(length / (turns * 2 * math.pi))) / (2 * math.log(base))
    return (rotary_dim * math.log(length / (turns * 2 * math.pi))) / (2 * math.log(base))


@overload
def wavelengths(inv_freq: float) -> float: ...
@overload
def wavelengths(inv_freq: np.ndarray) -> npt.NDArray[np.float64]: ...
def wavelengths(inv_freq: float | np.ndarray) -> float | npt.NDArray[np.float64]:
    """λ_j = 2π/θ_j: the number of positions pair j needs for one full turn.  Shape of input (a
    number → a float64 scalar).

    A θ so small that 2π/θ exceeds float64 (a subnormal θ) gives inf: it never turns (JSON null)."""
    with np.errstate(over="ignore", divide="ignore"):
        return 2.0 * np.pi / np.asarray(inv_freq, dtype=np.float64)


def angles(positions: npt.ArrayLike, inv_freq: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """φ[p, j] = positions[p] · θ_j, in radians.  Shape ``(P, r/2)``."""
    return np.multiply.outer(np.asarray(positions, dtype=np.float64), np.asarray(inv_freq, dtype=np.float64))


def turns_within(length: float, inv_freq: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """How many full turns pair j makes over ``length`` positions: length·θ_j / 2π.  Shape ``(r/2,)``."""
    return float(length) * np.asarray(inv_freq, dtype=np.float64) / (2.0 * np.pi)

"""RoPE in the plane (d = 2): one frequency θ, vectors given by length and angle.

R_m is the counter-clockwise rotation by m·θ (Su et al. 2021, RoFormer eq. 13); the rotation itself
is :func:`app.core.rope.rotate` with ``inv_freq = [θ]``.  For the additive alternative the position
vector is the d = 2 row of the sinusoidal table in the Vaswani (interleaved) layout with the same
frequency: p_m = (sin mθ, cos mθ) (Vaswani et al. 2017, §3.5; at θ = 1 it is exactly their d = 2 row,
whose only frequency is base⁰ = 1).
"""

from __future__ import annotations

import numpy as np


def polar(length: float, degrees: float) -> np.ndarray:
    """The vector (length·cos α, length·sin α) for α in degrees.  Shape ``(2,)``."""
    alpha = np.radians(float(degrees))
    return float(length) * np.array([np.cos(alpha), np.sin(alpha)])


def direction_degrees(vectors: np.ndarray) -> np.ndarray:
    """Direction of each 2-D vector, atan2(y, x) in degrees in [0, 360).  ``(..., 2)`` → ``(...)``."""
    vectors = np.asarray(vectors, dtype=np.float64)
    return np.remainder(np.degrees(np.arctan2(vectors[..., 1], vectors[..., 0])), 360.0)


def signed_angle_degrees(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Angle that turns u onto v, counter-clockwise positive, in degrees in (−180, 180].

    atan2(u × v, u · v) for ``(..., 2)`` inputs; its absolute value is the (unsigned) angle between them.
    """
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    cross = u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]
    dot = u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1]
    angle = np.degrees(np.arctan2(cross, dot))
    return np.where(angle <= -180.0, angle + 360.0, angle)


def additive_positions(positions: np.ndarray, theta: float) -> np.ndarray:
    """p_m = (sin mθ, cos mθ) for each position: the d = 2 sinusoidal vector.  Shape ``(P, 2)``."""
    phi = np.asarray(positions, dtype=np.float64) * float(theta)
    return np.stack([np.sin(phi), np.cos(phi)], axis=-1)

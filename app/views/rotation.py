"""Rotation in the plane (d = 2): the score of a rotated pair depends only on the offset n − m."""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from app.core.plane import additive_positions, direction_degrees, polar, signed_angle_degrees
from app.core.rope import rotate
from app.views.rope_api import rotate_vectors
from app.web.answers import Answer, Echo, Floats, Ints, doc
from app.web.params import UI, Params
from app.web.views import View, register

TAU = 2.0 * math.pi
MAX_POSITION = 500
MIN_CURVE_POSITIONS = 48


class RotationParams(Params):
    q_angle: Annotated[
        float,
        Field(ge=-360, le=360, allow_inf_nan=False, description="Direction of q before rotation, in degrees counter-clockwise from the x axis."),
        UI("Angle of q", unit="degrees", step=1),
    ] = 20.0
    q_len: Annotated[
        float,
        Field(gt=0, le=3, allow_inf_nan=False, description="Length ‖q‖ of the query vector."),
        UI("Length of q", step=0.05),
    ] = 1.0
    k_angle: Annotated[
        float,
        Field(ge=-360, le=360, allow_inf_nan=False, description="Direction of k before rotation, in degrees counter-clockwise from the x axis."),
        UI("Angle of k", unit="degrees", step=1),
    ] = 70.0
    k_len: Annotated[
        float,
        Field(gt=0, le=3, allow_inf_nan=False, description="Length ‖k‖ of the key vector."),
        UI("Length of k", step=0.05),
    ] = 0.8
    m: Annotated[int, Field(ge=0, le=MAX_POSITION, description="Position m of the query."), UI("Query position m")] = 1
    n: Annotated[int, Field(ge=0, le=MAX_POSITION, description="Position n of the key."), UI("Key position n")] = 3
    theta: Annotated[
        float,
        Field(ge=0, le=TAU, allow_inf_nan=False, description="Frequency θ in radians per token (default π/6)."),
        UI("Frequency θ", unit="rad per token", step=0.001, help="π/6 = 0.5236 rad (30°) per token."),
    ] = math.pi / 6
    shift: Annotated[
        int,
        Field(ge=0, le=MAX_POSITION, description="Shift k added to both positions in the right-hand panel."),
        UI("Shift both by k", help="Right panel: positions m + k and n + k."),
    ] = 4


def _panel(q: np.ndarray, k: np.ndarray, m: int, n: int, theta: float) -> dict[str, Any]:
    inv_freq = np.array([theta])
    q_rot = rotate(q, np.array([m]), inv_freq, "interleaved")[0]
    k_rot = rotate(k, np.array([n]), inv_freq, "interleaved")[0]
    dot = float(q_rot @ k_rot)
    angle = float(signed_angle_degrees(q_rot, k_rot))
    return {
        "m": m,
        "n": n,
        "q_rot": q_rot,
        "k_rot": k_rot,
        "q_direction": float(direction_degrees(q_rot)),
        "k_direction": float(direction_degrees(k_rot)),
        "angle": angle,
        "angle_between": abs(angle),
        "dot": dot,
        "score": dot / math.sqrt(2.0),
    }


def _wrapped_degrees(angle: float) -> float:
    """The angle brought into (−180°, 180°], from the typed degrees (no detour through vectors)."""
    angle = math.fmod(angle, 360.0)
    if angle > 180.0:
        angle -= 360.0
    elif angle <= -180.0:
        angle += 360.0
    return angle


class PlanePanel(Answer):
    """The query and key rotated to one pair of positions (m, n)."""

    m: int
    n: int
    q_rot: Floats = doc("The query rotated by m·θ, as (x, y).")
    k_rot: Floats = doc("The key rotated by n·θ, as (x, y).")
    q_direction: float = doc("Direction of q_rot, in degrees.")
    k_direction: float = doc("Direction of k_rot, in degrees.")
    angle: float = doc("Angle from q_rot to k_rot, in degrees.")
    angle_between: float = doc("Unsigned angle between them, in degrees.")
    dot: float = doc("q_rot · k_rot.")
    score: float = doc("The attention score of this pair of positions.")


class PlaneNorms(Answer):
    """Vector lengths: given, rotated, and with an additive position vector instead."""

    q: float
    q_rot: float
    q_add: float
    k: float
    k_rot: float
    k_add: float


class PlaneNormCurve(Answer):
    """Query length against position, rotated and with an additive encoding."""

    positions: Ints
    rotated: Floats
    additive: Floats


class PlaneShiftCurve(Answer):
    """The score when both positions move by the same shift."""

    shift: Ints
    rope: Floats
    additive: Floats


class PlaneAnswer(Answer, echoes=RotationParams):
    """One 2-D pair of RoPE: a query and a key rotated to their positions, and what a shift changes."""

    q_angle: Echo
    q_len: Echo
    k_angle: Echo
    k_len: Echo
    m: Echo
    n: Echo
    theta: Echo
    shift: Echo
    theta_degrees: float = doc("θ in degrees per position.")
    offset: int = doc("n − m.")
    original_angle: float = doc("Angle from q to k before rotation, in degrees.")
    gap_turn_degrees: float = doc("How far (n − m)·θ turns the key relative to the query, in degrees.")
    q: Floats = doc("The query (x, y).")
    k: Floats = doc("The key (x, y).")
    panels: list[PlanePanel] = doc("At (m, n), then at (m + shift, n + shift).")
    score_change: float = doc("Score difference between the two panels (0 for RoPE, to rounding).")
    angle_change: float = doc("Angle difference between the two panels.")
    norms: PlaneNorms
    norm_curve: PlaneNormCurve
    shift_curve: PlaneShiftCurve


def compute_rotation(params: RotationParams) -> dict[str, Any]:
    q = polar(params.q_len, params.q_angle)
    k = polar(params.k_len, params.k_angle)
    theta = params.theta
    inv_freq = np.array([theta])
    left = _panel(q, k, params.m, params.n, theta)
    right = _panel(q, k, params.m + params.shift, params.n + params.shift, theta)

    count = max(MIN_CURVE_POSITIONS, params.m + params.shift + 1, params.n + params.shift + 1)
    positions = np.arange(count)
    p = additive_positions(positions, theta)
    rotated_q = rotate(q, positions, inv_freq, "interleaved")
    norm_rotated = np.linalg.norm(rotated_q, axis=1)
    norm_additive = np.linalg.norm(q + p, axis=1)

    shifts = np.arange(max(24, params.shift) + 1)
    rope_q = rotate(q, params.m + shifts, inv_freq, "interleaved")
    rope_k = rotate(k, params.n + shifts, inv_freq, "interleaved")
    add_q = q + additive_positions(params.m + shifts, theta)
    add_k = k + additive_positions(params.n + shifts, theta)
    p_m = additive_positions(np.array([params.m]), theta)[0]
    p_n = additive_positions(np.array([params.n]), theta)[0]
    offset = params.n - params.m
    return {
        **params.model_dump(),
        "theta_degrees": math.degrees(theta),
        "offset": offset,
        # The first panel's angle is the angle from q to k plus the gap's turn (n − m)·θ, wrapped.
        "original_angle": _wrapped_degrees(params.k_angle - params.q_angle),
        "gap_turn_degrees": math.degrees(offset * theta),
        "q": q,
        "k": k,
        "panels": [left, right],
        "score_change": right["score"] - left["score"],
        "angle_change": right["angle"] - left["angle"],
        "norms": {
            "q": float(np.linalg.norm(q)),
            "q_rot": float(np.linalg.norm(left["q_rot"])),
            "q_add": float(np.linalg.norm(q + p_m)),
            "k": float(np.linalg.norm(k)),
            "k_rot": float(np.linalg.norm(left["k_rot"])),
            "k_add": float(np.linalg.norm(k + p_n)),
        },
        "norm_curve": {"positions": positions, "rotated": norm_rotated, "additive": norm_additive},
        "shift_curve": {
            "shift": shifts,
            "rope": np.sum(rope_q * rope_k, axis=1) / math.sqrt(2.0),
            "additive": np.sum(add_q * add_k, axis=1) / math.sqrt(2.0),
        },
    }


def rotation_csv(data: dict[str, Any]):
    header = ["panel", "m", "n", "q_rot_x", "q_rot_y", "k_rot_x", "k_rot_y", "angle_deg", "dot", "score"]
    rows = []
    for label, panel in zip(("left", "right (shifted)"), data["panels"], strict=True):
        rows.append(
            [label, panel["m"], panel["n"], *np.asarray(panel["q_rot"]).tolist(), *np.asarray(panel["k_rot"]).tolist(), panel["angle"], panel["dot"], panel["score"]]
        )
    return header, rows


# The lecture's example (θ = π/6, the default): positions 2, 5 and 7, 10; q and k 30° apart, so the
# rotated pairs are 30° + 3·30° = 120° apart in both panels.  A preset is just this address.
PRESETS = (
    ("Lecture example: θ = π/6, positions 2, 5 and 7, 10 (120° in both)", "q_angle=0&k_angle=30&k_len=1&m=2&n=5&shift=5"),
    ("Worked example: θ = 1, q = k = (1, 0), positions 0, 2 and 5, 7 (score cos 2 / √2)", "q_angle=0&k_angle=0&k_len=1&m=0&n=2&theta=1&shift=5"),
)

register(
    View(
        name="rotation",
        title="Rotation in the plane",
        short_title="Rotation",
        summary="Turn q and k by angles proportional to their positions: the score only sees the gap.",
        section="Rotary",
        order=30,
        api_path="/api/rope/plane",
        answer=PlaneAnswer,
        routes=(rotate_vectors,),
        params=RotationParams,
        compute=compute_rotation,
        formulas=(
            r"R_m = \begin{bmatrix} \cos m\theta & -\sin m\theta \\ \sin m\theta & \cos m\theta \end{bmatrix}",
            r"R_m^\top R_n = R_{n-m}",
            r"s_{mn} = \frac{\langle R_m q,\, R_n k \rangle}{\sqrt{2}} = \frac{q^\top R_{n-m}\, k}{\sqrt{2}}",
            r"\|R_m q\| = \|q\| \quad\text{but}\quad \|q + p_m\| \text{ varies},\ p_m = (\sin m\theta,\, \cos m\theta)",
        ),
        csv=rotation_csv,
        api_description=(
            "RoPE with one frequency θ in the plane (d = 2).  For the panel at positions (m, n) and the panel "
            "shifted to (m + shift, n + shift): the rotated vectors R_m q and R_n k, their directions, the signed "
            "angle from R_m q to R_n k (degrees, counter-clockwise positive), the inner product `dot` and the "
            "score `dot/√2`.  `norms` compares ‖R_m q‖ with the additive alternative ‖q + p_m‖, p_m = "
            "(sin mθ, cos mθ); `norm_curve` gives both for positions 0 … P−1 and `shift_curve` the two scores "
            "for every shift 0 … K."
        ),
        examples=PRESETS[0][1:] + ("theta=1&m=0&n=2&q_angle=0&k_angle=0&k_len=1",),
    )
)

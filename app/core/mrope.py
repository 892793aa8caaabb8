"""Multimodal RoPE (M-RoPE): a position is a (t, h, w) triple and each rotary pair follows one axis.

Qwen2-VL (Wang et al. 2024) and its successors give every token three position indices, temporal
t, height h and width w, and rotate pair j of a head by ``pos[axis(j)] · θ_j`` with the usual
ladder θ_j = base^(−2j/d).  Text tokens carry t = h = w, so for text alone M-RoPE is plain RoPE.

Which axis a pair follows (the rotate-half pairing, j and j + d/2, as in Hugging Face's Qwen code):

* ``sections`` (Qwen2-VL, Qwen2.5-VL; ``apply_multimodal_rotary_pos_emb``): ``mrope_section`` =
  [s_t, s_h, s_w] with s_t + s_h + s_w = d/2; pairs 0 … s_t − 1 follow t, the next s_h follow h,
  the last s_w follow w ([16, 24, 24] for d = 128).  The fastest pairs go to time, the slowest to
  width.
* ``interleaved`` (Qwen3-VL; ``Qwen3VLTextRotaryEmbedding.recomposition_frequencies``): every pair
  starts on t; pairs 1, 4, 7, … below 3·s_h follow h and pairs 2, 5, 8, … below 3·s_w follow w
  ([24, 20, 20] for d = 128: t h w t h w … then t for the last four), so each axis gets fast and
  slow pairs alike.

Position ids of a sequence [text_before tokens][vision grid T × H × W][text_after tokens]
(transformers 5.24 ``Qwen2VLModel.get_rope_index`` / ``get_vision_position_ids``, spatial sizes
after the 2 × 2 merge): text tokens get t = h = w = 0, 1, …; the vision block starts at
s = text_before, its patch (f, r, c) gets (s + f, s + r, s + c) in frame-major, row-major order
(time_interval 1, as Qwen2-VL; Qwen2.5-VL scales t by seconds per frame); the text after it
continues at s + max(H, W).  (transformers 4.x continued at the largest id so far plus one,
s + max(T, H, W); the two differ only for a video with more frames than rows and columns.)
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import numpy.typing as npt

from app.core import rope
from app.core.rules import sentence

AXES = ("t", "h", "w")
LAYOUTS = ("sections", "interleaved")


def pair_axes(head_dim: int, mrope_section: tuple[int, ...], layout: str = "sections") -> np.ndarray:
    """The axis (0 = t, 1 = h, 2 = w) of each rotary pair.  Shape ``(d/2,)`` int64.

    Raises ``ValueError`` unless ``mrope_section`` has three non-negative entries summing to d/2.
    """
    half = head_dim // 2
    if head_dim % 2 or head_dim < 2:
        raise ValueError(f"head_dim must be even and at least 2 (got {head_dim})")
    if len(mrope_section) != 3 or min(mrope_section) < 0:
        raise ValueError(f"mrope_section must be three non-negative counts (pairs per axis t, h, w), got {list(mrope_section)}")
    check_section_sum(head_dim, mrope_section)
    if layout == "sections":
        return np.repeat(np.arange(3), mrope_section)
    if layout == "interleaved":
        axes = np.zeros(half, dtype=np.int64)
        for axis, offset in ((1, 1), (2, 2)):
            axes[offset : 3 * mrope_section[axis] : 3] = axis
        return axes
    raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")


# The rule's one sentence (app.core.rules): the M-RoPE page shows it, config reading raises it.
SECTION_SUM = (
    "mrope_section must add up to head_dim/2 = {half} (one count per axis for every rotary pair); "
    "its counts add up to {total}"
)


def check_section_sum(head_dim: int, mrope_section: tuple[int, ...]) -> None:
    """Raise ``ValueError`` with :data:`SECTION_SUM` unless the counts add up to head_dim/2."""
    if sum(mrope_section) != head_dim // 2:
        raise ValueError(sentence(SECTION_SUM, half=head_dim // 2, total=sum(mrope_section)))


def pair_angles(positions: np.ndarray, axes: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """φ[n, j] = positions[n, axes[j]] · θ_j.  positions ``(N, 3)`` (t, h, w) → ``(N, d/2)``."""
    positions = np.asarray(positions, dtype=np.float64)
    return positions[:, np.asarray(axes)] * np.asarray(inv_freq, dtype=np.float64)[None, :]


def rotate_half_by(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotate pair (j, j + d/2) of each row by angles[n, j]: x·cos(cat(φ, φ)) + rotate_half(x)·sin(cat(φ, φ)).

    x ``(N, d)`` or ``(d,)`` (the same vector for every row); angles ``(N, d/2)`` → ``(N, d)``.
    """
    angles = np.asarray(angles, dtype=np.float64)
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), (len(angles), 2 * angles.shape[1]))
    half = angles.shape[1]
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[:, :half], x[:, half:]
    return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=1)


class SequencePositions(TypedDict):
    """What :func:`sequence_positions` returns (N tokens)."""

    positions: npt.NDArray[np.int64]  # (N, 3): t, h, w
    kind: npt.NDArray[np.int64]  # (N,): 0 text, 1 vision
    frame: npt.NDArray[np.int64]  # (N,), −1 for text
    row: npt.NDArray[np.int64]
    col: npt.NDArray[np.int64]
    vision_start: int
    next_position: int


def sequence_positions(text_before: int, grid: tuple[int, int, int], text_after: int) -> SequencePositions:
    """(t, h, w) of every token of [text][vision grid (T, H, W)][text], as get_rope_index assigns them.

    Returns ``positions`` ``(N, 3)`` int64, ``kind`` ``(N,)`` (0 text, 1 vision), ``frame``,
    ``row``, ``col`` ``(N,)`` (−1 for text), ``vision_start`` (= text_before) and ``next_position``
    (the index the next token would get).
    """
    frames, rows, cols = grid
    start = text_before
    before = np.repeat(np.arange(text_before)[:, None], 3, axis=1)
    f, r, c = np.meshgrid(np.arange(frames), np.arange(rows), np.arange(cols), indexing="ij")
    vision = np.stack([f.ravel(), r.ravel(), c.ravel()], axis=1) + start
    resume = start + max(rows, cols)
    after = np.repeat((resume + np.arange(text_after))[:, None], 3, axis=1)
    count = frames * rows * cols
    minus = -np.ones(text_before + text_after, dtype=np.int64)
    return {
        "positions": np.concatenate([before, vision, after]).astype(np.int64),
        "kind": np.concatenate([np.zeros(text_before), np.ones(count), np.zeros(text_after)]).astype(np.int64),
        "frame": np.concatenate([minus[:text_before], f.ravel(), minus[text_before:]]),
        "row": np.concatenate([minus[:text_before], r.ravel(), minus[text_before:]]),
        "col": np.concatenate([minus[:text_before], c.ravel(), minus[text_before:]]),
        "vision_start": start,
        "next_position": resume + text_after,
    }


def ones_score(query: np.ndarray, keys: np.ndarray, axes: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """Score ⟨R(query) 1, R(key) 1⟩ / √d for all-ones q = k, per key.

    Each pair (1, 1) contributes 2·cos(Δ_axis(j) · θ_j), with Δ = key − query on that pair's axis, so
    the score depends on the positions only through the per-axis offsets (Δt, Δh, Δw).
    query ``(3,)``, keys ``(K, 3)`` → ``(K,)``.
    """
    delta = np.asarray(keys, dtype=np.float64) - np.asarray(query, dtype=np.float64)[None, :]
    return rope.ones_score(pair_angles(delta, axes, inv_freq))

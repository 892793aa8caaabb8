"""M-RoPE against the reference data produced by transformers 5.24 (Qwen2-VL get_rope_index, the
Qwen2-VL and Qwen3-VL rotary modules) and against an independent complex-number formulation."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.mrope import ones_score, pair_angles, pair_axes, rotate_half_by, sequence_positions
from tests.reference_data import cases

INDEX_CASES = [c for c in cases("mrope") if c["kind"] == "rope_index"]
ROTARY_CASES = [c for c in cases("mrope") if c["kind"] == "rotary"]


@pytest.mark.parametrize("case", INDEX_CASES, ids=[c["id"] for c in INDEX_CASES])
def test_position_ids_match_get_rope_index(case):
    t, h, w = case["grid_thw_merged"]
    got = sequence_positions(case["text_before"], (t, h, w), case["text_after"])
    np.testing.assert_array_equal(got["positions"].T, np.array(case["position_ids"]))
    n = len(got["positions"])
    assert got["positions"].max() + 1 - n == case["rope_delta"]


def test_image_after_text_gets_the_documented_triples():
    """Text 0 … 2, then a 2 × 3 image: t = 3 for every patch, h = 3 + row, w = 3 + column, then 6, 7."""
    got = sequence_positions(3, (1, 2, 3), 2)
    assert got["positions"].tolist() == [
        [0, 0, 0], [1, 1, 1], [2, 2, 2],
        [3, 3, 3], [3, 3, 4], [3, 3, 5], [3, 4, 3], [3, 4, 4], [3, 4, 5],
        [6, 6, 6], [7, 7, 7],
    ]
    assert got["next_position"] == 8 and got["vision_start"] == 3
    assert got["row"].tolist() == [-1, -1, -1, 0, 0, 0, 1, 1, 1, -1, -1]


def independent_axes(head_dim, section, layout):
    """Pair j's axis written out directly from the two layouts' descriptions."""
    half = head_dim // 2
    if layout == "sections":
        axes = []
        for axis, count in enumerate(section):
            axes += [axis] * count
        return axes
    axes = []
    for j in range(half):
        if j % 3 == 1 and j < 3 * section[1]:
            axes.append(1)
        elif j % 3 == 2 and j < 3 * section[2]:
            axes.append(2)
        else:
            axes.append(0)
    return axes


@pytest.mark.parametrize("case", ROTARY_CASES, ids=[c["id"] for c in ROTARY_CASES])
def test_rotation_matches_the_qwen_rotary_modules(case):
    d, section = case["head_dim"], tuple(case["mrope_section"])
    layout = "sections" if case["model"] == "qwen2_vl" else "interleaved"
    axes = pair_axes(d, section, layout)
    assert axes.tolist() == independent_axes(d, section, layout)
    inv_freq = inverse_frequencies(d, case["base"])
    np.testing.assert_allclose(inv_freq, case["inv_freq"], rtol=5e-7)
    positions = np.array(case["positions"])
    angles = pair_angles(positions, axes, inv_freq)
    both = lambda a: np.concatenate([a, a], axis=1)  # cat(φ, φ), rotate-half layout
    # The module multiplies in float32: the same product in float32 gives its cos/sin to float32 accuracy.
    angles32 = (positions[:, axes].astype(np.float32) * np.array(case["inv_freq"], dtype=np.float32)).astype(np.float64)
    np.testing.assert_allclose(np.cos(both(angles32)), case["cos"], atol=2e-7)
    np.testing.assert_allclose(np.sin(both(angles32)), case["sin"], atol=2e-7)
    # Exact (float64) angles agree as far as float32 positions allow: closely for small positions.
    small = positions.max(axis=1) <= 64
    np.testing.assert_allclose(np.cos(both(angles))[small], np.array(case["cos"])[small], atol=2e-6)
    # The rotation convention: our rotate-half with the module's own angles gives its q_rot and k_rot.
    library = np.arctan2(np.array(case["sin"]), np.array(case["cos"]))[:, : d // 2]
    np.testing.assert_allclose(rotate_half_by(np.array(case["q"]), library), case["q_rot"], atol=2e-6)
    np.testing.assert_allclose(rotate_half_by(np.array(case["k"]), library), case["k_rot"], atol=2e-6)


def test_qwen3_default_section_interleaves():
    axes = pair_axes(128, (24, 20, 20), "interleaved")
    assert "".join("thw"[a] for a in axes[:9]) == "thwthwthw"
    assert axes[57:].tolist() == [0, 1, 2, 0, 0, 0, 0]  # after pair 59 only t is left
    assert np.bincount(axes).tolist() == [24, 20, 20]
    sections = pair_axes(128, (16, 24, 24), "sections")
    assert np.bincount(sections).tolist() == [16, 24, 24] and sections[15] == 0 and sections[16] == 1 and sections[40] == 2


def test_bad_sections_raise():
    with pytest.raises(ValueError):
        pair_axes(128, (16, 24, 25))
    with pytest.raises(ValueError):
        pair_axes(128, (16, 48))
    with pytest.raises(ValueError):
        pair_axes(8, (2, 1, 1), "diagonal")


def test_rotate_half_against_complex_numbers():
    rng = np.random.default_rng(5)
    d = 12
    x = rng.standard_normal(d)
    angles = rng.uniform(-10, 10, (4, d // 2))
    got = rotate_half_by(x, angles)
    z = (x[: d // 2] + 1j * x[d // 2 :])[None, :] * np.exp(1j * angles)
    np.testing.assert_allclose(got, np.concatenate([z.real, z.imag], axis=1), atol=1e-14)


def test_ones_score_depends_on_the_per_axis_offsets_only():
    d = 16
    axes = pair_axes(d, (2, 3, 3))
    inv_freq = inverse_frequencies(d, 10000.0)
    ones = np.ones(d)

    def explicit(a, b):
        qa = rotate_half_by(ones, pair_angles(np.array([a]), axes, inv_freq))[0]
        kb = rotate_half_by(ones, pair_angles(np.array([b]), axes, inv_freq))[0]
        return float(qa @ kb) / np.sqrt(d)

    a, b = np.array([3, 5, 9]), np.array([3, 7, 4])
    got = ones_score(a, b[None, :], axes, inv_freq)[0]
    assert got == pytest.approx(explicit(a, b), abs=1e-12)
    shift = np.array([10, -2, 31])
    assert ones_score(a + shift, (b + shift)[None, :], axes, inv_freq)[0] == pytest.approx(got, abs=1e-12)
    # text tokens (t = h = w) are scored exactly as plain RoPE scores them
    text = ones_score(np.array([4, 4, 4]), np.array([[9, 9, 9]]), axes, inv_freq)[0]
    plain = 2 * np.cos(5 * inv_freq).sum() / np.sqrt(d)
    assert text == pytest.approx(plain, abs=1e-12)

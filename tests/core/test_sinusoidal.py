"""Sinusoidal tables against DistilBERT, Marian and Whisper (tensor2tensor spacing) outputs."""

import math

import numpy as np
import pytest

from app.core.sinusoidal import column_labels, sinusoid_frequencies, sinusoidal_table
from tests.reference_data import cases

LAYOUT_OF = {"distilbert": "interleaved", "marian": "concatenated", "whisper": "tensor2tensor"}


@pytest.mark.parametrize("case", [c for c in cases("sinusoidal") if "error" not in c], ids=lambda c: c["id"])
def test_matches_reference_library(case):
    layout = LAYOUT_OF[case["reference_name"]]
    table = sinusoidal_table(np.arange(case["length"]), case["dim"], 10000.0, layout)
    # The references compute in float32 (Whisper forms p·w in float32), so allow a few float32
    # ulps of the angle p·w, which grows with the position p; a layout or spacing mistake is O(1).
    position = np.arange(case["length"])[:, None]
    tolerance = 2e-6 + position * 2.0**-22
    assert np.all(np.abs(table - np.array(case["table"])) <= tolerance)


def test_vaswani_interleaved_by_hand():
    d = 4
    table = sinusoidal_table([3], d, 10000.0, "interleaved")[0]
    w1 = 10000.0 ** (-2 / 4)
    np.testing.assert_allclose(table, [math.sin(3), math.cos(3), math.sin(3 * w1), math.cos(3 * w1)], rtol=1e-15)


def test_odd_dimension_layouts():
    table = sinusoidal_table([2], 5, 10000.0, "interleaved")[0]
    w = [10000.0 ** (-2 * i / 5) for i in range(3)]
    np.testing.assert_allclose(table, [math.sin(2 * w[0]), math.cos(2 * w[0]), math.sin(2 * w[1]), math.cos(2 * w[1]), math.sin(2 * w[2])])
    table = sinusoidal_table([2], 5, 10000.0, "concatenated")[0]
    np.testing.assert_allclose(table, [math.sin(2 * w[0]), math.sin(2 * w[1]), math.sin(2 * w[2]), math.cos(2 * w[0]), math.cos(2 * w[1])])
    table = sinusoidal_table([2], 5, 10000.0, "tensor2tensor")[0]
    assert table[-1] == 0.0  # zero padding column
    assert column_labels(5, "tensor2tensor")[-1] == "zero"


def test_tensor2tensor_timescales_span_one_to_base():
    w = sinusoid_frequencies(8, 10000.0, "tensor2tensor")
    assert w[0] == 1.0
    assert w[-1] == pytest.approx(1e-4, rel=1e-12)  # exactly 1/base, unlike Vaswani's 1e-3 at d = 8
    assert sinusoid_frequencies(8, 10000.0, "interleaved")[-1] == pytest.approx(1e-3, rel=1e-12)
    # d = 2: max(K-1, 1) keeps tensor2tensor defined where Whisper divides by zero
    assert sinusoid_frequencies(2, 10000.0, "tensor2tensor").tolist() == [1.0]


def test_positions_can_start_anywhere():
    shifted = sinusoidal_table(np.arange(1000, 1010), 16, 10000.0, "concatenated")
    direct = sinusoidal_table(np.arange(1010), 16, 10000.0, "concatenated")[1000:]
    np.testing.assert_array_equal(shifted, direct)

"""Calculator numbers against direct formulas and a brute-force check of the Men et al. criterion."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from app.core.calculator import dynamic_ntk_base, first_negative, llama3_band_counts, men_base_bound

DATA = json.loads((Path(__file__).parents[1] / "reference" / "data" / "rope_init.json").read_text())


def margin_direct(base, d, m):
    """B_m = Σ_i cos(m b^(−2i/d)), one cosine per term."""
    return sum(math.cos(m * base ** (-2 * i / d)) for i in range(d // 2))


@pytest.mark.parametrize("d, length", [(64, 1024), (128, 2048), (128, 4096)])
def test_men_bound_is_tight(d, length):
    result = men_base_bound(d, length)
    b = result["base"]
    thetas = b ** (-np.arange(0, d, 2) / d)
    B = np.cos(np.outer(np.arange(length), thetas)).sum(axis=1)
    assert B.min() >= 0  # the criterion holds at the bound …
    below = b / (1 + 2e-4)
    m = result["first_negative_below"]
    assert m is not None and m < length
    assert margin_direct(below, d, m) < 0 or margin_direct(b / (1 + 1e-4), d, m) < 0  # … and fails just below


def test_first_negative_matches_direct_sum():
    for base in (3000.0, 2e4, 1e5):
        m = first_negative(base, 64, 20000)
        assert margin_direct(base, 64, m) < 0
        B = np.array([margin_direct(base, 64, k) for k in range(m)])
        assert (B >= 0).all()


def test_dynamic_base_matches_transformers():
    cases = [c for c in DATA["cases"] if c["rope_type"] == "dynamic" and "error" not in c and "partial_rotary_factor" not in c["config"]["rope_parameters"]]
    assert len(cases) > 100
    for case in cases:
        d = case["config"]["head_dim"]
        params = case["config"]["rope_parameters"]
        base = dynamic_ntk_base(params["rope_theta"], params["factor"], d, case["seq_len"] or 0, case["config"]["max_position_embeddings"])
        # inv_freq[1] = b'^(−2/d), so b' = inv_freq[1]^(−d/2)
        assert base == pytest.approx(case["inv_freq"][1] ** (-d / 2), rel=5e-5)


def test_llama3_band_counts():
    bands = llama3_band_counts(128, 5e5, 8192, 1.0, 4.0)
    assert (bands["kept"], bands["smoothed"], bands["divided"]) == (29, 6, 29)
    assert (bands["high_freq_wavelen"], bands["low_freq_wavelen"]) == (2048.0, 8192.0)

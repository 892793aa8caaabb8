"""Issue 38 on the pages: /spectrum names the model's pairing (with /conventions) and draws its
query scale; /heads offers no text the server refuses and says where dynamic surgery acts."""

import math

import pytest

from tests.browser.helpers import plot_data, wait_for_plot

pytestmark = pytest.mark.browser

MINISTRAL = (
    "/spectrum?head_dim=128&base=1000000&rope_type=yarn&factor=16&original_max_position_embeddings=16384"
    "&max_position_embeddings=262144&mscale=1&mscale_all_dim=1&pairing=half&query_scale_beta=0.1"
    "&query_scale_interval=16384&query_scale_offset=0&seq_len=262144"
)


def test_spectrum_shows_pairing_and_the_query_scale(page, base_url):
    page.goto(base_url + MINISTRAL)
    wait_for_plot(page, "plot-query-scale")
    assert page.locator('[data-out="pairing"]').inner_text().startswith("half")
    assert page.locator('dt a[href="/conventions"]').count() == 1
    assert "plain 1/√d" in page.locator('[data-out="softmax"]').inner_text()
    steps = plot_data(page, "plot-query-scale")[0]
    # modeling_ministral3.py _get_llama_4_attn_scale: 1 + beta * log(1 + floor(pos / 16384)).
    for x, y in zip(steps["x"], steps["y"], strict=True):
        assert y == pytest.approx(1 + 0.1 * math.log(1 + math.floor(x / 16384)), rel=1e-12)
    assert steps["y"][-1] == pytest.approx(1 + 0.1 * math.log(16), rel=1e-12)
    page.goto(base_url + "/spectrum?pairing=interleaved")
    wait_for_plot(page, "plot-query-scale")
    assert page.locator('[data-out="pairing"]').inner_text().startswith("interleaved")
    flat = plot_data(page, "plot-query-scale")[0]["y"]
    assert len(flat) >= 2 and all(y == 1 for y in flat)


def test_heads_offers_no_custom_text_without_the_model_and_explains_dynamic_surgery(page, base_url):
    page.goto(f"{base_url}/heads?text=long-256&layer=3&head=1&surgery_rope_type=dynamic")
    wait_for_plot(page, "plot-surgery")
    options = page.locator('select[data-param="text"] option').all_inner_texts()
    assert "custom" not in options and "long-256" in options
    assert "8,192" in page.locator('[data-out="surgery_note"]').inner_text()
    layers = page.locator('select[data-param="layer"] option').all_inner_texts()
    assert layers[:3] == ["0", "1", "2"]

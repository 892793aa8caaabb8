"""/heads in a real browser: the model's pattern with tokens on the axes, surgery beside it, URL state."""

import pytest

from tests.browser.helpers import plot_data, snapshot, wait_for_data_change, wait_for_plot, wait_for_query

pytestmark = pytest.mark.browser


def test_pattern_has_tokens_and_surgery_redraws_and_reload_restores(page, base_url):
    page.goto(f"{base_url}/heads?text=dog-bites-man&layer=1&head=2")
    wait_for_plot(page, "plot-pattern")
    heat = plot_data(page, "plot-pattern")[0]
    assert heat["type"] == "heatmap"
    assert list(heat["x"]) == [0, 1, 2]
    # Three tokens fit: every one is labelled, "index token" (the token's leading space trimmed).
    ticks = page.evaluate("() => document.getElementById('plot-pattern')._fullLayout.yaxis.ticktext")
    assert ticks == ["0 dog", "1 bites", "2 man"]
    assert page.locator('[data-out="divergence"]').inner_text() == "0"
    before = snapshot(page, "plot-surgery")

    page.select_option('[data-param="band_mode"]', "dropped")
    page.locator('[data-param="band_lo"][data-role="box"]').fill("0")
    page.locator('[data-param="band_lo"][data-role="box"]').press("Enter")
    wait_for_query(page, "band_lo=0")
    wait_for_data_change(page, "plot-surgery", before)
    assert float(page.locator('[data-out="divergence"]').inner_text()) > 0
    after = snapshot(page, "plot-surgery")

    page.reload()
    wait_for_plot(page, "plot-surgery")
    assert snapshot(page, "plot-surgery") == after

"""The foundation's pages: sliders move the plot and the URL; the URL restores the view."""

from tests.browser.helpers import (
    nudge_slider,
    plot_data,
    set_box,
    snapshot,
    wait_for_data,
    wait_for_data_change,
    wait_for_plot,
    wait_for_query,
)


def test_ladder_slider_updates_plot_and_url_and_reload_restores(page, base_url):
    page.goto(f"{base_url}/ladder")
    wait_for_plot(page, "plot-frequency")
    before = snapshot(page, "plot-frequency")
    assert len(plot_data(page, "plot-frequency")[0]["x"]) == 32
    nudge_slider(page, "head_dim", times=2)
    wait_for_query(page, "head_dim=68")
    wait_for_data_change(page, "plot-frequency", before)
    # Two steps send two answers (66, then 68): wait for the second one's 34 pairs, not the first change.
    page.wait_for_function("() => { const t = (document.getElementById('plot-frequency').data || [])[0]; return t && t.x.length === 34; }")
    after = plot_data(page, "plot-frequency")
    assert len(after[0]["x"]) == 34
    assert page.locator('[data-param="head_dim"][data-role="box"]').input_value() == "68"
    assert page.locator('[data-out="rotary_dim"]').inner_text().startswith("68 of 68")
    twin = page.locator('[data-role="json-twin"]').get_attribute("href")
    assert twin == "/api/rope/frequencies?head_dim=68"

    page.reload()
    wait_for_plot(page, "plot-frequency")
    assert plot_data(page, "plot-frequency") == after
    assert page.locator('[data-param="head_dim"][data-role="box"]').input_value() == "68"


def test_ladder_log_slider_for_base_and_back_button(page, base_url):
    page.goto(f"{base_url}/ladder")
    wait_for_plot(page, "plot-frequency")
    first = snapshot(page, "plot-frequency")
    set_box(page, "base", "500000")
    wait_for_query(page, "base=500000")
    wait_for_data_change(page, "plot-frequency", first)
    assert abs(plot_data(page, "plot-frequency")[0]["y"][-1] / 500000 ** (-62 / 64) - 1) < 1e-14
    page.go_back()
    page.wait_for_function("() => !window.location.search.includes('base=')")
    wait_for_data(page, "plot-frequency", first)  # Back redraws exactly the first view
    page.go_forward()
    wait_for_query(page, "base=500000")
    wait_for_data_change(page, "plot-frequency", first)


def test_bad_value_shows_message_beside_control_and_keeps_plot(page, base_url):
    page.watch.expect_status(422)
    page.goto(f"{base_url}/ladder")
    wait_for_plot(page, "plot-frequency")
    before = snapshot(page, "plot-frequency")
    set_box(page, "head_dim", "7")
    error = page.locator("#err-head_dim")
    error.wait_for(state="visible")
    assert "multiple of 2" in error.inner_text()
    assert snapshot(page, "plot-frequency") == before
    set_box(page, "head_dim", "8")
    page.wait_for_function("() => document.getElementById('err-head_dim').textContent === ''")


def test_bad_url_shows_message_and_draws_defaults(page, base_url):
    page.watch.expect_status(422)
    response = page.goto(f"{base_url}/ladder?head_dim=abc")
    assert response.status == 422
    wait_for_plot(page, "plot-frequency")
    assert "valid integer" in page.locator("#err-head_dim").inner_text()
    assert len(plot_data(page, "plot-frequency")[0]["x"]) == 32


def test_sinusoidal_layout_switch_and_curve_view(page, base_url):
    page.goto(f"{base_url}/sinusoidal")
    wait_for_plot(page, "plot")
    heat_snapshot = snapshot(page, "plot")
    heat = plot_data(page, "plot")
    assert heat[0]["type"] == "heatmap" and len(heat[0]["z"]) == 100 and len(heat[0]["z"][0]) == 64
    page.select_option('[data-param="layout"]', "concatenated")
    wait_for_query(page, "layout=concatenated")
    wait_for_data_change(page, "plot", heat_snapshot)
    concat = plot_data(page, "plot")
    import math

    assert abs(concat[0]["z"][3][32] - math.cos(3)) < 1e-12  # column 32 = cos w0 when d = 64

    page.select_option('[data-param="plot"]', "curves")
    wait_for_query(page, "plot=curves")
    page.wait_for_function("() => (window.plotShown?.(document.getElementById('plot'))?.traces[0].type || 'scatter') === 'scatter'")
    curves = snapshot(page, "plot")
    assert len(plot_data(page, "plot")) == 4
    nudge_slider(page, "seq_len", times=1)
    wait_for_query(page, "seq_len=101")
    wait_for_data_change(page, "plot", curves)
    assert len(plot_data(page, "plot")[0]["x"]) == 101

    page.reload()
    wait_for_plot(page, "plot")
    restored = plot_data(page, "plot")
    assert len(restored) == 4 and len(restored[0]["x"]) == 101
    assert page.locator('[data-param="layout"]').input_value() == "concatenated"

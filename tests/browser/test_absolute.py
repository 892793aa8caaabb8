"""The absolute-encodings page in a real browser: a slider and a box change plots and URL; reload restores."""

from tests.browser.helpers import (
    nudge_slider,
    plot_data,
    set_box,
    snapshot,
    wait_for_data_change,
    wait_for_plot,
    wait_for_query,
)


def test_positions_and_max_len_update_plots_and_url(page, base_url):
    page.goto(f"{base_url}/absolute")
    wait_for_plot(page, "plot-table")
    first = snapshot(page, "plot-table")
    assert len(plot_data(page, "plot-table")[0]["z"]) == 48

    nudge_slider(page, "seq_len")
    wait_for_query(page, "seq_len=49")
    wait_for_data_change(page, "plot-table", first)
    assert len(plot_data(page, "plot-table")[0]["z"]) == 49

    learned_before = snapshot(page, "plot-learned")
    set_box(page, "max_len", "20")
    wait_for_query(page, "max_len=20")
    wait_for_data_change(page, "plot-learned", learned_before)
    assert len(plot_data(page, "plot-learned")[0]["z"]) == 20
    assert "29 of the 49 positions (from 20) have none" in page.locator('[data-out="learned"]').inner_text()
    norms = plot_data(page, "plot-norms")
    assert norms[1]["y"][19] is not None and norms[1]["y"][20:] == [None] * 29

    state = {plot: snapshot(page, plot) for plot in ("plot-table", "plot-similarity", "plot-shift", "plot-learned", "plot-norms")}
    page.reload()
    wait_for_plot(page, "plot-norms")
    assert {plot: snapshot(page, plot) for plot in state} == state
    assert page.locator('[data-param="max_len"][data-role="box"]').input_value() == "20"

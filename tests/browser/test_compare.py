"""The comparison page in a real browser: the offset range and ALiBi heads change plots and URL."""

from tests.browser.helpers import plot_data, set_box, snapshot, wait_for_data_change, wait_for_plot, wait_for_query


def test_offset_range_updates_every_panel_and_reload_restores(page, base_url):
    page.goto(f"{base_url}/compare")
    wait_for_plot(page, "plot-offsets")
    first = snapshot(page, "plot-offsets")
    rope = plot_data(page, "plot-offsets")[0]
    assert rope["x"][0] == -128 and rope["x"][-1] == 128 and max(rope["y"]) == 8

    set_box(page, "max_offset", "300")
    wait_for_query(page, "max_offset=300")
    wait_for_data_change(page, "plot-offsets", first)
    rope = plot_data(page, "plot-offsets")[0]
    assert len(rope["x"]) == 601 and rope["x"][0] == -300

    heat_before = snapshot(page, "plot-heatmaps")
    set_box(page, "head", "3")
    wait_for_query(page, "head=3")
    wait_for_data_change(page, "plot-heatmaps", heat_before)
    alibi = plot_data(page, "plot-heatmaps")[3]["z"]
    assert alibi[2][0] == -2 * 2.0**-4 and alibi[0][2] is None

    state = {p: snapshot(page, p) for p in ("plot-offsets", "plot-heatmaps")}
    page.reload()
    wait_for_plot(page, "plot-heatmaps")
    assert {p: snapshot(page, p) for p in state} == state
    assert page.locator('[data-param="max_offset"][data-role="box"]').input_value() == "300"

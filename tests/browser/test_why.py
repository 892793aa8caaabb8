"""The "Why position?" page in a real browser: typing a sentence updates plots and URL, reload restores."""

from tests.browser.helpers import plot_data, set_box, snapshot, wait_for_data_change, wait_for_plot, wait_for_query


def test_sentence_changes_plots_and_url_and_reload_restores(page, base_url):
    page.goto(f"{base_url}/why")
    wait_for_plot(page, "plot-none")
    first = snapshot(page, "plot-none")
    bars = plot_data(page, "plot-none")
    assert [t["type"] for t in bars] == ["bar", "bar", "bar"]
    assert bars[0]["y"] == bars[1]["y"] and set(bars[2]["y"]) == {0}  # identical outputs, zero difference
    assert page.locator('[data-out="none_diff"]').inner_text().startswith("exactly 0")

    set_box(page, "sentence", "the cat saw the dog")
    wait_for_query(page, "sentence=the+cat+saw+the+dog")
    wait_for_data_change(page, "plot-none", first)
    after = {plot: snapshot(page, plot) for plot in ("plot-none", "plot-with", "plot-scores")}
    drawn = plot_data(page, "plot-none")
    assert drawn[0]["y"] == drawn[1]["y"] and set(drawn[2]["y"]) == {0}
    assert "“the” at 0, 3: equal" in page.locator('[data-out="repeats"]').inner_text()
    assert page.locator('[data-out="word"]').inner_text().startswith("#1 “cat”")
    with_position = plot_data(page, "plot-with")
    assert with_position[0]["y"] != with_position[1]["y"]

    page.select_option('[data-param="position"]', "rope")
    wait_for_query(page, "position=rope")
    wait_for_data_change(page, "plot-with", after["plot-with"])
    after["plot-with"] = snapshot(page, "plot-with")
    after["plot-scores"] = snapshot(page, "plot-scores")

    page.reload()
    wait_for_plot(page, "plot-with")
    assert {plot: snapshot(page, plot) for plot in after} == after
    assert page.locator('[data-param="sentence"][data-role="box"]').input_value() == "the cat saw the dog"
    assert page.locator('[data-param="position"]').input_value() == "rope"


def test_too_long_sentence_is_refused_beside_the_control(page, base_url):
    page.watch.expect_status(422)
    page.goto(f"{base_url}/why")
    wait_for_plot(page, "plot-none")
    before = snapshot(page, "plot-none")
    set_box(page, "sentence", " ".join(f"w{i}" for i in range(13)))
    error = page.locator("#err-sentence")
    error.wait_for(state="visible")
    assert "13 words" in error.inner_text() and "at most 12" in error.inner_text()
    assert snapshot(page, "plot-none") == before  # the last good plot stays

"""The relative-encodings page in a real browser: head count and T5 direction change plots and URL."""

from tests.browser.helpers import plot_data, set_box, snapshot, wait_for_data_change, wait_for_plot, wait_for_query


def test_heads_and_direction_update_plots_and_url(page, base_url):
    page.goto(f"{base_url}/relative")
    wait_for_plot(page, "plot-alibi-slopes")
    first = snapshot(page, "plot-alibi-slopes")
    assert plot_data(page, "plot-alibi-slopes")[0]["y"] == [2.0**-h for h in range(1, 9)]

    set_box(page, "num_heads", "12")
    wait_for_query(page, "num_heads=12")
    wait_for_data_change(page, "plot-alibi-slopes", first)
    slopes = plot_data(page, "plot-alibi-slopes")[0]["y"]
    assert slopes == [2.0**-h for h in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]

    buckets_before = snapshot(page, "plot-t5-buckets")
    page.locator('[data-param="bidirectional"]').uncheck()
    wait_for_query(page, "bidirectional=false")
    wait_for_data_change(page, "plot-t5-buckets", buckets_before)
    buckets = plot_data(page, "plot-t5-buckets")[0]
    after_query = dict(zip(buckets["x"], buckets["y"], strict=True))
    assert after_query[5] == 0 and after_query[-5] == 5 and after_query[-20] == 17

    state = {p: snapshot(page, p) for p in ("plot-shaw", "plot-t5-buckets", "plot-t5-bias", "plot-alibi-slopes", "plot-alibi-bias")}
    page.reload()
    wait_for_plot(page, "plot-alibi-bias")
    assert {p: snapshot(page, p) for p in state} == state
    assert not page.locator('[data-param="bidirectional"]').is_checked()

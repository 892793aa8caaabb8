"""/mrope in a real browser: the section split, the patch triples, the layout switch."""

from tests.browser.helpers import plot_data, snapshot, wait_for_data_change, wait_for_plot, wait_for_query


def test_sections_triples_and_interleaving(page, base_url):
    page.goto(f"{base_url}/mrope?head_dim=128&base=1000000")  # Qwen2-VL's head: sections 16, 24, 24
    wait_for_plot(page, "plot-ladder")
    t, h, w = plot_data(page, "plot-ladder")
    assert (t["x"], h["x"], w["x"]) == (list(range(16)), list(range(16, 40)), list(range(40, 64)))
    wait_for_plot(page, "plot-patches")  # below the first screen: drawn when it comes into view
    patches = page.evaluate("() => window.plotShown?.(document.getElementById('plot-patches'))?.traces[0].text")
    assert patches[0][0] == "(4, 4, 4)" and patches[3][5] == "(4, 7, 9)"
    sequence = plot_data(page, "plot-sequence")
    assert sequence[0]["y"][:6] == [0, 1, 2, 3, 4, 4] and sequence[0]["y"][28] == 10  # text resumes at 4 + max(4, 6)
    assert page.locator('[data-table="tokens"] tr').count() == 32

    before = snapshot(page, "plot-ladder")
    page.locator('select[data-param="layout"]').select_option("interleaved")
    wait_for_query(page, "layout=interleaved")
    wait_for_data_change(page, "plot-ladder", before)
    t, h, w = plot_data(page, "plot-ladder")
    assert h["x"][:3] == [1, 4, 7] and w["x"][:3] == [2, 5, 8]
    assert len(t["x"]) + len(h["x"]) + len(w["x"]) == 64


def test_every_patch_is_drawn_whole_on_a_phone(browser, base_url):
    # The grid's first and last columns are whole cells, not halves cut at the plot's edge.
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{base_url}/mrope")
        page.locator("#plot-patches").scroll_into_view_if_needed()
        wait_for_plot(page, "plot-patches")
        low, high = page.evaluate("() => document.getElementById('plot-patches')._fullLayout.xaxis.range")
        columns = page.evaluate("() => window.plotShown?.(document.getElementById('plot-patches'))?.traces[0].x")
        assert low <= columns[0] - 0.5 + 1e-9 and high >= columns[-1] + 0.5 - 1e-9
    finally:
        context.close()

"""/transformer-xl in a real browser: the four terms and their structure, and the sizes from the URL."""

import math
import re

from tests.browser.helpers import plot_data, set_box, snapshot, wait_for_data_change, wait_for_plot, wait_for_query


def test_terms_follow_the_layout_and_update(page, base_url):
    page.goto(f"{base_url}/transformer-xl")
    wait_for_plot(page, "plot-terms")
    a, _b, c, d = plot_data(page, "plot-terms")
    assert a["y"] == list(range(16, 24)) and a["x"] == list(range(24))
    # (c) constant down each column, (d) constant along each diagonal; later keys blank
    for j in range(17):
        column = [row[j] for row in c["z"]]
        assert all(value == column[0] for value in column)
    for row in range(7):
        for j in range(16):
            assert d["z"][row][j] == d["z"][row + 1][j + 1]
    assert d["z"][0][17] is None and math.isfinite(d["z"][0][16])

    before = snapshot(page, "plot-terms")
    set_box(page, "key_len", "12")
    wait_for_query(page, "key_len=12")
    wait_for_data_change(page, "plot-terms", before)
    a = plot_data(page, "plot-terms")[0]
    assert a["y"] == list(range(4, 12)) and len(a["x"]) == 12
    r = plot_data(page, "plot-r")[0]
    assert r["z"][0][:16] == [0.0] * 16 and r["z"][0][16:] == [1.0] * 16  # R_0 = [sin 0…, cos 0…]


def test_score_hover_prints_positions_as_integers(page, base_url):
    page.goto(f"{base_url}/transformer-xl")
    wait_for_plot(page, "plot-sum")
    box = page.locator("#plot-sum").bounding_box()
    tip = page.locator("#plot-sum .plot-tip")
    for fx in (0.45, 0.5, 0.55):  # the centre of the plot lies on a cell, whatever the margins
        page.mouse.move(box["x"] + box["width"] * fx, box["y"] + box["height"] * 0.5)
        if tip.count() and tip.is_visible():
            break
    text = tip.inner_text()
    assert re.search(r"query i = \d+, key j = \d+\n", text), text  # not "21.0000"
    assert re.search(r"i − j = −?\d+\n", text), text

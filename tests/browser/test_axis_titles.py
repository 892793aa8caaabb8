"""A heatmap's axis titles after a slider move: beside the tick labels the move brought, not where
the first draw left them, and where a fresh load of the new address puts them.

The titles of a heatmap mark are HTML placed after each Plotly draw (static/js/lib/marks/heatmap.js);
these tests read only boxes on screen: every text of the plot's SVG and HTML, by its words.
"""

import pytest

from tests.browser.helpers import set_box, settle

pytestmark = pytest.mark.browser

# The boxes (relative to the plot) of the plot's axis titles, found by their words, and of its y
# tick labels.
BOXES_JS = """([id, words]) => {
    const gd = document.getElementById(id);
    const origin = gd.getBoundingClientRect();
    const rel = (r) => ({left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top});
    const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && !el.closest('[hidden]'); };
    const texts = [...gd.querySelectorAll('svg text, span')].filter((el) => shown(el) && !el.querySelector('span'));
    const titles = {};
    for (const word of words) {
        const found = texts.filter((el) => el.textContent.trim() === word);
        titles[word] = found.map((el) => rel(el.getBoundingClientRect()));
    }
    const labels = [...gd.querySelectorAll('.main-svg g.ytick > text')].filter(shown).map((el) => ({text: el.textContent, ...rel(el.getBoundingClientRect())}));
    return {titles, labels};
}"""

X_TITLE, Y_TITLE = "key position n", "query position m"


def boxes(page):
    return page.evaluate(BOXES_JS, ["plot-scores", [X_TITLE, Y_TITLE]])


@pytest.mark.parametrize("seq_len", ["512", "9"])
def test_score_axis_titles_follow_the_tick_labels_a_move_brings(tabs, base_url, seq_len):
    """/scores at its default 64 positions, then 512 (labels as wide as "500") or 9 (one digit):
    each axis title is shown once, clear of every y tick label, and within a pixel of where a
    fresh load of the new address shows it."""
    moved, fresh = tabs
    moved.goto(f"{base_url}/scores")
    settle(moved)
    set_box(moved, "seq_len", seq_len)
    moved.wait_for_function("(n) => new URLSearchParams(location.search).get('seq_len') === n", arg=seq_len)
    settle(moved)
    after = boxes(moved)
    fresh.goto(moved.url)
    settle(fresh)
    loaded = boxes(fresh)
    for word in (X_TITLE, Y_TITLE):
        assert len(after["titles"][word]) == 1, (word, after["titles"][word])
        assert len(loaded["titles"][word]) == 1, (word, loaded["titles"][word])
        a, b = after["titles"][word][0], loaded["titles"][word][0]
        assert all(abs(a[side] - b[side]) <= 1 for side in ("left", "top", "right", "bottom")), (word, a, b)
    y_title = after["titles"][Y_TITLE][0]
    assert after["labels"], "no y tick labels"
    for label in after["labels"]:
        assert y_title["right"] <= label["left"], (label, y_title)
    x_title = after["titles"][X_TITLE][0]
    assert x_title["bottom"] <= moved.evaluate("() => document.getElementById('plot-scores').clientHeight") + 1

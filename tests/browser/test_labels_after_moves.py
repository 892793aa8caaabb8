"""Words drawn over a plot (labels.js) after a slider move: the same words at the same places as a
fresh load of the new address shows them.

A cheap update places the labels as soon as it has set its axes, before Plotly draws the moved
points in the next frame (static/js/lib/paint.js); a fresh load places them after a whole draw.
Reading only what is on screen (each label's words and box), the two must agree.
"""

import pytest

from tests.browser.helpers import nudge_slider, settle

pytestmark = pytest.mark.browser

LABEL_BOXES_JS = """(id) => {
    const gd = document.getElementById(id);
    const origin = gd.getBoundingClientRect();
    return [...gd.querySelectorAll(':scope > .plot-labels > span')].filter((el) => !el.hidden).map((el) => {
        const r = el.getBoundingClientRect();
        return {text: el.textContent, left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top};
    });
}"""

# (page, slider moved, plot whose labels are compared): pages whose first sliders move labelled
# points, axes or both.
CASES = [
    ("/clock", "head_dim", "plot-clock"),
    ("/offsets", "head_dim", "plot-offsets"),
    ("/compare", "max_offset", "plot-offsets"),
    ("/rotation", "q_angle", "plot-planes"),
    ("/transformer-xl", "query_len", "plot-terms"),
]


@pytest.mark.parametrize(("path", "param", "plot_id"), CASES)
def test_labels_after_a_move_are_where_a_fresh_load_puts_them(tabs, base_url, path, param, plot_id):
    moved, fresh = tabs
    moved.goto(f"{base_url}{path}")
    settle(moved)
    before = moved.evaluate(LABEL_BOXES_JS, plot_id)
    assert before, f"{path}: no labels on {plot_id}"
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "ArrowRight"):
        nudge_slider(moved, param, key)
    moved.wait_for_function("(p) => new URLSearchParams(location.search).has(p)", arg=param)
    settle(moved)
    after = moved.evaluate(LABEL_BOXES_JS, plot_id)
    fresh.goto(moved.url)
    settle(fresh)
    loaded = fresh.evaluate(LABEL_BOXES_JS, plot_id)
    assert [label["text"] for label in after] == [label["text"] for label in loaded], path
    for a, b in zip(after, loaded, strict=True):
        assert all(abs(a[side] - b[side]) <= 1 for side in ("left", "top", "right", "bottom")), (path, a, b)

"""What the figures show: Plotly's own drawn traces and layout, read after real moves and loads."""

from tests.browser.helpers import ALL_PLOTS_DRAWN, set_box, wait_for_query

# Per plot: the x/y of every trace Plotly drew (_fullData) that stands for a page trace other than
# an image heatmap (whose numbers live in the image, checked by test_redraw).
DRAWN_POINTS_JS = """() => {
    const plain = (v) => (v && typeof v === 'object' && 'length' in v ? Array.from(v) : (v ?? null));
    const out = {};
    for (const gd of document.querySelectorAll('.plot')) {
        out[gd.id] = gd._shown.map((trace, i) => trace.type === 'heatmap' ? null
            : {x: plain(gd._fullData[i].x), y: plain(gd._fullData[i].y)});
    }
    return out;
}"""


def test_compare_lines_follow_the_heatmap_size(page, base_url):
    """24 -> 40 heatmap positions: the NoPE out_m line beside its weight matrix gets 40 points too,
    exactly what a fresh load of the new address draws."""
    page.goto(f"{base_url}/compare")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    set_box(page, "seq_len", "40")
    wait_for_query(page, "seq_len=40")
    page.wait_for_function(
        "() => { const gd = document.getElementById('plot-nope'); return gd._shown[0].z.length === 40; }"
    )
    page.wait_for_function(ALL_PLOTS_DRAWN)
    moved = page.evaluate(DRAWN_POINTS_JS)
    assert len(moved["plot-nope"][1]["x"]) == 40
    page.reload()
    page.wait_for_function(ALL_PLOTS_DRAWN)
    assert moved == page.evaluate(DRAWN_POINTS_JS)

"""What the figures show: Plotly's own drawn traces and layout, read after real moves and loads."""

from tests.browser.helpers import ALL_PLOTS_DRAWN, set_box, wait_for_query

# Per plot: the x/y of every trace Plotly drew (_fullData) that stands for a page trace other than
# an image heatmap (whose numbers live in the image, checked by test_redraw).
DRAWN_POINTS_JS = """() => {
    const plain = (v) => (v && typeof v === 'object' && 'length' in v ? Array.from(v) : (v ?? null));
    const out = {};
    for (const gd of document.querySelectorAll('.plot')) {
        out[gd.id] = window.plotShown?.(gd)?.traces.map((trace, i) => trace.type === 'heatmap' ? null
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
        "() => { const gd = document.getElementById('plot-nope'); return window.plotShown?.(gd)?.traces[0].z.length === 40; }"
    )
    page.wait_for_function(ALL_PLOTS_DRAWN)
    moved = page.evaluate(DRAWN_POINTS_JS)
    assert len(moved["plot-nope"][1]["x"]) == 40
    page.reload()
    page.wait_for_function(ALL_PLOTS_DRAWN)
    assert moved == page.evaluate(DRAWN_POINTS_JS)


def test_a_narrow_colour_range_is_said_in_words(page, base_url):
    """/mrope's M-RoPE scores span under 1 % of their size: the title says by how little they differ."""
    qwen2_vl = "head_dim=128&base=1000000&mrope_section=16&mrope_section=24&mrope_section=24"
    twin = page.request.get(f"{base_url}/api/rope/mrope?{qwen2_vl}").json()
    flat = [v for row in twin["grid_scores"] for v in row]
    lo, hi = min(flat), max(flat)
    percent = 100 * (hi - lo) / max(abs(lo), abs(hi))
    assert percent < 1
    page.goto(f"{base_url}/mrope?{qwen2_vl}")
    page.locator("#plot-scores").scroll_into_view_if_needed()
    page.wait_for_function("() => window.plotShown?.(document.getElementById('plot-scores'))?.traces")
    title = page.locator("#plot-scores-title").inner_text()
    assert f"M-RoPE's scores differ by only {float(f'{percent:.2g}')} %" in title


def test_the_learned_similarity_spans_its_rows_on_a_stated_clipped_scale(page, base_url):
    """/absolute's learned P·Pᵀ: the y axis ends at the table's last row and the colours stop at the
    99.5th percentile of |value| (cell (0, 0) would otherwise take the whole ramp), as the title says."""
    twin = page.request.get(f"{base_url}/api/absolute").json()
    rows = twin["learned_rows"]
    values = sorted(abs(v) for row in twin["learned_similarity"] for v in row)
    limit = values[min(len(values) - 1, int(0.995 * len(values)))]
    assert limit < values[-1]
    page.goto(f"{base_url}/absolute")
    page.locator("#plot-similarity").scroll_into_view_if_needed()
    page.wait_for_function("() => window.plotShown?.(document.getElementById('plot-similarity'))?.traces")
    drawn = page.evaluate("""() => { const gd = document.getElementById('plot-similarity');
        const entry = window.plotShown?.(gd)?.heatmaps[1];
        return {range: gd._fullLayout.yaxis2.range, zmin: entry.colour.zmin, zmax: entry.colour.zmax}; }""")
    assert sorted(drawn["range"]) == [-0.5, rows - 0.5]
    assert drawn["zmax"] == limit and drawn["zmin"] == -limit
    assert "99.5th percentile" in page.locator("#plot-similarity-title").inner_text()

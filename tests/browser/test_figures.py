"""What the figures show: Plotly's own drawn traces and layout, read after real moves and loads."""

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN, DRAW_PENDING_JS, set_box, wait_for_query

NAMES = [view.name for view in discover()]

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


# What every plot on a page shows of its words and scales, as lists of problems:
# - bars: a heatmap read through no colour bar (its own, or one it shares: the same range and
#   colours), a colour bar without numbers, or a colour-bar word outside the figure box or the
#   window's width (Plotly draws every colour bar: for an image heatmap from the trace in its place);
# - logs: a labelled tick on a log axis whose text does not parse to its value ("5" for 0.5);
# - hidden: an element carrying text that is hidden or transparent.
FIGURE_PROBLEMS_JS = r"""() => {
  const bars = [], logs = [], hidden = [];
  const inside = (r, box) => r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  const win = { left: 0, top: -1e9, right: document.documentElement.clientWidth, bottom: 1e9 };
  for (const gd of document.querySelectorAll('.plot')) {
    const box = gd.getBoundingClientRect();
    const image = (gd._heatmaps || []).length;
    // A heatmap of at most three values is a picture of categories whose colours the title names.
    const categories = (t) => new Set(Array.from(t.z || [], (row) => Array.from(row)).flat()).size <= 3;
    const native = (gd._fullData || []).filter((t) => t.type === 'heatmap' && !categories(t)).length;
    const svgBars = [...gd.querySelectorAll('g.colorbar')];
    // A heatmap is read through a colour bar of its own or one it shares (the same range and colours).
    const key = (entry) => JSON.stringify([entry.colour.zmin, entry.colour.zmax, entry.colour.scale]);
    const barred = new Set((gd._heatmaps || []).filter((entry) => entry.colourBar).map(key));
    const unread = (gd._heatmaps || []).filter((entry) => !barred.has(key(entry))).length;
    const nativeBars = (gd._fullData || []).filter((t) => t.type === 'heatmap' && !categories(t) && t.showscale).length;
    if (unread || (native && !nativeBars)) bars.push(`${gd.id}: ${unread + (native && !nativeBars ? native : 0)} heatmaps without a colour bar`);
    for (const bar of svgBars) {
      const texts = [...bar.querySelectorAll('text')].filter((t) => t.textContent.trim());
      // A bar of categories names them (its trace's ticktext); a bar of values shows numbers.
      const names = (gd._fullData || []).filter((t) => t.type === 'heatmap' && t.showscale && t.colorbar && t.colorbar.ticktext)
        .flatMap((t) => Array.from(t.colorbar.ticktext, String));
      if (names.length) {
        for (const name of names) if (!texts.some((t) => t.textContent.trim() === name)) bars.push(`${gd.id}: bar does not name "${name}"`);
      } else if (!texts.some((t) => /\d/.test(t.textContent))) bars.push(`${gd.id}: bar without numbers`);
      for (const t of texts) {
        const r = t.getBoundingClientRect();
        if (!inside(r, box) || !inside(r, win)) bars.push(`${gd.id}: "${t.textContent}" outside (${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)}, ${Math.round(r.top-box.top)}..${Math.round(r.bottom-box.top)} of ${Math.round(box.height)})`);
      }
    }
    for (const [key, axis] of Object.entries(gd._fullLayout || {})) {
      if (!/^[xy]axis\d*$/.test(key) || !axis || axis.type !== 'log') continue;
      for (const tick of gd.querySelectorAll(`g.${axis._id}tick text`)) {
        const d = tick.__data__; const text = tick.textContent.replace(/−/g, '-').replace(/,/g, '');
        if (!d || !text) continue;
        const value = Math.pow(10, d.x);
        // 10 with an exponent (Plotly writes the exponent between zero-width spaces), or a number
        // perhaps with an SI suffix (20k, 2M)
        const power = text.match(/^10\u200b(-?\d+)\u200b$/);
        const suffix = {k: 1e3, M: 1e6}[text.slice(-1)] || 1;
        const shown = power ? 10 ** Number(power[1]) : Number(suffix === 1 ? text : text.slice(0, -1)) * suffix;
        if (!(Math.abs(shown - value) <= 1e-9 * Math.abs(value))) logs.push(`${gd.id} ${axis._id}: "${tick.textContent}" for ${value}`);
      }
    }
    for (const node of gd.querySelectorAll('*')) {
      if (node.children.length && !(node instanceof SVGTextElement)) continue;
      if (!node.textContent.trim()) continue;
      const style = getComputedStyle(node);
      if (style.visibility === 'hidden' || style.opacity === '0' || node.hidden) hidden.push(`${gd.id}: "${node.textContent.trim().slice(0, 30)}"`);
    }
  }
  return { bars, logs, hidden };
}"""

SIZES = {"phone": (390, 844, ""), "presenter": (1280, 800, "?presenter=true"), "wide": (1920, 1080, "")}


@pytest.fixture(scope="module", params=list(SIZES))
def problems_by_page(request, browser, base_url):
    """Every page at one window size (one context for all pages), its figures' problems."""
    width, height, query = SIZES[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    found = {}
    for name in NAMES:
        page.goto(f"{base_url}/{name}{query}")
        page.wait_for_function(ALL_PLOTS_DRAWN)
        page.wait_for_function(DRAW_PENDING_JS)
        # the colour bars and labels follow the draw by a frame
        page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
        found[name] = page.evaluate(FIGURE_PROBLEMS_JS)
    context.close()
    return found


def test_every_heatmap_has_a_colour_bar_with_numbers_in_view(problems_by_page):
    assert {name: p["bars"] for name, p in problems_by_page.items() if p["bars"]} == {}


def test_log_axis_ticks_show_their_full_values(problems_by_page):
    assert {name: p["logs"] for name, p in problems_by_page.items() if p["logs"]} == {}


def test_no_word_in_a_figure_is_hidden(problems_by_page):
    assert {name: p["hidden"] for name, p in problems_by_page.items() if p["hidden"]} == {}


def test_a_narrow_colour_range_is_said_in_words(page, base_url):
    """/mrope's M-RoPE scores span under 1 % of their size: the title says by how little they differ."""
    twin = page.request.get(f"{base_url}/api/rope/mrope").json()
    flat = [v for row in twin["grid_scores"] for v in row]
    lo, hi = min(flat), max(flat)
    percent = 100 * (hi - lo) / max(abs(lo), abs(hi))
    assert percent < 1
    page.goto(f"{base_url}/mrope")
    page.locator("#plot-scores").scroll_into_view_if_needed()
    page.wait_for_function("() => document.getElementById('plot-scores')._shown")
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
    page.wait_for_function("() => document.getElementById('plot-similarity')._shown")
    drawn = page.evaluate("""() => { const gd = document.getElementById('plot-similarity');
        const entry = gd._heatmaps[1];
        return {range: gd._fullLayout.yaxis2.range, zmin: entry.colour.zmin, zmax: entry.colour.zmax}; }""")
    assert sorted(drawn["range"]) == [-0.5, rows - 0.5]
    assert drawn["zmax"] == limit and drawn["zmin"] == -limit
    assert "99.5th percentile" in page.locator("#plot-similarity-title").inner_text()

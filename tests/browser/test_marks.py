"""Each mark (static/js/lib/marks/) drawn alone, on a page of its own served on the live server's
origin (a Playwright route: the page and its script are the test's, the modules and plotly.js the
app's): every word visible and inside its figure at a phone, presenter and wide size, an update
equal to a fresh draw of the same data (Plotly's data and layout, the heatmap's pixels), and the
hover (the heatmap's tooltip over a cell, a curve's Plotly label over a point).
"""

from __future__ import annotations

import json

import pytest

from tests.browser.helpers import page_sized
from tests.browser.test_figure_text import TEXT_BOXES_JS

FIXTURE = "/__marks__/fixture.html"

HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>marks</title>
<link rel="stylesheet" href="/static/css/app.css">
<script src="/vendor/plotly.min.js" defer></script>
<script type="module" src="/__marks__/fixture.js"></script></head>
<body class="view-page{presenter}"><main id="main"><div class="figures">
<figure class="figure"><div class="plot" id="plot-a" role="figure" aria-label="a"></div></figure>
<figure class="figure"><div class="plot" id="plot-b" role="figure" aria-label="b"></div></figure>
</div></main></body></html>"""

SCRIPT = """
import * as marks from "/static/js/lib/marks/index.js";
import { axis, DIVERGING, SEQUENTIAL } from "/static/js/lib/plot.js";
window.marks = marks;
window.lib = { axis, DIVERGING, SEQUENTIAL };
window.marksReady = true;
"""

SIZES = [("phone", 390, 844, ""), ("presenter", 1280, 800, " presenter"), ("wide", 1920, 1080, "")]

# The data each mark is drawn with: `one` first, `two` for the update.
HEATMAP_JS = """(which) => {
  const n = 6;
  const cell = {one: (i, j) => (i - j) / 5, flip: (i, j) => (j - i) / 5, two: (i, j) => Math.cos(i * j) * 2.5}[which];
  const z = Array.from({length: n}, (_, i) => Array.from({length: n}, (_, j) => cell(i, j)));
  const labels = Array.from({length: n}, (_, i) => i);
  return [{z, x: labels, y: labels, scale: lib.DIVERGING, bar: 'score', hovertemplate: 'query m = %{y}<br>key n = %{x}<br>s = %{z:.4f}<extra></extra>'},
          {title: 'Scores of a small matrix, s<sub>mn</sub>', square: true,
           xaxis: lib.axis('key position n', {range: [-0.5, n - 0.5]}), yaxis: lib.axis('query position m', {range: [n - 0.5, -0.5]})}];
}"""

CURVES_JS = """(which) => {
  const x = Array.from({length: 50}, (_, i) => i);
  const k = which === 'one' ? 0.1 : 0.2;
  return [[{x, y: x.map((v) => Math.cos(k * v)), name: 'cos of the angle', hovertemplate: 'p %{x}<br>cos %{y:.4f}<extra></extra>'},
           {x, y: x.map((v) => Math.sin(k * v)), name: 'sin of the angle', dash: 'dot', hovertemplate: 'p %{x}<br>sin %{y:.4f}<extra></extra>'}],
          {title: 'Two curves along the positions', xaxis: lib.axis('position p'), yaxis: lib.axis('value', {range: [-1.1, 1.1]})}];
}"""

BARS_JS = """(which) => {
  const x = ['first', 'second', 'third'];
  return [[{x, y: which === 'one' ? [1, 3, 2] : [2, 1, 3], name: 'count of things', hovertemplate: '%{x}: %{y}<extra></extra>'}],
          {title: 'Bars of three counts', xaxis: lib.axis('which one'), yaxis: lib.axis('count')}];
}"""

MARKS = {"heatmap": HEATMAP_JS, "curves": CURVES_JS, "bars": BARS_JS}

# Plotly's data and layout as it holds them, image sources (blob URLs) left out, with the pixels
# of the image heatmaps beside them.
HELD_JS = """(id) => {
  const gd = document.getElementById(id);
  const layout = JSON.parse(JSON.stringify(gd.layout));
  (layout.images || []).forEach((image) => { delete image.source; });
  const pixels = (plotShown(gd)?.heatmaps || []).map((entry) => Array.from(entry.bitmap).join(','));
  return JSON.stringify({data: gd.data, layout, pixels});
}"""


def open_fixture(page, base_url: str, presenter: str = ""):
    def serve(route):
        if route.request.url.endswith("fixture.js"):
            route.fulfill(status=200, content_type="text/javascript", body=SCRIPT)
        else:
            route.fulfill(status=200, content_type="text/html", body=HTML.replace("{presenter}", presenter))

    page.route(f"{base_url}/__marks__/*", serve)
    page.goto(base_url + FIXTURE)
    page.wait_for_function("() => window.marksReady && window.Plotly")


def draw(page, mark: str, plot_id: str, which: str) -> None:
    page.evaluate(
        f"""async ([mark, id, which]) => {{
          const [data, options] = ({MARKS[mark]})(which);
          await marks[mark](id, data, options);
        }}""",
        [mark, plot_id, which],
    )
    page.wait_for_function("(id) => document.getElementById(id)._fullLayout && plotShown(document.getElementById(id))", arg=plot_id)


@pytest.fixture
def fixture_page(page, base_url):
    open_fixture(page, base_url)
    return page


@pytest.mark.parametrize("size", SIZES, ids=[s[0] for s in SIZES])
@pytest.mark.parametrize("mark", list(MARKS))
def test_every_word_of_a_mark_is_on_screen(warm_context, base_url, mark, size):
    _, width, height, presenter = size
    page = page_sized(warm_context, width, height)
    try:
        open_fixture(page, base_url, presenter)
        draw(page, mark, "plot-a", "one")
        page.evaluate("() => document.getElementById('plot-b').closest('figure').remove()")
        problems = page.evaluate(TEXT_BOXES_JS)
        assert problems == [], problems
        words = page.evaluate("() => document.getElementById('plot-a').closest('figure').innerText")
        title = {"heatmap": "Scores of a small matrix", "curves": "Two curves along the positions", "bars": "Bars of three counts"}[mark]
        assert title in words  # the title is HTML above the plot
        if mark == "curves":
            assert "cos of the angle" in words and "sin of the angle" in words  # the legend, below it
    finally:
        page.close()


@pytest.mark.parametrize("mark", list(MARKS))
def test_an_update_equals_a_fresh_draw(fixture_page, mark):
    page = fixture_page
    draw(page, mark, "plot-a", "one")
    before = page.evaluate(HELD_JS, "plot-a")
    draw(page, mark, "plot-a", "two")
    draw(page, mark, "plot-b", "two")
    updated = json.loads(page.evaluate(HELD_JS, "plot-a"))
    fresh = json.loads(page.evaluate(HELD_JS, "plot-b"))
    assert updated == fresh
    assert before != page.evaluate(HELD_JS, "plot-a")  # the update did change what is shown


# Curves whose value axis follows the data (no range given): `which` scales them, so an update
# moves the axis as well as the points.
SCALED_CURVES_JS = """async ([id, amplitude, points = 40]) => {
  const x = Array.from({length: points}, (_, i) => i);
  const band = {type: 'rect', xref: 'x', yref: 'paper', x0: points / 4, x1: points / 2, y0: 0, y1: 1, fillcolor: 'rgba(31, 119, 180, 0.1)', line: {width: 1}};
  await marks.curves(id, [{x, y: x.map((v) => amplitude * Math.cos(0.2 * v)), name: 'a cosine'},
                          {x, y: x.map((v) => amplitude * Math.sin(0.2 * v) + amplitude / 2), name: 'a sine, raised', fill: 'tonexty'}],
                     {title: 'Curves whose axis follows them', xaxis: lib.axis('position p'), yaxis: lib.axis('value'), shapes: [band]});
}"""

# What the reader sees of a chart: every line and point, every tick label and where it sits.
DRAWN_SVG_JS = """(id) => {
  const gd = document.getElementById(id);
  const lines = [...gd.querySelectorAll('.scatterlayer path.js-line, .scatterlayer path.js-fill, .scatterlayer path.point, .shapelayer path')].map((e) => e.getAttribute('d') + ' ' + (e.getAttribute('transform') || ''));
  // (in any order: Plotly keeps the labels an axis move kept, so their elements' order differs)
  const ticks = [...gd.querySelectorAll('.xtick text, .ytick text')].map((e) => e.textContent + ' ' + e.getAttribute('transform')).sort();
  return {lines, ticks, range: gd._fullLayout.yaxis.range, hovered: gd.calcdata.map((trace) => trace.length)};
}"""


@pytest.mark.parametrize("points", [40, 23, 61], ids=["same points", "fewer points", "more points"])
def test_a_curve_update_that_moves_its_axis_draws_what_a_fresh_draw_does(fixture_page, points):
    """The chart marks move the points with Plotly.animate (points may come and go) and relay a
    moved axis and moved shapes at once (chart.js): the lines, fills, points, shapes, axes and
    tick labels end where a fresh draw puts them, and Plotly holds the same data and layout."""
    page = fixture_page
    page.evaluate(SCALED_CURVES_JS, ["plot-a", 1])
    page.wait_for_function("() => plotShown(document.getElementById('plot-a'))")
    before = page.evaluate(DRAWN_SVG_JS, "plot-a")
    page.evaluate(SCALED_CURVES_JS, ["plot-a", 3.7, points])
    page.evaluate(SCALED_CURVES_JS, ["plot-b", 3.7, points])
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 100))")
    updated, fresh = page.evaluate(DRAWN_SVG_JS, "plot-a"), page.evaluate(DRAWN_SVG_JS, "plot-b")
    assert updated["range"] != before["range"]  # the axis did move
    assert updated == fresh
    assert json.loads(page.evaluate(HELD_JS, "plot-a")) == json.loads(page.evaluate(HELD_JS, "plot-b"))


def test_a_heatmap_update_swaps_its_image_and_keeps_its_colour_bar(fixture_page):
    page = fixture_page
    draw(page, "heatmap", "plot-a", "one")
    page.evaluate("""() => { const gd = document.getElementById('plot-a'); window.__events = [];
      for (const name of ['plotly_relayout', 'plotly_restyle', 'plotly_update', 'plotly_afterplot']) gd.on(name, () => window.__events.push(name)); }""")
    bar = "() => [...document.querySelectorAll('#plot-a .colorbar text')].map((t) => t.textContent).join(' ')"
    labels = page.evaluate(bar)
    # new numbers of the same range (−1 … 1): the image is swapped by one relayout, the colour bar
    # keeps its labels (no restyle), the axes are not laid out again (no update)
    draw(page, "heatmap", "plot-a", "flip")
    page.wait_for_function("() => window.__events.length > 0")
    assert page.evaluate("() => window.__events") == ["plotly_relayout"]
    assert page.evaluate(bar) == labels
    # a wider range (−2.5 … 2.5) relabels the bar
    page.evaluate("() => { window.__events = []; }")
    draw(page, "heatmap", "plot-a", "two")
    page.wait_for_function("() => window.__events.length > 0")
    assert "plotly_relayout" not in page.evaluate("() => window.__events")
    page.wait_for_function(f"() => ({bar})() !== {json.dumps(labels)}")
    assert "2" in page.evaluate(bar)


def test_a_heatmap_hovers_with_its_template(fixture_page):
    page = fixture_page
    draw(page, "heatmap", "plot-a", "one")
    # the centre of cell (m = 2, n = 4) in page pixels, from Plotly's own axes
    x, y = page.evaluate("""() => { const gd = document.getElementById('plot-a'); const box = gd.getBoundingClientRect();
      const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
      return [box.left + xa._offset + xa.d2p(4), box.top + ya._offset + ya.d2p(2)]; }""")
    page.mouse.move(x, y)
    page.wait_for_function("() => { const tip = document.querySelector('#plot-a .plot-tip, .plot-tip'); return tip && !tip.hidden; }")
    text = page.evaluate("() => document.querySelector('.plot-tip').innerText")
    assert "query m = 2" in text and "key n = 4" in text and "s = -0.4000" in text.replace("\u2212", "-"), text


def test_a_curve_hovers_with_plotlys_label(fixture_page):
    page = fixture_page
    draw(page, "curves", "plot-a", "one")
    x, y = page.evaluate("""() => { const gd = document.getElementById('plot-a'); const box = gd.getBoundingClientRect();
      const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
      return [box.left + xa._offset + xa.d2p(10), box.top + ya._offset + ya.d2p(Math.cos(1))]; }""")
    page.mouse.move(x, y)
    page.wait_for_function("() => document.querySelector('#plot-a .hoverlayer .hovertext')")
    text = page.evaluate("() => [...document.querySelectorAll('#plot-a .hoverlayer .hovertext')].map((n) => n.textContent).join(' ')")
    assert "p 10" in text and "cos 0.5403" in text, text


def test_bars_take_the_gap_between_them(fixture_page):
    # bargap is the share of each category's width left empty: each bar is (1 − gap) of the spacing.
    page = fixture_page
    widths = {}
    for gap in (0.05, 0.5):
        page.evaluate(
            f"""async () => {{ const [data, options] = ({BARS_JS})('one');
              await marks.bars('plot-a', data, {{...options, bargap: {gap}}}); }}"""
        )
        page.wait_for_function(f"() => document.getElementById('plot-a')._fullLayout?.bargap === {gap}")
        boxes = page.evaluate("""() => [...document.querySelectorAll('#plot-a .bars .point path')]
          .map((p) => p.getBoundingClientRect()).map((b) => [b.left, b.width])""")
        assert len(boxes) == 3, boxes
        spacing = boxes[1][0] - boxes[0][0]
        widths[gap] = boxes[0][1] / spacing
    assert widths[0.05] == pytest.approx(0.95, abs=0.02)
    assert widths[0.5] == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize("mark", list(MARKS))
def test_a_mark_exports_as_svg_with_its_title_and_numbers(fixture_page, mark):
    page = fixture_page
    draw(page, mark, "plot-a", "one")
    with page.expect_download() as info:
        page.evaluate("""async () => { const { exportFigure } = await import('/static/js/lib/plot.js');
          await exportFigure(document.getElementById('plot-a'), 'svg', 'mark'); }""")
    svg = info.value.path().read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<svg")
    title = {"heatmap": "Scores of a small matrix", "curves": "Two curves along the positions", "bars": "Bars of three counts"}[mark]
    assert title in svg  # drawn into the picture by Plotly
    if mark == "heatmap":
        assert "data:image/bmp;base64," in svg  # the cells embedded (the page's blob URLs are not reachable)
    if mark == "curves":
        assert "cos of the angle" in svg and "sin of the angle" in svg  # the legend, drawn in


def test_a_heatmap_draws_the_shapes_and_annotations_it_is_given(fixture_page):
    # /absolute greys the rows its learned table lacks and labels the band: the mark passes both on
    page = fixture_page
    page.evaluate(
        f"""async () => {{
          const [cells, options] = ({HEATMAP_JS})('one');
          options.shapes = [{{type: 'rect', xref: 'paper', yref: 'y', x0: 0, x1: 1, y0: 3.5, y1: 5.5,
                              fillcolor: '#999', opacity: 0.25, line: {{width: 0}}}}];
          options.annotations = [{{xref: 'paper', yref: 'y', x: 0.5, y: 4.5, text: 'no row past here', showarrow: false}}];
          await marks.heatmap('plot-a', cells, options);
        }}"""
    )
    page.wait_for_function("() => document.getElementById('plot-a')._fullLayout && plotShown(document.getElementById('plot-a'))")
    assert page.evaluate("() => document.querySelectorAll('#plot-a .shapelayer path').length") == 1
    words = page.evaluate("() => document.getElementById('plot-a').closest('figure').innerText")
    assert "no row past here" in words
    assert page.evaluate(TEXT_BOXES_JS) == []

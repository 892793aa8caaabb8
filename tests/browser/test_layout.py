"""A page that works in the room and in the hand (issue 14): the phone, the projector, resizing,
controls in view, a small plot toolbar, colour scales that fit the data, and heatmap images whose
pixels are the numbers' colours."""

from __future__ import annotations

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import ALL_PLOTS_DRAWN, DRAW_PENDING_JS, page_sized, wait_for_plot

pytestmark = pytest.mark.browser

VIEWS = discover()
NAMES = [view.name for view in VIEWS]

# Bring every plot into view once (plots out of view wait to be drawn), then back to the top.
SHOW_EVERY_PLOT_JS = """async () => {
  for (const el of document.querySelectorAll('.plot')) {
    el.scrollIntoView({ block: 'center' });
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  window.scrollTo(0, 0);
}"""


def open_at(warm_context, base_url, name, width, height, query=""):
    """A page of the warm context at this size, drawn, with the list that collects its console errors."""
    page = page_sized(warm_context, width, height)
    problems = []
    page.on("console", lambda msg: msg.type == "error" and problems.append(msg.text))
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.goto(f"{base_url}/{name}{query}")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    page.evaluate(SHOW_EVERY_PLOT_JS)
    page.wait_for_function(DRAW_PENDING_JS)
    page.wait_for_timeout(150)
    return page, problems


# Words drawn over a plot that cover one another, found by the browser's own hit testing: where
# the boxes of two shown labels meet, points a little inside are asked which labels they fall on.
LABELS_COVERED_JS = """() => {
  const found = [];
  for (const layer of document.querySelectorAll('.plot .plot-labels')) {
    const spans = [...layer.children].filter((el) => !el.hidden && getComputedStyle(el).visibility !== 'hidden');
    spans.forEach((el) => { el.style.pointerEvents = 'auto'; });
    const boxes = spans.map((el) => el.getBoundingClientRect());
    for (let i = 0; i < spans.length; i++) for (let j = i + 1; j < spans.length; j++) {
      const a = boxes[i], b = boxes[j];
      const left = Math.max(a.left, b.left) + 1.5, right = Math.min(a.right, b.right) - 1.5;
      const top = Math.max(a.top, b.top) + 1.5, bottom = Math.min(a.bottom, b.bottom) - 1.5;
      let hit = false;
      for (let x = left; x <= right && !hit; x += 2) for (let y = top; y <= bottom && !hit; y += 2) {
        const under = document.elementsFromPoint(x, y);
        hit = under.includes(spans[i]) && under.includes(spans[j]);
      }
      if (hit) found.push(`${layer.parentElement.id}: ${spans[i].textContent} × ${spans[j].textContent}`);
    }
    spans.forEach((el) => { el.style.pointerEvents = ''; });
  }
  return found;
}"""


@pytest.mark.parametrize("name", NAMES)
def test_a_phone_never_scrolls_sideways_and_plots_use_the_full_width(warm_context, base_url, name):
    page, problems = open_at(warm_context, base_url, name, 390, 844)
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        widths = page.evaluate(
            """() => [...document.querySelectorAll('.plot')].map((el) => [el.id,
                 el.getBoundingClientRect().width, el.closest('.stage').clientWidth])"""
        )
        for plot_id, width, stage in widths:
            assert width >= stage - 2, f"{plot_id} is {width:.0f} px wide in a {stage} px column"
        # The controls come before the plots and fold away.
        assert page.locator("#controls details.controls-box").count() == 1
        assert page.evaluate(LABELS_COVERED_JS) == []
        cut = page.evaluate("""() => [...document.querySelectorAll('.plot .plot-labels > span')].filter((el) => !el.hidden
             && getComputedStyle(el).visibility !== 'hidden').filter((el) => { const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
             return r.left < p.left - 1 || r.right > p.right + 1 || r.top < p.top - 1 || r.bottom > p.bottom + 1; }).map((el) => el.textContent)""")
        assert cut == [], f"labels cut at the plot's edge: {cut}"
        # Text is typeset, never shown as markup (a readout once listed "2<sup>-2</sup>").
        raw = page.evaluate("""() => [...document.querySelectorAll('main *')].filter((el) => !el.children.length
             && /<\\/?(sup|sub|b|i|br|span)\\b/i.test(el.textContent)).map((el) => el.textContent.slice(0, 80))""")
        assert raw == []
        assert problems == []
    finally:
        page.close()


PRESENTER_TEXT_JS = """() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    // Formulas are exempt; words drawn in a plot (svg text, .plot-labels) are plot text, below.
    if (!node.textContent.trim() || !el || el.closest('math, svg, script, .plot-tip, .plot-labels, option, [hidden]')) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 20) small.push(`${el.tagName}.${el.className}: ${size}px "${node.textContent.trim().slice(0, 30)}"`);
  }
  return small;
}"""

PLOT_TEXT_JS = """() => {
  const small = [];
  for (const text of document.querySelectorAll('.js-plotly-plot .main-svg text, .js-plotly-plot .main-svg tspan, .js-plotly-plot .plot-labels > span')) {
    if (!text.textContent.trim()) continue;
    const size = parseFloat(getComputedStyle(text).fontSize);
    if (size < 16) small.push(`${text.closest('.js-plotly-plot').id}: ${size}px "${text.textContent.trim().slice(0, 20)}"`);
  }
  return small;
}"""

# Boxes of one plot's axis titles, tick labels, colour-bar labels and annotations that overlap.
OVERLAPS_JS = """(id) => {
  const gd = document.getElementById(id);
  const box = (el) => el.getBoundingClientRect();
  const visible = (r) => r.width > 0 && r.height > 0;
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const groups = {};
  for (const el of gd.querySelectorAll('.main-svg g[class*="tick"] text')) {
    const axis = el.parentElement.getAttribute('class').replace(/tick.*/, '');
    (groups[axis] ||= []).push(el);
  }
  const titles = [...gd.querySelectorAll('.main-svg [class$="title"] text, .main-svg text[class$="title"], .main-svg .annotation-text, .main-svg .cbtitle text, .plot-labels > span:not([hidden])')];
  const ticks = Object.values(groups).flat();
  const found = [];
  for (const title of titles) {
    const t = box(title);
    if (!visible(t)) continue;
    for (const tick of ticks) if (visible(box(tick)) && hit(t, box(tick))) found.push(`${title.textContent} × tick ${tick.textContent}`);
  }
  for (const [axis, labels] of Object.entries(groups)) {
    const boxes = labels.map(box).filter(visible);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      if (hit(boxes[i], boxes[j])) found.push(`${axis}: ${labels[i].textContent} × ${labels[j].textContent}`);
    }
  }
  return found;
}"""


@pytest.mark.parametrize("name", NAMES)
def test_presenter_mode_is_legible_from_the_back_of_the_room(warm_context, base_url, name):
    page, problems = open_at(warm_context, base_url, name, 1280, 800, "?presenter=true")
    try:
        assert page.evaluate(PRESENTER_TEXT_JS) == []
        assert page.evaluate(PLOT_TEXT_JS) == []
        assert page.evaluate(LABELS_COVERED_JS) == []
        plots = page.evaluate(
            """() => [...document.querySelectorAll('.plot')].map((el) => ({ id: el.id, height: el.getBoundingClientRect().height,
                 plotlyLegend: el.querySelectorAll('.main-svg g.legend .traces').length }))"""
        )
        for plot in plots:
            assert plot["height"] >= 0.6 * 800, f"{plot['id']} is {plot['height']:.0f} px tall"
            assert plot["plotlyLegend"] == 0, f"{plot['id']} draws a legend inside the plot"
            overlaps = page.evaluate(OVERLAPS_JS, plot["id"])
            assert overlaps == [], f"{plot['id']}: {overlaps}"
        assert problems == []
    finally:
        page.close()


SIZES_JS = """() => [...document.querySelectorAll('.plot')].filter((el) => el._fullLayout).map((el) =>
    [el.id, Math.round(el.clientWidth), Math.round(el._fullLayout.width), Math.round(el.clientHeight), Math.round(el._fullLayout.height)])"""


@pytest.mark.parametrize("name", NAMES)
def test_plots_follow_the_window_as_it_shrinks_and_grows(warm_context, base_url, name):
    page, problems = open_at(warm_context, base_url, name, 1280, 900)
    try:
        def settled_sizes(before=None):
            """The plots' sizes once every plot has the size of its box (and, after a resize, once
            every plot's box has changed from ``before``: the resize has reached each of them)."""
            page.evaluate(SHOW_EVERY_PLOT_JS)
            page.wait_for_function(DRAW_PENDING_JS)
            page.wait_for_function(
                f"""(before) => {{
                    const now = ({SIZES_JS})();
                    const moved = !before || now.every(([id, w], i) => before[i] && before[i][0] === id && before[i][1] !== w);
                    return moved && now.every(([id, w, fw, h, fh]) => Math.abs(w - fw) <= 1 && Math.abs(h - fh) <= 1);
                }}""",
                arg=before,
            )
            return page.evaluate(SIZES_JS)

        wide = settled_sizes()
        page.set_viewport_size({"width": 760, "height": 900})
        narrow = settled_sizes(wide)
        page.set_viewport_size({"width": 1280, "height": 900})
        again = settled_sizes(narrow)
        assert all(n[1] < w[1] for n, w in zip(narrow, wide, strict=True)), (wide, narrow)
        assert again == wide
        assert problems == []
    finally:
        page.close()


def test_the_controls_stay_beside_the_plots_while_the_reader_scrolls(warm_context, base_url):
    page, _ = open_at(warm_context, base_url, "relative", 1920, 1080)
    try:
        page.locator("#plot-alibi-bias").scroll_into_view_if_needed()
        page.wait_for_timeout(100)
        box = page.locator("form#controls").bounding_box()
        plot = page.locator("#plot-alibi-bias").bounding_box()
        assert box["y"] >= 0 and box["y"] < 100, box
        assert box["x"] + box["width"] <= plot["x"]  # beside the plot, not over it
    finally:
        page.close()


def test_the_plot_toolbar_is_small_stays_on_the_site_and_out_of_the_tab_order(page, base_url):
    page.goto(f"{base_url}/spectrum")
    page.wait_for_function(ALL_PLOTS_DRAWN)
    page.evaluate(SHOW_EVERY_PLOT_JS)
    buttons = page.evaluate(
        """() => [...document.querySelectorAll('.plot')].map((el) => [...el.querySelectorAll('.modebar-btn')]
            .map((b) => ({ title: b.getAttribute('data-title'), tab: b.getAttribute('tabindex'), href: b.getAttribute('href') })))"""
    )
    for plot_buttons in buttons:
        assert len(plot_buttons) <= 2
        assert all(b["tab"] == "-1" for b in plot_buttons)
        assert all(not (b["href"] or "").startswith("http") for b in plot_buttons)
    assert page.locator(".modebar a[href^='http']").count() == 0
    assert page.locator(".plot [data-title*='Share'], .plot [data-title*='Edit']").count() == 0


def _heatmap_colour(page, plot_id, index=0):
    return page.evaluate(
        "([id, i]) => { const e = window.plotShown?.(document.getElementById(id))?.heatmaps[i]; return { kind: e.colour.kind, zmin: e.colour.zmin, zmax: e.colour.zmax }; }",
        [plot_id, index],
    )


def test_signed_values_are_coloured_on_a_scale_centred_on_zero(page, base_url):
    # Repeated content at the defaults: every score is negative; random content: signs mixed.  Both
    # get the full blue-white-red scale from -m to m (white = 0), m the largest |score| rounded up a
    # little, so that a slider moving the scores across 0 never changes the kind of scale.
    for query in ("", "?content=random"):
        page.goto(f"{base_url}/scores{query}")
        wait_for_plot(page, "plot-scores")
        z = page.evaluate("() => window.plotShown?.(document.getElementById('plot-scores'))?.traces[0].z.flat().filter((v) => v !== null)")
        colour = _heatmap_colour(page, "plot-scores")
        assert (max(z) < 0) if not query else (min(z) < 0 < max(z))
        limit = max(-min(z), max(z))
        assert colour["kind"] == "diverging"
        assert colour["zmin"] == -colour["zmax"] and limit <= colour["zmax"] <= 1.25 * limit


# The colour scales as plotly.py lists them (plotly.colors): interpolated linearly, as a colour bar is.
RDBU = [(5, 48, 97), (33, 102, 172), (67, 147, 195), (146, 197, 222), (209, 229, 240), (247, 247, 247),
        (253, 219, 199), (244, 165, 130), (214, 96, 77), (178, 24, 43), (103, 0, 31)]


def _expected_rgb(stops, t):
    t = min(1.0, max(0.0, t)) * (len(stops) - 1)
    k = min(len(stops) - 2, int(t))
    f = t - k
    return [stops[k][c] + (stops[k + 1][c] - stops[k][c]) * f for c in range(3)]


def test_heatmap_pixels_are_the_colours_of_the_twins_numbers(page, base_url):
    page.goto(f"{base_url}/scores?content=random&seq_len=24&head_dim=8")
    wait_for_plot(page, "plot-scores")
    twin = page.evaluate(
        "async () => (await fetch('/api/rope/scores?content=random&seq_len=24&head_dim=8', { headers: { Accept: 'application/json' } })).json()"
    )
    drawn = page.evaluate(
        """() => {
          const e = window.plotShown?.(document.getElementById('plot-scores'))?.heatmaps[0];
          const bytes = e.bitmap, width = e.width, height = e.height;
          const pixels = [];
          for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) {
            const o = 54 + 4 * (r * width + c);
            pixels.push([bytes[o + 2], bytes[o + 1], bytes[o]]);  // BMP stores blue, green, red
          }
          // Plotly's colour bar, drawn from the trace standing in for the image
          const bar = document.getElementById('plot-scores')._fullData[0];
          const ticks = [...document.querySelectorAll('#plot-scores .colorbar .cbaxis text')].map((t) => Number(t.textContent.replace('−', '-')));
          return { z: e.z, width, height, pixels, zmin: e.colour.zmin, zmax: e.colour.zmax,
                   bar: { zmin: bar.zmin, zmax: bar.zmax, stops: bar.colorscale.map(([, c]) => c.replace(/ /g, '')),
                          tickvals: Array.from(bar.colorbar.tickvals), ticktext: Array.from(bar.colorbar.ticktext) }, ticks };
        }"""
    )
    assert drawn["z"] == twin["scores"]  # the numbers behind the image are the twin's, exactly
    assert (drawn["width"], drawn["height"]) == (24, 24)
    # The colour bar beside the plot: the same stops, bottom to top, the same range, ticks inside it.
    assert drawn["bar"]["stops"] == [f"rgb({r},{g},{b})" for r, g, b in RDBU]
    # The bar spans 0 … 1 of the image's range; each tick sits where its value falls in that range.
    span = drawn["zmax"] - drawn["zmin"]
    assert (drawn["bar"]["zmin"], drawn["bar"]["zmax"]) == (0, 1)
    assert drawn["ticks"] and all(drawn["zmin"] <= t <= drawn["zmax"] for t in drawn["ticks"])
    assert drawn["ticks"] == [float(text.replace("\u2212", "-")) for text in drawn["bar"]["ticktext"]]
    for at, value in zip(drawn["bar"]["tickvals"], drawn["ticks"], strict=True):
        assert at == pytest.approx((value - drawn["zmin"]) / span, abs=1e-12)
    for r in range(24):  # the y axis runs downwards from query 0, so image row r is query r
        for c in range(24):
            expected = _expected_rgb(RDBU, (twin["scores"][r][c] - drawn["zmin"]) / span)
            got = drawn["pixels"][r * 24 + c]
            assert all(abs(g - e) <= 2 for g, e in zip(got, expected, strict=True)), (r, c, got, expected)

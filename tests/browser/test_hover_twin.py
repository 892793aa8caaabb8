"""Hovers read like Plotly's and show the twin's numbers (issue 21, item 3).

On every page, at the defaults, the mouse goes over one point of every plot, at the pixel Plotly's
own axes give for it (``_fullLayout`` axis ``d2p`` + ``_offset``), and the hover text must be the
trace's hovertemplate filled with the twin's numbers at that point: a formatted value exactly as
d3-format writes it (``.2%`` → 12.35%, ``.3e`` → 1.235e+4, ``.4f``, ``.5g``, ``,d``), an unformatted
integer as an integer (21, never 21.0000) and any other unformatted number equal to the twin's at
the digits it shows.  Which point Plotly hovered is read from its ``plotly_hover`` event; which
twin array a trace draws is found by value (helpers.twin_path).

A line, marker or bar hovers with Plotly's own label: Plotly holds the trace's name, hover
template and hover info as the page gave them, the text is read from Plotly's hover layer only,
and no tooltip of the page's own is on show beside it.

A heatmap drawn as a layout image has no Plotly hover: the mouse goes over the centre of one of
its cells and the tooltip the page shows there must hold that cell of a twin array of the image's
size, and the cell's coordinates.
"""

from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.main import create_app  # noqa: F401  (registers every view)
from app.web import numbers
from app.web.views import discover
from tests.browser.conftest import ConsoleWatch
from tests.browser.helpers import (
    SETTLED_JS,
    numeric,
    settle,
    track_api,
    twin_arrays,
    twin_path,
    twin_url,
)

pytestmark = pytest.mark.browser

NAMES = [view.name for view in discover()]

# Pages whose hover is known to read wrong, with the reason (strict: a fix shows as XPASS, and the
# mark goes).
KNOWN: dict[str, str] = {}  # pages whose hover is known to be wrong (strict expected failures)
PAGES = [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN[name])) if name in KNOWN else name for name in NAMES]

# Per plot: its traces as Plotly holds them (hover info and template as Plotly was given them), the
# page's line and bar traces whose hover Plotly was not given as the page wrote it, and its layout
# images.
PLOTS_JS = """async () => {
  const plain = (v) => (v && typeof v === 'object' && 'length' in v && typeof v !== 'string' ? Array.from(v, plain) : (v === undefined ? null : v));
  const out = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const given = window.plotShown?.(gd)?.traces || [];  // the page's traces as the drawing library records them
    const full = gd._fullLayout;
    const traces = (gd._fullData || []).map((t, i) => ({
      i, type: t.type, mode: t.mode || '', visible: t.visible,
      hoverinfo: t.hoverinfo === 'skip' ? 'skip' : ((gd.data[t.index] || {}).hoverinfo || t.hoverinfo),
      template: (gd.data[t.index] || {}).hovertemplate || null,
      xaxis: t.xaxis || 'x', yaxis: t.yaxis || 'y', x: plain(t.x), y: plain(t.y), z: plain(t.z),
      orientation: t.orientation || 'v',
    }));
    const heatmapTemplates = given.filter((t) => t.type === 'heatmap').map((t) => t.hovertemplate || null);
    // (words written in the plot, mode "text", are HTML labels over it: Plotly gets a placeholder)
    const notPlotlys = given.flatMap((t, i) => {
      if (t.type === 'heatmap' || t.mode === 'text' || t.hoverinfo === 'skip') return [];
      const held = gd.data[i] || {};
      // (a long name may reach Plotly broken into lines, so that its label fits a phone)
      const lines = (value) => (typeof value === 'string' ? value.replace(/<br\\s*\\/?>/gi, ' ') : value);
      const differ = ['name', 'hovertemplate', 'hoverinfo', 'hovertext'].filter((key) => JSON.stringify(lines(held[key])) !== JSON.stringify(lines(t[key])));
      return differ.length ? [`trace ${i} (${t.name || t.type || 'scatter'}): Plotly holds another ${differ.join(', ')}`] : [];
    });
    const images = [];
    for (const [index, im] of (full.images || []).entries()) {
      if (im.visible === false || !im.source) continue;
      const img = new Image(); img.src = im.source; try { await img.decode(); } catch { continue; }
      images.push({index, x: im.x, y: im.y, sizex: im.sizex, sizey: im.sizey, xref: im.xref, yref: im.yref, width: img.naturalWidth, height: img.naturalHeight});
    }
    // the legend is the page's own, under the plot: named traces must not bring Plotly's back
    if (gd.querySelector('.infolayer .legend')) notPlotlys.push("Plotly draws a legend of its own");
    out.push({id: gd.id, traces, images, heatmapTemplates, notPlotlys});
  }
  return out;
}"""

# Where a data point is on the screen (scrolled into the window first): Plotly's axes turn data
# into pixels inside the plot area.
PIXEL_JS = """([id, xref, yref, x, y]) => {
  const gd = document.getElementById(id);
  const full = gd._fullLayout;
  const name = (ref, letter) => letter + 'axis' + ref.replace(/^[xy]/, '');
  const xa = full[name(xref, 'x')], ya = full[name(yref, 'y')];
  let box = gd.getBoundingClientRect();
  const top = box.top + ya._offset + ya.d2p(y);
  if (top < 40 || top > window.innerHeight - 40) { window.scrollBy(0, top - window.innerHeight / 2); box = gd.getBoundingClientRect(); }
  const category = (axis) => axis.tickmode === 'array' && (axis.ticktext || []).some((t) => isNaN(Number(String(t).replace('−', '-'))));
  return {px: box.left + xa._offset + xa.d2p(x), py: box.top + ya._offset + ya.d2p(y),
          inside: xa.d2p(x) >= 0 && xa.d2p(x) <= xa._length && ya.d2p(y) >= 0 && ya.d2p(y) <= ya._length,
          xCategory: category(xa) || xa.type === 'category', yCategory: category(ya) || ya.type === 'category'};
}"""

# The centre of cell (r, c) of layout image k, counted on the screen from its top-left corner: its
# pixel (scrolled into the window first) and its data coordinates.
IMAGE_CELL_JS = """([id, k, r, c, rows, cols]) => {
  const gd = document.getElementById(id);
  const full = gd._fullLayout, im = full.images[k];
  const name = (ref, letter) => letter + 'axis' + ref.replace(/^[xy]/, '');
  const xa = full[name(im.xref, 'x')], ya = full[name(im.yref, 'y')];
  const left = xa.d2p(im.x), width = Math.abs(xa.d2p(im.x + im.sizex) - left);
  const top = ya.d2p(im.y), height = Math.abs(ya.d2p(im.y - im.sizey) - top);
  const px = left + (c + 0.5) * width / cols, py = top + (r + 0.5) * height / rows;
  let box = gd.getBoundingClientRect();
  if (box.top + ya._offset + py < 40 || box.top + ya._offset + py > window.innerHeight - 40) {
    window.scrollBy(0, box.top + ya._offset + py - window.innerHeight / 2);
    box = gd.getBoundingClientRect();
  }
  return {px: box.left + xa._offset + px, py: box.top + ya._offset + py, x: xa.p2d(px), y: ya.p2d(py),
          xCategory: xa.tickmode === 'array' && (xa.ticktext || []).some((t) => isNaN(Number(String(t).replace('−', '-')))),
          yCategory: ya.tickmode === 'array' && (ya.ticktext || []).some((t) => isNaN(Number(String(t).replace('−', '-'))))};
}"""

LISTEN_JS = """() => {
  window.__hovered = {};
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    gd.on('plotly_hover', (event) => { const p = event.points[0]; window.__hovered[gd.id] = {curve: p.curveNumber, point: p.pointNumber}; });
  }
}"""

# The hover text on show in a plot: Plotly's hover label (lines, markers, bars), or the tooltip of
# the page's own (an image heatmap, which Plotly cannot hover).
PLOTLY_TEXT_JS = """(id) => [...document.getElementById(id).querySelectorAll('.hoverlayer .hovertext')].map((node) => node.textContent).join('\\n')"""
TOOLTIP_TEXT_JS = """(id) => [...document.getElementById(id).querySelectorAll('[role="tooltip"], [role="status"], .plot-tip')]
  .filter((node) => !node.hidden && node.offsetParent && node.textContent.trim()).map((node) => node.textContent).join('\\n')"""

MINUS = "\u2212"


# ---- d3-format, the part hovertemplates use ---------------------------------------------------


def d3_format(value: float, spec: str) -> str:
    """``value`` as a page's hover writes it for ``spec``: d3-format (app/web/numbers.py, tested
    against d3-format's documented examples), with a true minus in an exponent too."""
    return numbers.d3_format(value, spec).replace("e-", f"e{MINUS}")


NUMBER = r"([−-]?[\d,]*\.?\d+(?:e[+−-]?\d+)?)"


def _shows(text: str, value: float) -> bool:
    """``text`` (a number as written, no format asked for) is ``value`` to the digits it shows."""
    text = text.replace(MINUS, "-").replace(",", "")
    shown = float(text)
    if float(value).is_integer() and abs(value) < 1e15:
        return text.lstrip("-").isdigit() and shown == value  # an integer as an integer
    mantissa = text.split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    scale = 10 ** int(text.split("e")[1]) if "e" in text else 1
    significant = len(mantissa.replace("-", "").replace(".", "").lstrip("0"))
    if shown == float(f"{value:.6g}"):
        return True  # Plotly's unformatted hover: up to six significant digits, trailing zeros dropped (1 for 0.9999999999999999)
    return significant >= 3 and abs(shown - value) <= 0.5 * 10**-decimals * scale * (1 + 1e-9)


def matches(hover: str, template: str | None, values: dict, loose: set) -> bool:
    """The hover text holds ``template`` filled with ``values`` (placeholders in ``loose``, or
    naming something other than x, y, z, match any text).  Whitespace and markup are ignored."""
    if template is None:  # no template: each number must be on show, as written without a format
        numbers = re.findall(NUMBER, hover)
        return all(any(_shows(n, v) for n in numbers) for k, v in values.items() if k not in loose and isinstance(v, (int, float)) and math.isfinite(v))
    template = re.sub(r"<extra>.*?</extra>", "", template)
    template = re.sub(r"<[^>]+>", "", template).replace(MINUS, "-")
    # (Plotly writes a minus as "-" and sets <sub>/<sup> off with zero-width spaces)
    text = re.sub(r"\s+", "", hover.replace("\u200b", "").replace(MINUS, "-"))
    pieces = re.split(r"(%\{[^}]*\})", re.sub(r"\s+", "", template))
    pattern, checks = "", []
    for piece in pieces:
        placeholder = re.fullmatch(r"%\{(\w+)(?:\[\d+\])?(?::([^}]*))?\}", piece)
        if not placeholder:
            pattern += re.escape(piece)
            continue
        name, spec = placeholder.groups()
        value = values.get(name)
        if name in loose or value is None or (isinstance(value, float) and math.isnan(value)):
            pattern += ".*?"
        elif spec:
            pattern += re.escape(d3_format(value, spec).replace(MINUS, "-"))
        else:
            pattern += NUMBER
            checks.append(value)
    for found in re.finditer(pattern, text):
        if all(_shows(shown, value) for shown, value in zip(found.groups(), checks, strict=True)):
            return True
    return False


# ---- the test -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tab(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.watch = ConsoleWatch(page, base_url)
    track_api(page)
    yield page
    context.close()


def middle_point(values):
    """An index near the middle whose value is a finite number, preferring a non-integer one,
    then a non-zero one."""
    array = numeric(values)
    if array is None or array.ndim != 1:
        return None
    order = sorted(range(array.size), key=lambda k: abs(k - (array.size - 1) / 2))
    finite = [k for k in order if math.isfinite(array[k])]
    fractional = [k for k in finite if not float(array[k]).is_integer()]
    nonzero = [k for k in finite if array[k] != 0]  # a bar of height 0 has nothing to hover
    return (fractional or nonzero or finite or [None])[0]


def hover_at(page, plot_id, px, py, plotly):
    """Move the mouse to (px, py); the text of Plotly's hover label there (``plotly``: after its
    hover event) or of the page's own tooltip, the point Plotly hovered, and the other text."""
    page.mouse.move(2, 2)
    page.evaluate("(id) => { delete window.__hovered[id]; }", plot_id)
    page.mouse.move(px, py)
    text_js = PLOTLY_TEXT_JS if plotly else TOOLTIP_TEXT_JS
    condition = "(id) => Boolean(window.__hovered[id])" if plotly else f"(id) => ({text_js})(id).trim() !== ''"
    try:
        page.wait_for_function(condition, arg=plot_id, timeout=3000)
        page.wait_for_function(f"(id) => ({text_js})(id).trim() !== ''", arg=plot_id, timeout=3000)
    except PlaywrightTimeout:
        pass  # nothing on show: the caller says so, with what there was
    other = page.evaluate(TOOLTIP_TEXT_JS if plotly else PLOTLY_TEXT_JS, plot_id)
    return page.evaluate(text_js, plot_id), page.evaluate("(id) => window.__hovered[id] || null", plot_id), other


def trace_problem(page, plot, arrays, paths):
    """Hover one point of the plot's first hoverable trace; a problem, or None."""
    hoverable = [
        t
        for t in plot["traces"]
        if t["visible"] is True and t["hoverinfo"] not in ("skip", "none") and t["mode"] != "text" and t["type"] in ("scatter", "bar", "heatmap")
        and (t["y"] or t["z"])
    ]
    # Prefer a trace whose numbers the twin holds (the most of its axes found there).
    hoverable.sort(key=lambda t: -sum(1 for axis in "xyz" if (plot["id"], t["i"], axis) in paths))
    for trace in hoverable:
        if trace["type"] == "heatmap":
            z = numeric(trace["z"])
            if z is None:
                continue
            r, c = z.shape[0] // 2, z.shape[1] // 2
            x = trace["x"][c] if trace["x"] else c
            y = trace["y"][r] if trace["y"] else r
        else:
            k = middle_point(trace["x"] if trace["orientation"] == "h" else trace["y"])
            if k is None:
                continue
            x, y = trace["x"][k] if trace["x"] else k, trace["y"][k]
            if trace["type"] == "bar" and not (y if trace["orientation"] == "v" else x):
                continue  # a bar of height 0 has nothing to hover
            if trace["type"] == "bar":
                y = y / 2 if trace["orientation"] == "v" else y
                x = x / 2 if trace["orientation"] == "h" else x
        where = page.evaluate(PIXEL_JS, [plot["id"], trace["xaxis"], trace["yaxis"], x, y])
        if not where["inside"]:
            continue
        hover, hovered, tooltip = hover_at(page, plot["id"], where["px"], where["py"], plotly=True)
        if hovered is None:
            return f"{plot['id']}: no hover at trace {trace['i']} ({x}, {y})"
        if tooltip and plot["traces"][hovered["curve"]]["type"] != "heatmap":
            return f"{plot['id']}: a tooltip of the page's own {tooltip!r} over trace {hovered['curve']} (Plotly's label: {hover!r})"
        shown = plot["traces"][hovered["curve"]]
        point = hovered["point"]
        if not shown["template"] and shown["hoverinfo"] in ("text", "name"):
            return None  # a hover of words only (or none at this point): no number to check
        if not hover.strip():
            return f"{plot['id']}: Plotly shows no hover label at trace {hovered['curve']} point {point}"
        values = {}
        for axis in "xyz":
            data = shown[axis]
            if data is None:
                continue
            path = paths.get((plot["id"], hovered["curve"], axis))
            source = arrays[path] if path else numeric(data)
            if source is None:
                values[axis] = data[point] if not isinstance(point, list) else None
                continue
            values[axis] = float(source[tuple(point)] if isinstance(point, list) else source[point]) if source.ndim == (2 if isinstance(point, list) else 1) else None
        if isinstance(point, list):
            values["x"] = shown["x"][point[1]] if shown["x"] else point[1]
            values["y"] = shown["y"][point[0]] if shown["y"] else point[0]
        loose = {axis for axis in "xy" if where[f"{axis}Category"] or not isinstance(values.get(axis), (int, float))}
        if not matches(hover, shown["template"], values, loose):
            return f"{plot['id']} trace {hovered['curve']} point {point}: hover {hover!r} for {shown['template']!r} with {values}"
        return None
    return "no-trace"


def image_problem(page, plot, twin_by_shape):
    """Hover the centre of one cell of the plot's first layout image; a problem, or None."""
    for image in plot["images"]:
        rows, cols = image["height"], image["width"]
        candidates = twin_by_shape.get((rows, cols), [])
        if not candidates:
            continue
        r, c = rows // 3, cols // 2
        where = page.evaluate(IMAGE_CELL_JS, [plot["id"], image["index"], r, c, rows, cols])
        xd, yd = where["x"], where["y"]
        hover, _, _ = hover_at(page, plot["id"], where["px"], where["py"], plotly=False)
        if not hover.strip():
            return f"{plot['id']}: no tooltip over the image's cell ({r}, {c})"
        # (a pixel centre is the cell centre to a few hundredths of a cell: whole coordinates are whole)
        coords = {"x": round(xd) if abs(xd - round(xd)) < 0.02 else xd, "y": round(yd) if abs(yd - round(yd)) < 0.02 else yd}
        loose = {axis for axis in "xy" if where[f"{axis}Category"]}
        templates = plot["heatmapTemplates"] or [None]
        for _, array in candidates:
            # the cell under the mouse, rows counted from the low end of the y axis
            for row, col in ((r, c), (rows - 1 - r, c), (r, cols - 1 - c), (rows - 1 - r, cols - 1 - c)):
                values = {**coords, "z": float(array[row, col])}
                if any(matches(hover, template, values, loose) for template in templates):
                    return None
        return f"{plot['id']}: tooltip {hover!r} over cell ({r}, {c}) holds no twin array's value there ({[p for p, _ in candidates][:4]})"
    return "no-image"


@pytest.mark.parametrize("name", PAGES)
def test_every_plot_hovers_the_twins_number_as_its_template_writes_it(tab, base_url, name):
    tab.goto(f"{base_url}/{name}")
    settle(tab)
    twin = tab.request.get(twin_url(tab)).json()
    arrays_by_shape = twin_arrays(twin)
    arrays = {path: array for group in arrays_by_shape.values() for path, array in group}
    plots = tab.evaluate(PLOTS_JS)
    tab.evaluate(LISTEN_JS)
    problems, hovered = [], 0
    for plot in plots:
        problems += [f"{plot['id']}: {problem}" for problem in plot["notPlotlys"]]
        tab.locator(f"#{plot['id']}").scroll_into_view_if_needed()
        tab.wait_for_function(SETTLED_JS)  # a plot that waited to come into view is drawn
        paths = {}
        for trace in plot["traces"]:
            for axis in "xyz":
                path = twin_path(trace[axis], arrays_by_shape) if trace[axis] is not None else None
                if path:
                    paths[(plot["id"], trace["i"], axis)] = path
        found = trace_problem(tab, plot, arrays, paths)
        if found == "no-trace":
            found = image_problem(tab, plot, arrays_by_shape)
            if found == "no-image":
                continue  # nothing to hover (guide lines, labels)
        hovered += 1
        if found:
            problems.append(found)
    assert hovered, f"/{name}: no plot has a point or cell to hover"
    assert problems == [], f"/{name}:\n" + "\n".join(problems)
    assert tab.watch.problems == [], tab.watch.problems


@pytest.mark.parametrize(
    ("value", "spec", "text"),
    [(0.12345, ".2%", "12.35%"), (12345.678, ".3e", "1.235e+4"), (1234567, ",d", "1,234,567"), (-0.5, ".4f", "−0.5000"),
     (8.0, ".6g", "8.00000"), (2.2708263, ".5g", "2.2708"), (3.2e-8, ".3g", "3.20e−8")],
)
def test_the_formats_are_d3s(value, spec, text):
    """The expected texts above are d3-format's own (as plotly.js writes them)."""
    assert d3_format(value, spec) == text


def test_the_legend_under_a_plot_hides_and_shows_its_curve_in_plotly(tab, base_url):
    """Pressing an entry of the page's legend hides the curve Plotly draws (legendonly), and
    pressing it again brings it back; Plotly draws no legend of its own meanwhile."""
    tab.goto(f"{base_url}/learned")
    settle(tab)
    tab.locator("#plot-cliff").scroll_into_view_if_needed()
    tab.wait_for_function(SETTLED_JS)
    state_js = """() => { const gd = document.getElementById('plot-cliff');
      return {visible: gd._fullData.map((t) => t.visible), names: gd.data.map((t) => t.name),
              curves: gd.querySelectorAll('.scatterlayer .trace').length, legend: Boolean(gd.querySelector('.infolayer .legend'))}; }"""
    before = tab.evaluate(state_js)
    assert before["visible"][0] is True and before["names"][0].startswith("learned") and not before["legend"], before
    entry = tab.locator("#plot-cliff + .plot-legend button").first
    entry.click()
    tab.wait_for_function("() => document.getElementById('plot-cliff')._fullData[0].visible === 'legendonly'")
    hidden = tab.evaluate(state_js)
    assert hidden["curves"] == before["curves"] - 1 and not hidden["legend"], hidden
    assert entry.get_attribute("aria-pressed") == "false"
    entry.click()
    tab.wait_for_function("() => document.getElementById('plot-cliff')._fullData[0].visible === true")
    assert tab.evaluate(state_js)["curves"] == before["curves"]


def test_a_long_trace_name_keeps_its_hover_label_inside_a_phones_plot(browser, base_url):
    """/spectrum's temperature curves carry names of ~60 characters, which Plotly writes beside
    the hover text: at 390 px wide the label over the longest-named curve stays inside the plot."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.watch = ConsoleWatch(page, base_url)
    page.goto(f"{base_url}/spectrum")
    settle(page)
    page.locator("#plot-temperature").scroll_into_view_if_needed()
    page.wait_for_function(SETTLED_JS)
    points = page.evaluate("""() => {
      const gd = document.getElementById('plot-temperature'), full = gd._fullLayout;
      const traces = gd._fullData.filter((t) => t.visible === true && t.hoverinfo !== 'skip' && t.y && t.y.length > 2);
      const t = traces.sort((a, b) => b.name.length - a.name.length)[0];
      const xa = full.xaxis, ya = full.yaxis, box = gd.getBoundingClientRect();
      return {name: t.name, at: [Math.floor(t.y.length / 2), t.y.length - 1].map((k) =>
        [box.left + xa._offset + xa.d2p(t.x[k]), box.top + ya._offset + ya.d2p(t.y[k])])};
    }""")
    assert len(points["name"].replace("<br>", " ")) > 50, points["name"]  # the case this test is about
    for px, py in points["at"]:
        page.mouse.move(1, 1)
        page.mouse.move(px, py)
        page.wait_for_function("() => document.querySelector('#plot-temperature .hoverlayer .hovertext')")
        label, plot = page.evaluate("""() => [document.querySelector('#plot-temperature .hoverlayer .hovertext'), document.getElementById('plot-temperature')]
          .map((el) => { const r = el.getBoundingClientRect(); return [r.left, r.right]; })""")
        assert plot[0] - 2 <= label[0] and label[1] <= plot[1] + 2, (points["name"], label, plot)
    assert page.watch.problems == [], page.watch.problems
    context.close()

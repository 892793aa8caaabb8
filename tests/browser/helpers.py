"""Small helpers shared by the browser tests."""

from __future__ import annotations

import json
import time

PENDING = "__pending__"

# A plot is drawn when plotly.js has laid it out and static/js/lib/paint.js has recorded the traces
# it shows (window.plotShown(el).traces, static/js/lib/figure.js: the page's traces, heatmaps
# with the numbers behind their image).
PLOT_DRAWN = "(el) => Boolean(el && el._fullLayout && window.plotShown?.(el)?.traces && window.plotShown?.(el)?.traces.length > 0)"
# Plots out of view are drawn when they come into view (paint.js): a waiting one is scrolled to.
ALL_PLOTS_DRAWN = f"""() => {{
    const waiting = document.querySelector('.plot[data-pending]');
    if (waiting) {{ waiting.scrollIntoView({{block: 'center'}}); return false; }}
    return [...document.querySelectorAll('.plot')].every({PLOT_DRAWN});
}}"""
# Every trace as plain lists: {x, y, z, name, type} (typed arrays decoded).
TRACES_JS = """(gd) => {
    const plain = (v) => (v && typeof v === 'object' && 'length' in v ? Array.from(v, plain) : (v === undefined ? null : v));
    return (window.plotShown?.(gd)?.traces || []).map((t) => ({x: plain(t.x), y: plain(t.y), z: plain(t.z), name: t.name ?? null, type: t.type || 'scatter'}));
}"""

# Serialises what a plot shows to one canonical JSON string.  A plot whose update waits for it to
# come into view (data-pending, static/js/lib/paint.js) is scrolled into view, as a reader would,
# and reads as PENDING until it is drawn.
_SNAPSHOT_JS = f"""(id) => {{
    const gd = document.getElementById(id);
    if (gd && gd.dataset.pending !== undefined) {{ gd.scrollIntoView({{block: 'center'}}); return '__pending__'; }}
    if (!({PLOT_DRAWN})(gd)) return null;
    return JSON.stringify(({TRACES_JS})(gd));
}}"""


DRAW_PENDING_JS = """() => {
    if (document.querySelector('[data-restacking]')) return false;
    if (document.documentElement.hasAttribute('data-address-pending')) return false;
    const waiting = document.querySelector('.plot[data-pending]');
    if (waiting) { waiting.scrollIntoView({block: 'center'}); return false; }
    return true;
}"""


def page_sized(warm_context, width: int, height: int):
    """A new page of the warm context (tests/browser/conftest.py: its compiled plotly.js) with this
    viewport; the caller closes it."""
    page = warm_context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    return page


def draw_pending(page) -> None:
    """Scroll each plot whose update waits for it to come into view into view until none waits."""
    page.wait_for_function(DRAW_PENDING_JS)


def snapshot(page, plot_id: str) -> str | None:
    """What the plot shows now (after drawing any update that waited for it to come into view)."""
    page.wait_for_function(f"(id) => ({_SNAPSHOT_JS})(id) !== '{PENDING}'", arg=plot_id)
    return page.evaluate(_SNAPSHOT_JS, plot_id)


def plot_data(page, plot_id: str):
    """The traces plotly.js drew, as plain lists ({x, y, z, name, type} per trace)."""
    text = snapshot(page, plot_id)
    return None if text is None else json.loads(text)


def wait_for_plot(page, plot_id: str) -> None:
    page.wait_for_function(
        f"""(id) => {{ const el = document.getElementById(id);
            if (el && el.dataset.pending !== undefined) el.scrollIntoView({{block: 'center'}});
            return ({PLOT_DRAWN})(el); }}""",
        arg=plot_id,
    )


def wait_for_data_change(page, plot_id: str, before: str) -> None:
    """Wait until the drawn data differs from ``before`` (a ``snapshot``)."""
    page.wait_for_function(
        f"([id, before]) => {{ const now = ({_SNAPSHOT_JS})(id); return now !== before && now !== '{PENDING}'; }}",
        arg=[plot_id, before],
    )


def nudge_slider(page, name: str, key: str = "ArrowRight", times: int = 1) -> None:
    """Move a range input with the keyboard, as a user would (fires input and change)."""
    slider = page.locator(f'input[type="range"][data-param="{name}"]')
    slider.focus()
    for _ in range(times):
        slider.press(key)


def set_box(page, name: str, value: str) -> None:
    """Type a value into a control's number/text box and commit it (input, then change)."""
    box = page.locator(f'[data-param="{name}"][data-role="box"]')
    box.fill(value)
    box.dispatch_event("change")


def wait_for_query(page, fragment: str) -> None:
    page.wait_for_function("(f) => window.location.search.includes(f)", arg=fragment)


def wait_for_data(page, plot_id: str, expected: str) -> None:
    """Wait until the drawn data equals ``expected`` (a ``snapshot``)."""
    page.wait_for_function(f"([id, expected]) => ({_SNAPSHOT_JS})(id) === expected", arg=[plot_id, expected])


_API_TRACKERS: dict[int, dict] = {}


def track_api(page) -> dict:
    """Start counting the page's /api/ requests in flight (call before page.goto)."""
    tracker = _API_TRACKERS.get(id(page))
    if tracker is not None and tracker["page"] is page:
        return tracker
    tracker = {"page": page, "inflight": set(), "last": time.monotonic()}
    _API_TRACKERS[id(page)] = tracker

    def started(request):
        if "/api/" in request.url:
            tracker["inflight"].add(request)
            tracker["last"] = time.monotonic()

    def ended(request):
        if request in tracker["inflight"]:
            tracker["inflight"].discard(request)
            tracker["last"] = time.monotonic()

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    return tracker


def wait_for_quiet_api(page, quiet_ms: int = 500, timeout_ms: int = 30_000) -> None:
    """Wait until no /api/ request of the page is in flight and none has started for quiet_ms.

    Used instead of Playwright's "networkidle": that load state is reached once per navigation (a
    later wait returns at once, whatever the page sends next), and a heatmap's blob: image, whose
    request Chromium never reports as finished, holds it off for good when the image starts
    loading before the page first fell idle.
    """
    tracker = track_api(page)
    deadline = time.monotonic() + timeout_ms / 1000
    while tracker["inflight"] or time.monotonic() - tracker["last"] < quiet_ms / 1000:
        if time.monotonic() > deadline:
            raise AssertionError(f"/api/ requests still in flight after {timeout_ms} ms: {[r.url for r in tracker['inflight']]}")
        page.wait_for_timeout(50)


# ---- what Plotly holds, against the JSON twin (test_traces_twin, test_hover_twin) -----------------
#
# These read Plotly's own state (gd._fullData, gd._fullLayout) and the page's twin link, never the
# drawing library's, so they hold whatever draws the figures.

# Every plot's traces as Plotly draws them ({type, x, y, z} as plain lists) and its layout images
# (placement and their pixels read back through a canvas, as RGBA in base64 and a hash: a heatmap
# drawn as an image).
DRAWN_JS = """async () => {
  const plain = (v) => (v && typeof v === 'object' && 'length' in v && typeof v !== 'string' ? Array.from(v, plain) : (v === undefined ? null : v));
  const pixels = async (source) => {
    const img = new Image();
    img.src = source;
    try { await img.decode(); } catch (error) { return {hash: `not an image (${error.name})`, width: 0, height: 0, rgba: ''}; }
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
    let h = 2166136261, rgb = '';
    for (let i = 0; i < data.length; i++) { h ^= data[i]; h = Math.imul(h, 16777619) >>> 0; }
    if (data.length <= 4 * 262144) {  // the pixels themselves (RGBA, base64) up to 512 × 512
      for (let i = 0; i < data.length; i += 8192) rgb += String.fromCharCode(...data.subarray(i, i + 8192));
      rgb = btoa(rgb);
    }
    return {hash: `${canvas.width}x${canvas.height}:${h.toString(16)}`, width: canvas.width, height: canvas.height, rgba: rgb};
  };
  const out = {};
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const full = gd._fullLayout || {};
    const traces = (gd._fullData || []).map((t) => ({type: t.type, visible: t.visible, x: plain(t.x), y: plain(t.y), z: plain(t.z),
      // What an image heatmap leaves Plotly: invisible corner markers, or (with a colour bar) a
      // transparent 2 x 2 heatmap carrying the bar; both span the cells' corners and answer no hover.
      unseen: t.hoverinfo === 'skip' && ((t.mode === 'markers' && (t.marker || {}).opacity === 0) || (t.type === 'heatmap' && t.opacity === 0))}));
    const images = [];
    for (const im of full.images || []) {
      if (im.visible === false) continue;
      images.push({x: im.x, y: im.y, sizex: im.sizex, sizey: im.sizey, xref: im.xref, yref: im.yref, pixels: await pixels(im.source)});
    }
    out[gd.id] = {traces, images};
  }
  return out;
}"""

SETTLED_JS = """() => {
  if (document.querySelector('.figures.is-busy')) return false;
  if (document.documentElement.hasAttribute('data-address-pending')) return false;
  const waiting = document.querySelector('.plot[data-pending]');
  if (waiting) { waiting.scrollIntoView({block: 'center'}); return false; }
  return [...document.querySelectorAll('.plot')].every((el) => el._fullLayout);
}"""


def settle(page, quiet_ms: int = 150) -> None:
    """Wait for the page's /api/ requests to end, every plot to be drawn (a plot waiting to come
    into view is scrolled to) and two frames to pass (what follows a draw lands by then)."""
    wait_for_quiet_api(page, quiet_ms=quiet_ms)
    page.wait_for_function(SETTLED_JS)
    page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")


def twin_url(page) -> str:
    """The JSON twin of what the page shows now (its toolbar's JSON link)."""
    return page.locator('[data-role="json-twin"]').first.evaluate("(a) => a.href")


def numeric(values):
    """A list (or list of lists) of numbers and nulls as a float array (null → NaN), else None."""
    import numpy as np

    if not isinstance(values, list) or not values:
        return None
    rows = values if isinstance(values[0], list) else None
    flat = [v for row in values for v in row] if rows is not None else values
    if rows is not None and (not all(isinstance(row, list) for row in values) or len({len(row) for row in values}) != 1):
        return None
    if not flat or not all((isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None for v in flat):
        return None
    array = np.array([np.nan if v is None else v for v in flat], dtype=float)
    return array.reshape(len(values), -1) if rows is not None else array


def twin_arrays(twin) -> dict:
    """Every numeric array of a twin by its path (``.a.b``, ``.m[3]`` a row, ``.m[:,3]`` a column,
    ``.items[].f`` a field across a list of objects), grouped by shape."""
    found: dict = {}

    def add(path, array):
        found.setdefault(array.shape, []).append((path, array))

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}")
            return
        if not isinstance(node, list) or not node:
            return
        array = numeric(node)
        if array is not None:
            add(path, array)
            if array.ndim == 2:
                for i in range(array.shape[0]):
                    add(f"{path}[{i}]", array[i])
                for j in range(array.shape[1]):
                    add(f"{path}[:,{j}]", array[:, j])
            return
        if all(isinstance(item, dict) for item in node):
            for key in node[0]:
                walk([item.get(key) for item in node], f"{path}[].{key}")
        for i, item in enumerate(node):
            walk(item, f"{path}[{i}]")

    walk(twin, "")
    return found


def same_numbers(a, b, rtol: float = 1.2e-7) -> bool:
    """Equal shapes and values within float32 rounding (NaN equal to NaN)."""
    import numpy as np

    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=1e-300, equal_nan=True))


def twin_path(values, arrays: dict, prefer: str | None = None) -> str | None:
    """The path of a twin array equal to ``values`` (``prefer`` first), or None."""
    array = numeric(values)
    if array is None:
        return None
    candidates = arrays.get(array.shape, [])
    for path, candidate in sorted(candidates, key=lambda item: item[0] != prefer):
        if same_numbers(array, candidate):
            return path
    return None


def image_pixels(image):
    """A DRAWN_JS image's pixels as a (height, width, 4) uint8 array, or None if not sent."""
    import base64

    import numpy as np

    pixels = image["pixels"]
    if not pixels["rgba"]:
        return None
    raw = np.frombuffer(base64.b64decode(pixels["rgba"]), dtype=np.uint8)
    return raw.reshape(pixels["height"], pixels["width"], 4)


def colours_follow(values, pixels) -> bool:
    """Whether ``pixels`` (h, w, 4) draw ``values`` (h, w) through some colour scale: the cells of
    one colour hold one band of values, and the bands of different colours do not overlap (a scale
    maps each value to one colour and bands of values to neighbouring colours).  Cells without a
    value (NaN) are left out; at most one colour-step of overlap is allowed for rounding."""
    import numpy as np

    finite = np.isfinite(values)
    if not finite.any():
        return True
    keys = (pixels[..., 0].astype(np.int64) << 16 | pixels[..., 1].astype(np.int64) << 8 | pixels[..., 2])[finite]
    z = values[finite]
    order = np.lexsort((z, keys))
    keys, z = keys[order], z[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    ends = np.r_[starts[1:], keys.size] - 1
    lows, highs = z[starts], z[ends]
    band = np.argsort(lows, kind="stable")
    lows, highs = lows[band], highs[band]
    span = float(z.max() - z.min()) or 1.0
    slack = span / 255 + 1e-12 * span
    return bool(np.all(lows[1:] >= np.maximum.accumulate(highs)[:-1] - slack))


# ---- counts instead of sleeps: what the page itself sent, and when it has gone idle ------------

# The page's own record of its /api/ fetches (every one of them goes through window.fetch: api.js),
# installed before its scripts run.  Read inside the page, the record is exact at the moment it is
# read; Playwright's request events reach the test later.
COUNT_API_INIT = """(() => {
  const api = { sent: [], inflight: 0 };
  window.__api = api;
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.includes('/api/')) return original(input, init);
    api.sent.push(url);
    api.inflight += 1;
    try { return await original(input, init); } finally { api.inflight -= 1; }
  };
})()"""

# Two animation frames and a task after them: whatever the page queued for its next frame has run.
_FRAMES_JS = """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(window.__api.sent.length)))))"""


def count_api(page) -> None:
    """Keep the page's record of its /api/ fetches (window.__api); call before page.goto."""
    page.add_init_script(COUNT_API_INIT)


def api_sent(page) -> list[str]:
    """The /api/ URLs the page has fetched so far, as the page recorded them."""
    return page.evaluate("() => window.__api.sent.slice()")


def wait_until_idle(page, rounds: int = 50) -> None:
    """Wait until the page has nothing left to do: no /api/ fetch in flight, and a round of two
    frames and a task started none.  Bounded by ``rounds`` such rounds (events, not a duration)."""
    for _ in range(rounds):
        page.wait_for_function("() => window.__api.inflight === 0")
        before = page.evaluate("() => window.__api.sent.length")
        if page.evaluate(_FRAMES_JS) == before and page.evaluate("() => window.__api.inflight === 0"):
            return
    raise AssertionError(f"the page was still fetching after {rounds} rounds of frames: {api_sent(page)[-5:]}")


def moved_and_fresh_tabs(browser, base_url: str):
    """A context at 1280 × 900 with two watched tabs: one whose controls a test moves, one for
    fresh loads of the same address to compare with.  Returns (context, moved, fresh)."""
    from tests.browser.conftest import ConsoleWatch

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    moved, fresh = context.new_page(), context.new_page()
    for tab in (moved, fresh):
        tab.watch = ConsoleWatch(tab, base_url)
        track_api(tab)
    return context, moved, fresh

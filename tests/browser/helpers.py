"""Small helpers shared by the browser tests."""

from __future__ import annotations

import json
import time

PENDING = "__pending__"

# A plot is drawn when plotly.js has laid it out and static/js/lib/plot.js has recorded the traces
# it shows (el._shown: the page's traces, heatmaps with the numbers behind their image).
PLOT_DRAWN = "(el) => Boolean(el && el._fullLayout && el._shown && el._shown.length > 0)"
# Plots out of view are drawn when they come into view (plot.js): a waiting one is scrolled to.
ALL_PLOTS_DRAWN = f"""() => {{
    const waiting = document.querySelector('.plot[data-pending]');
    if (waiting) {{ waiting.scrollIntoView({{block: 'center'}}); return false; }}
    return [...document.querySelectorAll('.plot')].every({PLOT_DRAWN});
}}"""
# Every trace as plain lists: {x, y, z, name, type} (typed arrays decoded).
TRACES_JS = """(gd) => {
    const plain = (v) => (v && typeof v === 'object' && 'length' in v ? Array.from(v, plain) : (v === undefined ? null : v));
    return (gd._shown || []).map((t) => ({x: plain(t.x), y: plain(t.y), z: plain(t.z), name: t.name ?? null, type: t.type || 'scatter'}));
}"""

# Serialises what a plot shows to one canonical JSON string.  A plot whose update waits for it to
# come into view (data-pending, static/js/lib/plot.js) is scrolled into view, as a reader would,
# and reads as PENDING until it is drawn.
_SNAPSHOT_JS = f"""(id) => {{
    const gd = document.getElementById(id);
    if (gd && gd.dataset.pending !== undefined) {{ gd.scrollIntoView({{block: 'center'}}); return '__pending__'; }}
    if (!({PLOT_DRAWN})(gd)) return null;
    return JSON.stringify(({TRACES_JS})(gd));
}}"""


DRAW_PENDING_JS = """() => {
    const waiting = document.querySelector('.plot[data-pending]');
    if (waiting) { waiting.scrollIntoView({block: 'center'}); return false; }
    return true;
}"""


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

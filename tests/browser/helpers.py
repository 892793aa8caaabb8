"""Small helpers shared by the browser tests."""

from __future__ import annotations

import json

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

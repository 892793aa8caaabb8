"""Opening lessons: time to the first plot on a first visit (empty cache) and when moving from one
lesson to the next with a warm browser cache.

Both are read in the browser, on one clock for both documents (``performance.timeOrigin +
performance.now()``, milliseconds since the epoch):

- **first plot**: an init script watches the new document from its first byte; the first plot is
  the moment an element ``.plot`` first holds a Plotly SVG (``.main-svg``).  A prerendered page
  (Speculation Rules) may draw before the reader asks for it: it is shown at its activation, so
  its first plot counts from ``max(first plot, activationStart)``.
- **first visit**: a new browser context (nothing cached) goes to the lesson's address; the time is
  from the navigation's start to the first plot.
- **next lesson**: in one context that has opened every lesson twice (HTTP cache and V8's code
  cache warm, as after a few minutes of class), the reader is on lesson A and clicks the header
  link to lesson B: from the click to B's first plot.  Measured two ways: pointer moved onto the
  link 250 ms before the press (what a hand does), and a press with no hover before it.
"""

from __future__ import annotations

import statistics
import sys

from bench.browser import launch, quiet_network

FIRST_PLOT_INIT = """(() => {
  const mark = () => {
    if (window.__firstPlot) return true;
    const svg = document.querySelector('.plot .main-svg');
    if (!svg) return false;
    window.__firstPlot = performance.timeOrigin + performance.now();
    return true;
  };
  const watch = () => {
    if (mark()) return;
    new MutationObserver((records, observer) => { if (mark()) observer.disconnect(); })
      .observe(document, { subtree: true, childList: true });
  };
  if (document.documentElement) watch(); else document.addEventListener('readystatechange', watch, { once: true });
})();"""

SHOWN_AT_JS = """() => {
  const entry = performance.getEntriesByType('navigation')[0];
  const activated = entry && entry.activationStart > 0 ? performance.timeOrigin + entry.activationStart : 0;
  return window.__firstPlot ? Math.max(window.__firstPlot, activated) : null;
}"""


def _wait_first_plot(page, timeout=20000):
    page.wait_for_function("() => Boolean(window.__firstPlot)", timeout=timeout)
    return page.evaluate(SHOWN_AT_JS)


def first_visits(browser, base: str, names: list[str], runs: int = 2) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name in names:
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(FIRST_PLOT_INIT)
            page = context.new_page()
            page.goto(f"{base}/{name}", wait_until="commit")
            shown = _wait_first_plot(page)
            start = page.evaluate("() => performance.timeOrigin")
            out.setdefault(name, []).append(shown - start)
            context.close()
    return out


def next_lessons(browser, base: str, names: list[str], hover_ms: int) -> dict[str, list[float]]:
    return next_lessons_side_by_side(browser, [base], names, hover_ms)[0]


def _click_through(page, base: str, previous: str, name: str, hover_ms: int) -> float:
    page.goto(f"{base}/{previous}")
    _wait_first_plot(page)
    quiet_network(page)
    link = page.locator(f'.lesson-nav a[href="/{name}"]')
    if hover_ms:
        link.hover()
        page.wait_for_timeout(hover_ms)
    clicked = page.evaluate("() => performance.timeOrigin + performance.now()")
    link.click()
    page.wait_for_url(f"**/{name}")
    return _wait_first_plot(page) - clicked


def next_lessons_side_by_side(browser, bases: list[str], names: list[str], hover_ms: int) -> list[dict[str, list[float]]]:
    """Next lesson on each server in ``bases`` (one warm context each), the servers taking turns
    lesson by lesson, the order flipping each time, so load on the machine falls on all alike."""
    pages = []
    for base in bases:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(FIRST_PLOT_INIT)
        page = context.new_page()
        for _ in range(2):  # warm: HTTP cache, and V8 caches the compiled code of a script seen twice
            for name in names:
                page.goto(f"{base}/{name}")
                _wait_first_plot(page)
        pages.append(page)
    out: list[dict[str, list[float]]] = [{} for _ in bases]
    turn = 0
    for _ in range(2):
        for previous, name in zip([names[-1], *names[:-1]], names, strict=True):
            order = list(range(len(bases)))
            for index in (order if turn % 2 == 0 else order[::-1]):
                out[index].setdefault(name, []).append(_click_through(pages[index], bases[index], previous, name, hover_ms))
            turn += 1
    for page in pages:
        page.context.close()
    return out


def run(report, quick: bool = False, only: list[str] | None = None) -> str:
    from playwright.sync_api import sync_playwright

    from app.web.views import discover
    from bench.server import explorer

    names = [view.name for view in discover() if not only or view.name in only]
    lines = ["| lesson | first visit (ms) | next lesson, hover 250 ms then click (ms) | next lesson, click (ms) |", "|---|---|---|---|"]
    with explorer(workers=2) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        print("[navigation] first visits", file=sys.stderr, flush=True)
        first = first_visits(browser, base, names, runs=1 if quick else 3)
        print("[navigation] next lesson, hovered", file=sys.stderr, flush=True)
        hovered = next_lessons(browser, base, names, hover_ms=250)
        print("[navigation] next lesson, clicked", file=sys.stderr, flush=True)
        clicked = next_lessons(browser, base, names, hover_ms=0)
        browser.close()
    for name in names:
        lines.append(
            f"| /{name} | {statistics.median(first[name]):.0f} | {statistics.median(hovered[name]):.0f} | {statistics.median(clicked[name]):.0f} |"
        )
    worst_first = max(statistics.median(values) for values in first.values())
    median_first = statistics.median([v for values in first.values() for v in values])
    report.add("navigation", "first visit of the site: navigation → first plot (empty cache)",
               f"median {median_first:.0f} ms over every lesson; slowest lesson's median {worst_first:.0f} ms", "≤ 1500 ms", worst_first <= 1500)
    for label, values in (("hovering the link 250 ms, then clicking", hovered), ("clicking at once", clicked)):
        medians = {name: statistics.median(v) for name, v in values.items()}
        worst = max(medians, key=lambda name: medians[name])
        report.add("navigation", f"next lesson (warm cache), {label}: click → first plot",
                   f"median {statistics.median(list(medians.values())):.0f} ms; slowest /{worst} {medians[worst]:.0f} ms", "≤ 300 ms median on every page",
                   medians[worst] <= 300)
    return "\n".join(lines)

"""Slider input → plot redrawn, in headless Chromium driven by Playwright; bytes per update.

For every registered view (``app.web.views.discover()``) the page is opened at its defaults and
every visible range slider is moved through real values: outward from the default, alternately
up and down (+1, −1, +2, −2, … steps, skipping slider positions that give the same parameter
value), so every move changes the data and no URL repeats (nothing is answered from the HTTP
cache or the page's own "same query" shortcut).  The page is reloaded before each slider, so each
starts from the defaults; one unrecorded warm-up move precedes each slider's measured moves.

Latency of one move = (time of the last change of any plot's DOM, seen by a MutationObserver)
− (``performance.now()`` taken just before ``input.dispatchEvent``), both read in the page.  A
redraw is over when no plot's DOM has changed for ``QUIET_MS``, so pages with several plots count
until every plot that redraws has finished, which is what the reader sees, and any drawing path
(Plotly's SVG, a swapped image) is measured the same way.  The window is
1280 × 900 and the page's first plot is scrolled into view if it is not (the calculator's sits
below its table); plots out of view are redrawn when they come into view (static/js/lib/plot.js),
so a move counts the plots a reader sees.

Bytes per update: Chromium's encoded response body size of each ``/api/`` request the moves
caused (gzip when the server compressed it), from ``request.sizes()``.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

from bench.asgi import percentile

QUIET_MS = 120
TIMEOUT_MS = 8000
UNCHANGED_MS = 2000

# Every change of a plot's DOM, whatever draws it (Plotly's SVG, a swapped heatmap image, an
# attribute), is timed by a MutationObserver on each plot element: a move is over when no plot has
# changed for QUIET_MS, and its latency is the time of the last change.
INSTRUMENT_JS = """() => {
  if (window.__bench) return true;
  const B = window.__bench = { changes: [], watched: new WeakSet() };
  const observer = new MutationObserver((records) => {
    const t = performance.now();
    for (const record of records) {
      const plot = record.target.closest ? record.target.closest('.js-plotly-plot') : record.target.parentElement?.closest('.js-plotly-plot');
      if (plot) B.changes.push({ id: plot.id || '?', t });
    }
  });
  B.hook = () => {
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
      if (!B.watched.has(gd)) {
        B.watched.add(gd);
        observer.observe(gd, { subtree: true, childList: true, attributes: true, characterData: true });
      }
    }
  };
  B.hook();
  return true;
}"""

# Slider positions, outward from the current value in alternating directions, whose parameter
# value (as the page reads it: log sliders keep 3 significant digits) differs from all before.
POSITIONS_JS = """([selector, count]) => {
  const input = document.querySelector(selector);
  const boot = document.getElementById('page-data');
  const fields = boot ? JSON.parse(boot.textContent).fields : [];
  const field = fields.find((f) => f.name === input.dataset.param);
  const integer = field ? field.type === 'integer' : true;
  const log = input.dataset.scale === 'log';
  const key = (raw) => {
    const v = Number(raw);
    if (!log) return String(v);
    const r = Number((10 ** v).toPrecision(3));
    return String(integer ? Math.round(r) : r);
  };
  const min = Number(input.min), max = Number(input.max);
  const step = input.step === 'any' || !input.step ? (max - min) / 200 : Number(input.step);
  const original = input.value;
  const start = Number(original);
  const seen = new Set([key(original)]);
  const sides = { up: [], down: [] };
  for (const [side, sign] of [['up', 1], ['down', -1]]) {
    for (let i = 1; sides[side].length < count; i++) {
      const target = start + sign * i * step;
      if (target > max + 1e-9 || target < min - 1e-9) break;
      input.value = String(target);
      const actual = input.value;
      const k = key(actual);
      if (seen.has(k)) continue;
      seen.add(k);
      sides[side].push(actual);
    }
  }
  input.value = original;
  const out = [];
  for (let i = 0; out.length < count && (i < sides.up.length || i < sides.down.length); i++) {
    if (i < sides.up.length) out.push(sides.up[i]);
    if (i < sides.down.length && out.length < count) out.push(sides.down[i]);
  }
  return out;
}"""

MOVE_JS = """async ([selector, position, quietMs, timeoutMs, unchangedMs]) => {
  const B = window.__bench;
  B.hook();
  const input = document.querySelector(selector);
  B.changes = [];
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  setter.call(input, position);
  const t0 = performance.now();
  input.dispatchEvent(new Event('input', { bubbles: true }));
  return await new Promise((resolve) => {
    const check = () => {
      B.hook();
      const now = performance.now();
      if (B.changes.length) {
        const last = B.changes[B.changes.length - 1].t;
        if (now - last >= quietMs) {
          return resolve({ first: B.changes[0].t - t0, last: last - t0, count: B.changes.length,
                           plots: [...new Set(B.changes.map((a) => a.id))] });
        }
      } else if (now - t0 > 300) {
        const err = document.querySelector('.control.has-error .control-error, [data-role="status"].is-error');
        if (err && err.textContent.trim()) return resolve({ error: err.textContent.trim().slice(0, 160) });
        // Plots are not redrawn when their figure did not change (plot.js): a slider that only
        // moves readouts or tables changes no plot's DOM at all.
        if (now - t0 > unchangedMs && !document.querySelector('.figures.is-busy')) return resolve({ unchanged: true });
      }
      if (now - t0 > timeoutMs) return resolve({ timeout: true });
      setTimeout(check, 4);
    };
    setTimeout(check, 4);
  });
}"""

READY_JS = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  return plots.length > 0 && plots.every((gd) => gd._fullData && gd._fullLayout);
}"""


@dataclass
class SliderRun:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unchanged: int = 0  # moves after which no plot's figure changed (nothing to redraw; not timed)


@dataclass
class PageRun:
    label: str
    url: str
    sliders: list[SliderRun] = field(default_factory=list)
    bytes: list[int] = field(default_factory=list)
    encodings: set[str] = field(default_factory=set)
    problem: str = ""

    @property
    def latencies(self) -> list[float]:
        return [value for slider in self.sliders for value in slider.latencies]

    def p(self, q: float) -> float:
        values = self.latencies
        return percentile(values, q) if values else math.nan


def launch(playwright):
    from tests.browser.conftest import CHROMIUM_ARGS, chromium_path

    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


FIRST_PLOT_IN_VIEW_JS = """() => {
  const plot = document.querySelector('.js-plotly-plot');
  if (!plot) return;
  const box = plot.getBoundingClientRect();
  if (box.top >= innerHeight || box.bottom <= 0) plot.scrollIntoView({block: 'end'});
}"""


def quiet_network(page) -> None:
    """No /api/ request in flight or started for 500 ms.  Not Playwright's "networkidle": a heatmap's
    blob: image whose request Chromium never reports as finished holds that state off for good on
    some loads (tests/browser/helpers.py wait_for_quiet_api, which this is)."""
    from tests.browser.helpers import wait_for_quiet_api

    wait_for_quiet_api(page)


def _open(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # Every measured move must reach the server and draw: the page's fetching of neighbouring
    # slider values ahead (static/js/lib/page.js) is switched off, so no move is answered from it.
    context.add_init_script("window.__noPrefetch = true;")
    page = context.new_page()
    api_requests = []

    def finished(request) -> None:
        if "/api/" in request.url or "_dash-update-component" in request.url:
            api_requests.append(request)

    page.on("requestfinished", finished)
    page.goto(url, wait_until="load")
    page.wait_for_function(READY_JS, timeout=30000)
    quiet_network(page)
    page.evaluate(FIRST_PLOT_IN_VIEW_JS)
    page.evaluate(INSTRUMENT_JS)
    return context, page, api_requests


def _record_bytes(run: PageRun, requests: list) -> None:
    for request in requests:
        try:
            response = request.response()
            sizes = request.sizes()
        except Exception:  # noqa: BLE001
            continue
        if response is None or response.status >= 400:
            continue
        run.bytes.append(int(sizes.get("responseBodySize", 0)))
        run.encodings.add(response.headers.get("content-encoding", "identity"))
    requests.clear()


def _has_slider(page, selector: str) -> bool:
    return bool(page.evaluate("(s) => { const e = document.querySelector(s); return Boolean(e && e.offsetParent !== null && !e.disabled); }", selector))


def measure_page(browser, label: str, url: str, slider_selectors: list[str] | None, moves_per_page: int,
                 exclude: tuple[str, ...] = ()) -> PageRun:
    return measure_pages(browser, [(label, url)], slider_selectors, moves_per_page, exclude)[0]


def measure_pages(browser, targets: list[tuple[str, str]], slider_selectors: list[str] | None, moves_per_page: int,
                  exclude: tuple[str, ...] = ()) -> list[PageRun]:
    """Every slider of the first target's page, moved on every target's page (the same page served
    by different trees), the targets' moves interleaved one by one: move k on each target, then
    move k + 1 on each in the reverse order, so a burst of load on the machine falls on all of them
    alike."""
    runs = [PageRun(label, url) for label, url in targets]
    opened = []
    for run in runs:
        try:
            opened.append(_open(browser, run.url))
        except Exception as exc:  # noqa: BLE001 - a page that does not load is a result
            run.problem = f"page did not load: {str(exc).splitlines()[0][:160]}"
            opened.append(None)
    if opened[0] is None:
        for item in opened[1:]:
            if item is not None:
                item[0].close()
        return runs
    if slider_selectors is None:
        names = opened[0][1].eval_on_selector_all(
            "#controls input[type=range][data-param]",
            "els => els.filter(e => e.offsetParent !== null && !e.disabled).map(e => e.dataset.param)",
        )
        slider_selectors = [f'#controls input[type=range][data-param="{name}"]' for name in names if name not in exclude]
    if not slider_selectors:
        runs[0].problem = "no slider on the page"
    per_slider = max(10, math.ceil(moves_per_page / max(1, len(slider_selectors))))
    for number, selector in enumerate(slider_selectors):
        if number:  # back to the defaults for each slider
            for index, item in enumerate(opened):
                if item is not None:
                    item[0].close()
                    opened[index] = _open(browser, runs[index].url)
        name = selector.split('data-param="')[-1].rstrip('"]') if "data-param" in selector else selector.lstrip("#")
        plans: list[list[Any]] = []  # each page's slider positions
        for run, item in zip(runs, opened, strict=True):
            if item is None:
                plans.append([])
                continue
            slider = SliderRun(name)
            run.sliders.append(slider)
            if not _has_slider(item[1], selector):
                slider.errors.append("no such slider on this page")
                plans.append([])
                continue
            positions = item[1].evaluate(POSITIONS_JS, [selector, per_slider + 1])
            if len(positions) < 2:
                slider.errors.append("fewer than two distinct values")
                positions = []
            plans.append(positions)
        for index in range(max(len(plan) for plan in plans)):
            # the order flips from move to move: work a page leaves after its redraw (a late
            # request, a collection) falls on the next target's move as often as on the previous
            turn = list(zip(runs, opened, plans, strict=True))
            for run, item, plan in (turn if index % 2 == 0 else turn[::-1]):
                if index >= len(plan):
                    continue
                result = item[1].evaluate(MOVE_JS, [selector, plan[index], QUIET_MS, TIMEOUT_MS, UNCHANGED_MS])
                if index == 0:
                    continue  # warm-up move, not recorded
                slider = run.sliders[-1]
                if "last" in result:
                    slider.latencies.append(result["last"])
                elif "unchanged" in result:
                    slider.unchanged += 1
                elif "error" in result:
                    slider.errors.append(f"{plan[index]}: {result['error']}")
                else:
                    slider.errors.append(f"{plan[index]}: no redraw within {TIMEOUT_MS} ms")
        for run, item in zip(runs, opened, strict=True):
            if item is None or not run.sliders:
                continue
            quiet_network(item[1])
            _record_bytes(run, item[2])
            values = run.sliders[-1].latencies
            print(f"    {run.label} {name}: {len(values)} moves, p50 {percentile(values, 50) if values else math.nan:.1f} ms, "
                  f"p95 {percentile(values, 95) if values else math.nan:.1f} ms, {len(run.sliders[-1].errors)} errors",
                  file=sys.stderr, flush=True)
    for item in opened:
        if item is not None:
            item[0].close()
    return runs

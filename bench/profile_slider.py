"""Where a page's first-slider redraw spends its time: CPU profile of each move, two trees side by side.

For each page, on each served tree (e.g. the old figure compiler and the new marks), the page is
opened in headless Chromium (1280 × 800, ``window.__noPrefetch = true`` so every move fetches),
its first visible range slider is moved once unrecorded, then through ``--moves`` new values
(outward from the default, as bench/browser.py moves it; the first slider with that many distinct
values).  The moves run under V8's sampling profiler (CDP ``Profiler``, 100 µs; one profile over
all of them, cut into each move's latency window) and each is timed as bench/browser.py times it:
from just before the ``input`` event to the last change of any plot's DOM, the move being over
when no plot has changed for 120 ms.

Reported per page and tree: median latency; Plotly API calls per move by kind (react, restyle, …,
counted at the outermost call only, by wrapping ``window.Plotly`` in an init script); the
``/api/`` request time within the move (resource timing, start to response end); and the profile's
samples inside the latency window split by where they ran: plotly.min.js, the app's own modules
(/static/), other JS (the bench's own polling, native builtins), "(program)" (the browser's own
work outside JS: style, layout, paint, tasks), "(garbage collector)" and "(idle)" (the main thread
waiting: for the network, a timer or a frame).  Then the top self-time functions
(name, file, line) summed over the moves.

    python -m bench.profile_slider --tree old=http://127.0.0.1:8801 --tree new=http://127.0.0.1:8802 \\
        /rotation /why /offsets
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.browser import (
    FIRST_PLOT_IN_VIEW_JS,
    INSTRUMENT_JS,
    MOVE_JS,
    POSITIONS_JS,
    QUIET_MS,
    READY_JS,
    TIMEOUT_MS,
    UNCHANGED_MS,
)

SAMPLING_US = 100
MARK_FUNCTION = "__profileMark"
# the move as bench/browser.py makes it, a recognisable spin of 0.5 ms just before its t0
MARKED_MOVE_JS = MOVE_JS.replace(
    "const t0 = performance.now();",
    "(function __profileMark() { const end = performance.now() + 0.5; while (performance.now() < end); })();\n"
    "  const t0 = performance.now(); window.__t0 = t0;",
)
assert MARKED_MOVE_JS != MOVE_JS
SLIDERS = "#controls input[type=range][data-param], input[type=range]"

# Counts the outermost calls of Plotly's drawing API.  plotly.min.js assigns ``window.Plotly``; its
# exports are getters that cannot be reassigned, so the page is handed a Proxy that wraps them.
PLOTLY_COUNTER_JS = """(() => {
  const kinds = ['newPlot', 'react', 'restyle', 'relayout', 'update', 'animate', 'purge',
                 'extendTraces', 'addTraces', 'deleteTraces', 'redraw'];
  window.__plotlyCalls = {};
  let depth = 0;
  const wrappers = new Map();
  const wrap = (real) => {
    if (!real || real.__isCounted) return real;
    return new Proxy(real, {
      get(target, key, receiver) {
        if (key === '__isCounted') return true;
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function' || !kinds.includes(key)) return value;
        if (!wrappers.has(key)) {
          wrappers.set(key, function (...args) {
            if (depth === 0) window.__plotlyCalls[key] = (window.__plotlyCalls[key] || 0) + 1;
            depth += 1;
            try { return Reflect.get(target, key).apply(this, args); } finally { depth -= 1; }
          });
        }
        return wrappers.get(key);
      },
    });
  };
  let stored;
  Object.defineProperty(window, 'Plotly', {
    configurable: true, enumerable: true,
    get() { return stored; }, set(value) { stored = wrap(value); },
  });
})();"""

# The /api/ requests that started at or after t0 (page time): their start-to-response-end time.
API_TIMES_JS = """(t0) => performance.getEntriesByType('resource')
  .filter((e) => e.name.includes('/api/') && e.startTime >= t0 - 1)
  .map((e) => ({ start: e.startTime - t0, end: e.responseEnd - t0 }))"""

CATEGORIES = ("plotly.js", "app JS", "other JS", "(program)", "(garbage collector)", "(idle)")


@dataclass
class TreeRun:
    label: str
    slider: str = ""
    latencies: list[float] = field(default_factory=list)
    api_ms: list[float] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    profiled: int = 0  # moves whose window was found in their profile
    split: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # ms in the windows
    functions: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # self ms in them
    problems: list[str] = field(default_factory=list)


def own_category(frame: dict[str, Any]) -> str | None:
    name, url = frame.get("functionName", ""), frame.get("url", "")
    if name in ("(program)", "(garbage collector)", "(idle)"):
        return name
    if "plotly" in url:
        return "plotly.js"
    if url.endswith(".js") and "/js/" in url:
        return "app JS"
    return None if not url else "other JS"


def function_key(frame: dict[str, Any]) -> str:
    url = frame.get("url", "")
    base = url.rsplit("/", 1)[-1].split("?", 1)[0] if url else ""
    name = frame.get("functionName") or "(anonymous)"
    return f"{name} {base}:{frame.get('lineNumber', -1) + 1}" if base else name


def window_samples(profile: dict[str, Any], windows: list[tuple[float, float]]) -> list[list[tuple[str, str, float]]]:
    """Per move, (category, function, self µs) of every sample in its window (t0, t0 + latency, page ms).

    One profile spans all the moves (V8 takes its first sample up to ~200 ms after a start).  The
    page's clock and the profile's differ by an offset found from MARK_FUNCTION, which spins just
    before each move's t0: the offset that most mark samples agree on (to 1 ms).  A native function
    (no script URL: a layout forced by getBoundingClientRect, setAttribute) counts in the category
    of its nearest caller that has one, named with it; samples with no script on the stack (the
    bench's own evaluated code, builtins) are "other JS".
    """
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    samples, deltas = profile.get("samples", []), profile.get("timeDeltas", [])
    times, t = [], float(profile["startTime"])
    for delta in deltas:
        t += delta
        times.append(t)
    marks = [times[i] for i, sample in enumerate(samples) if frames[sample].get("functionName") == MARK_FUNCTION]
    votes: Counter[int] = Counter()
    for mark in marks:
        for start, _ in windows:
            votes[round((mark - start * 1000) / 1000)] += 1
    if not votes:
        return [[] for _ in windows]
    offset = votes.most_common(1)[0][0] * 1000

    def classify(node: int) -> tuple[str, str]:
        frame = frames[node]
        own = own_category(frame)
        if own is not None:
            return own, function_key(frame)
        up = parent.get(node)
        while up is not None and own_category(frames[up]) is None:
            up = parent.get(up)
        if up is None:
            return "other JS", function_key(frame)
        return own_category(frames[up]) or "other JS", f"{function_key(frame)} < {function_key(frames[up])}"

    out: list[list[tuple[str, str, float]]] = []
    for start, end in windows:
        begin, stop = start * 1000 + offset, end * 1000 + offset
        found = []
        for index, sample in enumerate(samples):
            if begin < times[index] <= stop and frames[sample].get("functionName") != MARK_FUNCTION:
                # a sample's self time is the interval until the next sample
                nxt = deltas[index + 1] if index + 1 < len(deltas) else 0
                found.append((*classify(sample), float(nxt)))
        out.append(found)
    return out


def open_page(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script("window.__noPrefetch = true;")
    context.add_init_script(PLOTLY_COUNTER_JS)
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.wait_for_function(READY_JS, timeout=30000)
    from tests.browser.helpers import wait_for_quiet_api

    wait_for_quiet_api(page)
    page.evaluate(FIRST_PLOT_IN_VIEW_JS)
    page.evaluate(INSTRUMENT_JS)
    return context, page


def first_slider(page, count: int) -> tuple[str, list[Any]] | None:
    """The first visible slider with `count` distinct values (else the one with most), its positions."""
    names = page.eval_on_selector_all(
        "#controls input[type=range][data-param]",
        "els => els.filter(e => e.offsetParent !== null && !e.disabled).map(e => e.dataset.param)",
    )
    best: tuple[str, list[Any]] | None = None
    for name in names:
        selector = f'#controls input[type=range][data-param="{name}"]'
        positions = page.evaluate(POSITIONS_JS, [selector, count])
        if best is None or len(positions) > len(best[1]):
            best = (selector, positions)
        if len(positions) >= count:
            break
    return best


def profile_tree(browser, run: TreeRun, url: str, moves: int) -> None:
    context, page = open_page(browser, url)
    try:
        chosen = first_slider(page, moves + 1)
        if chosen is None or len(chosen[1]) < 2:
            run.problems.append("no visible slider with two values")
            return
        selector, positions = chosen
        run.slider = selector.split('"')[1]
        move_args = [QUIET_MS, TIMEOUT_MS, UNCHANGED_MS]
        page.evaluate(MOVE_JS, [selector, positions[0], *move_args])  # warm-up, not recorded
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
        cdp.send("Profiler.start")
        page.wait_for_timeout(400)  # V8 takes up to ~200 ms after the start to take its first sample
        windows = []
        for position in positions[1:]:
            page.evaluate("() => { window.__plotlyCalls = {}; performance.clearResourceTimings(); }")
            result = page.evaluate(MARKED_MOVE_JS, [selector, position, *move_args])
            t0 = page.evaluate("() => window.__t0")
            calls = page.evaluate("() => window.__plotlyCalls")
            api = page.evaluate(API_TIMES_JS, t0)
            if "last" not in result:
                run.problems.append(f"{position}: {result}")
                continue
            run.moves += 1
            run.latencies.append(result["last"])
            run.calls.update(calls)
            run.api_ms.append(sum(max(0.0, a["end"] - max(0.0, a["start"])) for a in api))
            windows.append((t0, t0 + result["last"]))
        profile = cdp.send("Profiler.stop")["profile"]
        cdp.send("Profiler.disable")
        for samples in window_samples(profile, windows):
            if samples:
                run.profiled += 1
            for kind, name, us in samples:
                run.split[kind] += us / 1000
                run.functions[f"[{kind}] {name}"] += us / 1000
    finally:
        context.close()


def top_functions(run: TreeRun, count: int) -> list[tuple[str, float]]:
    return sorted(run.functions.items(), key=lambda item: -item[1])[:count]


def report(page_path: str, runs: list[TreeRun], top: int, out) -> None:
    print(f"\n== {page_path}  slider " + " / ".join(f"{r.label} {r.slider or '?'}" for r in runs), file=out)
    for run in runs:
        n = max(1, run.moves)
        p = max(1, run.profiled)
        lat = statistics.median(run.latencies) if run.latencies else float("nan")
        api = statistics.median(run.api_ms) if run.api_ms else float("nan")
        calls = ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(run.calls.items())) or "none"
        total = sum(run.split.values()) or 1.0
        split = ", ".join(f"{c} {run.split[c] / p:.1f} ms ({100 * run.split[c] / total:.0f}%)" for c in CATEGORIES)
        print(f"  {run.label}: {run.moves} moves, median {lat:.1f} ms, /api/ request {api:.1f} ms; Plotly calls/move: {calls}", file=out)
        print(f"    per profiled move ({run.profiled}) in its window: {split}", file=out)
        for problem in run.problems[:3]:
            print(f"    problem: {problem}", file=out)
    for run in runs:
        n = max(1, run.profiled)
        print(f"  top self time, {run.label} (ms per move):", file=out)
        for key, ms in top_functions(run, top):
            print(f"    {ms / n:6.2f}  {key}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", help="page paths, e.g. /rotation")
    parser.add_argument("--tree", action="append", required=True, help="label=base URL (repeat)")
    parser.add_argument("--moves", type=int, default=15)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--json", help="write the aggregates here too")
    args = parser.parse_args(argv)
    trees = [tuple(t.split("=", 1)) for t in args.tree]
    from playwright.sync_api import sync_playwright

    dump: dict[str, Any] = defaultdict(dict)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            for page_path in args.pages:
                runs = []
                for label, base in trees:
                    run = TreeRun(label)
                    try:
                        profile_tree(browser, run, base.rstrip("/") + page_path, args.moves)
                    except Exception as exc:  # noqa: BLE001 - a page that fails is a result
                        run.problems.append(str(exc).splitlines()[0][:200])
                    runs.append(run)
                    dump[page_path][label] = {
                        "latencies": run.latencies, "api_ms": run.api_ms, "calls": dict(run.calls), "moves": run.moves, "profiled": run.profiled,
                        "split": dict(run.split), "functions": dict(top_functions(run, 40)), "problems": run.problems,
                    }
                report(page_path, runs, args.top, sys.stdout)
                sys.stdout.flush()
        finally:
            browser.close()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(dump, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

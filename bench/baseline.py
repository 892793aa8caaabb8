"""The old tree beside the new one in one run: ``python -m bench --baseline REF``.

REF (a branch, tag or commit; default :func:`default_ref`) is checked out into a temporary
``git worktree`` and served by the same interpreter (``python -m app`` from that tree's root
imports that tree's ``app``) beside this checkout, each on its own loopback port.  Both are
measured by the same Chromium, interleaved, the order alternating from one page to the next (old
then new, new then old, ...), so the machine's load falls on both alike:

- **slider** (section ``browser``): every page of this checkout (``app.web.views.discover()``) is
  opened on both trees side by side and every slider moved on both, move by move
  (``bench.browser.measure_pages``: the slider section's moves, prefetching off).  The table gives
  p95 old, p95 new and their ratio; a page passes when new ≤ 1.10 × old at p95.  Pages the old
  tree does not serve are measured on the new one only.  The slider section's own rows (every
  page against its p95 target, bytes per update) and the Dash ratios (≥ 3×, against the new tree)
  are reported as usual.
- **navigation**: first visit and next lesson, per lesson, for both trees (``bench.navigation``),
  first visits alternating lesson by lesson; next lesson in one warm context per tree, the trees
  taking turns lesson by lesson, the order flipping each time.
- **load**: the load section's new-parameter run (wrk, 2 workers, 64 connections, every GET with
  new parameters) on each tree in turn, old, new, new, old, one server at a time.

The temporary worktree is removed at the end (``git worktree remove --force``).
"""

from __future__ import annotations

import contextlib
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from bench.server import ROOT

SLOWER_AT_MOST = 1.10


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _exists(ref: str) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", ref + "^{commit}"], cwd=ROOT, capture_output=True).returncode == 0


def default_ref() -> str:
    """``origin/main`` when there is one; else ``main`` when this checkout is on another branch;
    else ``HEAD^1``, the first parent (on main after a merge: the tree before it)."""
    branch = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if _exists("origin/main"):
        return "origin/main"
    if branch != "main" and _exists("main"):
        return "main"
    return "HEAD^1"


@contextlib.contextmanager
def old_tree(ref: str):
    """REF checked out (detached) in a temporary worktree; yields (path, commit)."""
    commit = _git("rev-parse", "--verify", ref + "^{commit}")
    where = Path(tempfile.mkdtemp(prefix="bench-baseline-")) / "tree"
    _git("worktree", "add", "--detach", "--quiet", str(where), commit)
    try:
        yield where, commit
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)
        shutil.rmtree(where.parent, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def _serves(base: str, path: str) -> bool:
    try:
        with urllib.request.urlopen(base + path, timeout=30) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _pairs(names: list[str]):
    """(name, order) with the two trees' order alternating page by page."""
    for index, name in enumerate(names):
        yield name, ("old", "new") if index % 2 == 0 else ("new", "old")


def _p95(run) -> float:
    return run.p(95) if run.latencies else math.nan


def _first_p95(run) -> tuple[str, float]:
    """The page's first slider that redrew (issue 35 counts it: what a reader moves first) and its p95."""
    from bench.asgi import percentile

    for slider in run.sliders:
        if slider.latencies:
            return slider.name, percentile(slider.latencies, 95)
    return "—", math.nan


def sliders(report, browser, bases: dict[str, str], names: list[str], moves: int, label: str) -> tuple[list[str], dict]:
    from bench.asgi import percentile
    from bench.browser import measure_pages
    from bench.pages import SLIDER_P95_MS, _report_bytes, _report_page, _slider_details

    table = [f"| page | p95 old ({label}) | p95 new | new ÷ old | p50 old | p50 new | first slider | its p95 old | its p95 new |",
             "|---|---|---|---|---|---|---|---|---|"]
    details = ["| page | slider | moves | latency |", "|---|---|---|---|"]
    runs: dict[str, dict] = {}
    for name, order in _pairs(names):
        trees = [tree for tree in order if tree == "new" or _serves(bases["old"], f"/{name}")]
        print(f"[baseline] /{name}: {' and '.join(trees)} tree, moves interleaved", file=sys.stderr, flush=True)
        measured = measure_pages(browser, [(f"/{name} ({tree})", f"{bases[tree]}/{name}") for tree in trees], None, moves)
        runs[name] = dict(zip(trees, measured, strict=True))
        new = runs[name]["new"]
        details += _slider_details(new)
        _report_page(report, new, SLIDER_P95_MS, f"/{name} at defaults, every slider")
        _report_bytes(report, new, f"/{name} at defaults")
        first, first_new = _first_p95(new)
        report.add("baseline", f"first slider ({first}) → redraw p95, /{name}", f"{first_new:.1f} ms", f"≤ {SLIDER_P95_MS:.0f} ms",
                   first_new <= SLIDER_P95_MS if not math.isnan(first_new) else None)
        old = runs[name].get("old")
        if old is None:
            table.append(f"| /{name} | (not in the old tree) | {_p95(new):.1f} | — | — | {new.p(50):.1f} | {first} | — | {first_new:.1f} |")
            continue
        details += _slider_details(old)
        ratio = _p95(new) / _p95(old)
        first_old = next((percentile(s.latencies, 95) for s in old.sliders if s.name == first and s.latencies), math.nan)
        table.append(f"| /{name} | {_p95(old):.1f} | {_p95(new):.1f} | {ratio:.2f} | {old.p(50):.1f} | {new.p(50):.1f} | {first} | {first_old:.1f} | {first_new:.1f} |")
        report.add("baseline", f"slider p95 new ÷ old ({label}), /{name}", f"{ratio:.2f} ({_p95(new):.1f} ms vs {_p95(old):.1f} ms)",
                   f"≤ {SLOWER_AT_MOST:.2f}", ratio <= SLOWER_AT_MOST if not math.isnan(ratio) else None)
    return table + [""] + details, runs


def dash_ratios(report, browser, bases: dict[str, str], moves: int, details: list[str]) -> None:
    """The Dash comparison of the slider section, against the new tree; the old tree's /scores is
    measured beside it (moves interleaved) and its ratio to Dash reported too, so that a ratio that
    moved with the machine can be told from one the change moved."""
    from bench.browser import measure_pages
    from bench.pages import _dash, _fmt_ms, _slider_details

    ours, old = {}, {}
    selector = '#controls input[type=range][data-param="head_dim"]'
    for length in (64, 512):
        targets = [(f"/scores?seq_len={length} ({tree}, head_dim)", f"{bases[tree]}/scores?seq_len={length}") for tree in ("new", "old")]
        ours[length], old[length] = measure_pages(browser, targets, [selector], max(moves, 30))
        details += _slider_details(ours[length]) + _slider_details(old[length])
    dash = _dash(report, browser, ours, moves, details)
    for length, theirs in dash.items():
        if old[length].latencies and theirs.latencies:
            report.add("dash", f"Dash ÷ old tree, same view and run (L = {length}; old {_fmt_ms(old[length])})",
                       f"{theirs.p(50) / old[length].p(50):.1f}× at p50 · {theirs.p(95) / old[length].p(95):.1f}× at p95", verdict="info")


def navigation(report, browser, bases: dict[str, str], names: list[str], quick: bool, label: str) -> list[str]:
    from bench.navigation import first_visits, next_lessons_side_by_side

    shared = [name for name in names if _serves(bases["old"], f"/{name}")]
    first: dict[str, dict] = {"old": {}, "new": {}}
    for tree in ("old", "new"):  # unrecorded: each server's one-off work (plotly.js gzipped once per process)
        first_visits(browser, bases[tree], shared[:1], runs=1)
    for name, order in _pairs(shared):
        for tree in order:
            first[tree].update(first_visits(browser, bases[tree], [name], runs=1 if quick else 3))
    print("[baseline] next lesson, the two trees taking turns lesson by lesson", file=sys.stderr, flush=True)
    old_clicks, new_clicks = next_lessons_side_by_side(browser, [bases["old"], bases["new"]], shared, hover_ms=0)
    clicked = {"old": old_clicks, "new": new_clicks}
    lines = [f"| lesson | first visit old ({label}) | first visit new | next lesson (click) old | next lesson (click) new |", "|---|---|---|---|---|"]
    for name in shared:
        cells = [statistics.median(first["old"][name]), statistics.median(first["new"][name]),
                 statistics.median(clicked["old"][name]), statistics.median(clicked["new"][name])]
        lines.append(f"| /{name} | " + " | ".join(f"{value:.0f}" for value in cells) + " |")
    for what, values in (("first visit", first), ("next lesson, click", clicked)):
        old = statistics.median([statistics.median(v) for v in values["old"].values()])
        new = statistics.median([statistics.median(v) for v in values["new"].values()])
        report.add("baseline", f"navigation, {what}: median over lessons, new vs old ({label})",
                   f"{new:.0f} ms vs {old:.0f} ms ({new / old:.2f}×)", f"≤ {SLOWER_AT_MOST:.2f}×", new / old <= SLOWER_AT_MOST)
    worst = max(shared, key=lambda name: statistics.median(clicked["new"][name]))
    report.add("baseline", "navigation, next lesson (click), slowest lesson on the new tree",
               f"/{worst} {statistics.median(clicked['new'][worst]):.0f} ms (old tree: {statistics.median(clicked['old'][worst]):.0f} ms)",
               "≤ 300 ms", statistics.median(clicked["new"][worst]) <= 300)
    return lines


def load_new_parameters(report, where: Path, label: str, duration: int = 20, connections: int = 64, workers: int = 2) -> list[str]:
    from bench.load import _soak_module, parse
    from bench.server import explorer

    wrk = shutil.which("wrk")
    if wrk is None:
        report.add("baseline", "load, new parameters, old beside new", "wrk is not installed", verdict="error")
        return []
    soak = _soak_module()
    script = ROOT / "bench" / "results" / "mix-new-parameters.lua"
    script.write_text(soak.lua_script(soak.request_mix(bust_cache=True)))
    results: dict[str, list[dict]] = {"old": [], "new": []}
    for tree in ("old", "new", "new", "old"):
        with explorer(workers=workers, tree=where if tree == "old" else ROOT) as base:
            print(f"[baseline] wrk -c{connections} -d{duration}s, new parameters, {tree} tree", file=sys.stderr, flush=True)
            subprocess.run([wrk, "-t2", f"-c{connections}", "-d3s", "-s", str(script), base], capture_output=True, timeout=120)
            done = subprocess.run([wrk, "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "5s", "-s", str(script), base],
                                  capture_output=True, text=True, timeout=duration + 120)
            results[tree].append(parse(done.stdout + done.stderr))
    lines = ["| run | tree | requests/s | p50 (ms) | p99 (ms) | errors |", "|---|---|---|---|---|---|"]
    for number, tree in enumerate(("old", "new", "new", "old")):
        result = results[tree][0 if number in (0, 1) else 1]
        lines.append(f"| {number + 1} | {tree}{' (' + label + ')' if tree == 'old' else ''} | {result.get('rps', math.nan):,.0f} | "
                     f"{result.get('p50', math.nan):.0f} | {result.get('p99', math.nan):.0f} | {result.get('errors', '?')} of {result.get('requests', 0):,} |")
    old = statistics.mean(r.get("rps", math.nan) for r in results["old"])
    new = statistics.mean(r.get("rps", math.nan) for r in results["new"])
    report.add("baseline", f"load, new parameters ({workers} workers, {connections} connections, {duration} s): requests/s new vs old ({label}), "
               "mean of two runs each", f"{new:,.0f} vs {old:,.0f} ({new / old:.2f}×)", "≥ 1.00×", new >= old)
    return lines


def run(report, ref: str, sections: list[str], moves: int = 30, quick: bool = False, only: list[str] | None = None,
        duration: int = 20) -> str:
    from playwright.sync_api import sync_playwright

    from app.web.views import discover
    from bench.browser import launch
    from bench.server import explorer

    names = [view.name for view in discover() if not only or view.name in only]
    out: list[str] = []
    with old_tree(ref) as (where, commit):
        label = f"{ref} = {commit[:7]}" if not commit.startswith(ref) else commit[:7]
        head = _git("rev-parse", "--short", "HEAD")
        dirty = " + uncommitted changes" if _git("status", "--porcelain", "--untracked-files=no") else ""
        report.note(f"- Old tree beside the new: old = {label} (a temporary git worktree), new = this checkout ({head}{dirty}); "
                    "slider moves interleaved move by move, lessons and load runs alternating (bench/baseline.py).")
        print(f"[baseline] old tree {label} in {where}", file=sys.stderr, flush=True)
        browsing = "browser" in sections or "navigation" in sections
        with contextlib.ExitStack() as stack:
            old_base = stack.enter_context(explorer(workers=1, tree=where)) if browsing else ""
            new_base = stack.enter_context(explorer(workers=1)) if browsing else ""
            playwright = stack.enter_context(sync_playwright()) if browsing else None
            browser = launch(playwright) if browsing else None
            bases = {"old": old_base, "new": new_base}
            if "browser" in sections:
                lines, _ = sliders(report, browser, bases, names, moves, label)
                out += ["#### Slider → redraw, old tree beside new (ms)", "", *lines, ""]
                if not only or "scores" in only or "dash" in only:
                    dash_lines: list[str] = ["| page | slider | moves | latency |", "|---|---|---|---|"]
                    dash_ratios(report, browser, bases, moves, dash_lines)
                    out += ["#### Dash comparison (new tree; the old one beside it)", "", *dash_lines, ""]
            if "navigation" in sections:
                out += ["#### First plot when opening a lesson, old tree beside new (median ms)", "",
                        *navigation(report, browser, bases, names, quick, label), ""]
            if browser is not None:
                browser.close()
        if "load" in sections:
            out += ["#### Load with new parameters, old tree and new in turn", "",
                    *load_new_parameters(report, where, label, duration=duration), ""]
    return "\n".join(out)

"""Sections 1, 4 and 6: every page's slider → redraw latency and bytes per update, the score heatmap
at L = 512, and the same view written in Dash, all in one Chromium run."""

from __future__ import annotations

import math
import sys

from bench.asgi import percentile
from bench.browser import PageRun, launch, measure_page
from bench.report import Report
from bench.server import DASH_PYTHON, dash_app, explorer

SLIDER_P95_MS = 33.0
SCORES_512_P95_MS = 60.0
BYTES_TARGET = 100 * 1024
DASH_RATIO_TARGET = 3.0


def _fmt_ms(run: PageRun) -> str:
    return f"p50 {run.p(50):.1f} ms · p95 {run.p(95):.1f} ms ({len(run.latencies)} moves)"


def _slider_details(run: PageRun) -> list[str]:
    lines = []
    for slider in run.sliders:
        values = slider.latencies
        stats = f"p50 {percentile(values, 50):.1f} · p95 {percentile(values, 95):.1f} · max {max(values):.1f} ms" if values else "—"
        errs = f"; {len(slider.errors)} moves without redraw: {slider.errors[0]}" if slider.errors else ""
        if slider.unchanged:
            errs += f"; {slider.unchanged} moves changed no plot (readouts only, not timed)"
        lines.append(f"| {run.label} | {slider.name} | {len(values)} | {stats}{errs} |")
    return lines


def _report_page(report: Report, run: PageRun, target: float, what: str) -> None:
    if run.problem or (not run.latencies and not any(s.unchanged for s in run.sliders)):
        report.add("slider", f"slider → redraw, {what}", run.problem or "no move redrew the plot", verdict="error")
        return
    # A move onto a value the parameters model refuses (a cross-field limit) shows its message
    # beside the control instead of redrawing: correct, and not timed.  A move that neither
    # redraws nor shows a message within the timeout is a failure.
    refused = sum(1 for s in run.sliders for e in s.errors if "no redraw within" not in e)
    stuck = sum(1 for s in run.sliders for e in s.errors if "no redraw within" in e)
    value = _fmt_ms(run)
    if refused:
        value += f"; {refused} moves refused by a limit (message shown, not timed)"
    unchanged = sum(s.unchanged for s in run.sliders)
    if unchanged:
        value += f"; {unchanged} moves changed no plot (nothing redrawn, not timed)"
    if stuck:
        value += f"; {stuck} moves never redrew"
    report.add("slider", f"slider → redraw, {what}", value, f"p95 ≤ {target:g} ms", run.p(95) <= target and stuck == 0)


def _report_bytes(report: Report, run: PageRun, what: str) -> None:
    if not run.bytes:
        report.add("bytes", f"bytes per slider update, {what}", "no API request (display-only sliders)", verdict="info")
        return
    encodings = "/".join(sorted(run.encodings))
    value = f"max {max(run.bytes) / 1024:.1f} KB · median {percentile(run.bytes, 50) / 1024:.1f} KB ({encodings}, {len(run.bytes)} responses)"
    report.add("bytes", f"bytes per slider update, {what}", value, "≤ 100 KB", max(run.bytes) <= BYTES_TARGET)


def run(report: Report, moves: int = 30, quick: bool = False, only: list[str] | None = None) -> str:
    from playwright.sync_api import sync_playwright

    from app.web.views import REGISTRY, discover

    views = discover()
    if only:  # names of views; "dash" runs only the L = 512 page and the Dash comparison
        views = [view for view in views if view.name in only]
    details = ["| page | slider | moves | latency |", "|---|---|---|---|"]
    with explorer(workers=1) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        for view in views:
            print(f"[browser] /{view.name}", file=sys.stderr, flush=True)
            page_run = measure_page(browser, f"/{view.name}", f"{base}/{view.name}", None, moves)
            details += _slider_details(page_run)
            _report_page(report, page_run, SLIDER_P95_MS, f"/{view.name} at defaults, every slider")
            _report_bytes(report, page_run, f"/{view.name} at defaults")

        scores = REGISTRY.get("scores")
        ours: dict[int, PageRun] = {}
        if only and "scores" not in only and "dash" not in only:
            browser.close()
            return "\n".join(details)
        if scores is None:
            report.add("slider", "slider → redraw, score heatmap at L = 512", "no /scores page registered", verdict="error")
        else:
            print("[browser] /scores?seq_len=512", file=sys.stderr, flush=True)
            big = measure_page(browser, "/scores?seq_len=512", f"{base}/scores?seq_len=512", None, moves, exclude=("seq_len",))
            details += _slider_details(big)
            _report_page(report, big, SCORES_512_P95_MS, "score heatmap /scores?seq_len=512, every slider but L")
            _report_bytes(report, big, "/scores?seq_len=512")
            for length in (64, 512):
                selector = '#controls input[type=range][data-param="head_dim"]'
                ours[length] = measure_page(browser, f"/scores?seq_len={length} (head_dim)", f"{base}/scores?seq_len={length}",
                                            [selector], max(moves, 30))
                details += _slider_details(ours[length])
        _dash(report, browser, ours, moves, details)
        browser.close()
    return "\n".join(details)


def _dash(report: Report, browser, ours: dict[int, PageRun], moves: int, details: list[str]) -> dict[int, PageRun]:
    """The Dash app measured at each length and compared with `ours`; returns the Dash runs."""
    dash_runs: dict[int, PageRun] = {}
    if not DASH_PYTHON.exists():
        report.add("dash", "Dash comparison", "bench/.venv-dash missing (make bench creates it)", verdict="error")
        return dash_runs
    with dash_app() as dash_base:
        for length in (64, 512):
            print(f"[browser] Dash ?seq_len={length}", file=sys.stderr, flush=True)
            theirs = measure_page(browser, f"Dash L={length} (head_dim)", f"{dash_base}/?seq_len={length}", ["#head_dim"], max(moves, 30))
            details += _slider_details(theirs)
            dash_runs[length] = theirs
            if theirs.problem or not theirs.latencies:
                report.add("dash", f"Dash app, L = {length}", theirs.problem or "no redraw", verdict="error")
                continue
            report.add("dash", f"Dash app: slider → redraw, score heatmap L = {length}", _fmt_ms(theirs), verdict="info")
            if theirs.bytes:
                report.add("dash", f"Dash app: bytes per update, L = {length}", f"max {max(theirs.bytes) / 1024:.1f} KB", verdict="info")
            mine = ours.get(length)
            if mine is None or not mine.latencies:
                report.add("dash", f"ratio Dash / ours, L = {length}", "our /scores page was not measured", verdict="error")
                continue
            ratio50 = theirs.p(50) / mine.p(50)
            ratio95 = theirs.p(95) / mine.p(95)
            report.add(
                "dash",
                f"Dash ÷ ours, slider → redraw on the same view (head_dim slider, L = {length}; ours {_fmt_ms(mine)})",
                f"{ratio50:.1f}× at p50 · {ratio95:.1f}× at p95",
                f"≥ {DASH_RATIO_TARGET:g}×",
                min(ratio50, ratio95) >= DASH_RATIO_TARGET,
            )
            if math.isnan(ratio50):
                report.note("Dash ratio could not be computed")
    return dash_runs

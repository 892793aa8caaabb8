"""Sections 2–4 of the benchmark that need no browser: server time, cost vs. L, response sizes.

Server time is measured in-process on the ASGI app (see ``bench.asgi``); sizes are the bytes of
the response body as sent with ``Accept-Encoding: gzip`` (what a browser receives) and without.
"""

from __future__ import annotations

import asyncio
import sys

from bench.asgi import Caller, clear_caches, median
from bench.ops import Operation, body_for, describe, discover_operations, url_for
from bench.report import Report

DEFAULT_TARGET_MS = 1.0
LARGEST_TARGET_MS = 30.0
SCALING_TARGET = 2.0
LONG_FIELDS = ("seq_len", "max_offset", "context_len", "length", "max_len")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def page_headers() -> dict[str, str]:
    """Headers a page's fetch sends (kept in step with static/js/lib/api.js)."""
    from bench import PAGE_ACCEPT

    return {"accept": PAGE_ACCEPT, "accept-encoding": "gzip, deflate, br"}


async def _timed(caller: Caller, op: Operation, values: dict, runs: int, cold: bool, headers=None) -> tuple[list[float], int]:
    """Times of ``runs`` requests (the page's headers unless ``headers`` is given)."""
    url, body = url_for(op, values), body_for(op, values)
    headers = page_headers() if headers is None else headers
    times = []
    status = 0
    if not cold:
        reply = await caller.request(op.method, url, body, headers)  # prime the cache
        status = reply.status
    for _ in range(runs):
        if cold:
            clear_caches()
        reply = await caller.request(op.method, url, body, headers)
        status = max(status, reply.status)
        times.append(reply.seconds)
    return times, status


async def _run(report: Report, quick: bool) -> dict:
    from app.main import create_app

    app = create_app()
    caller = Caller(app)
    ops = discover_operations(app)
    details: list[str] = [
        "| operation | largest = | default cold p50 | default warm p50 | largest cold p50 | largest warm p50 | largest cold, plain JSON | bytes default (gzip / raw) | bytes largest (gzip / raw) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    worst_default = (0.0, "")
    worst_largest = (0.0, "")
    cold_runs, warm_runs, big_runs = (5, 30, 3) if quick else (25, 200, 7)
    sizes: dict[str, tuple[int, int]] = {}
    for op in ops:
        if op.model is None:
            report.add("server", f"{op.label}", "no parameter model found: not measured", verdict="error")
            continue
        print(f"[server] {op.label}", file=sys.stderr, flush=True)
        cold, status = await _timed(caller, op, op.default, cold_runs, cold=True)
        warm, _ = await _timed(caller, op, op.default, warm_runs, cold=False)
        if status >= 400:
            report.add("server", f"{op.label} at defaults", f"HTTP {status}", verdict="error")
            continue
        # The costliest of the "largest" variants, by one cold run each.
        worst, worst_time = None, -1.0
        for variant in op.variants:
            clear_caches()
            reply = await caller.request(op.method, url_for(op, variant), body_for(op, variant), page_headers())
            if reply.status >= 400:
                report.add("server", f"{op.label} largest", f"HTTP {reply.status} for {describe(variant)}", verdict="error")
                continue
            if reply.seconds > worst_time:
                worst, worst_time = variant, reply.seconds
        big_cold, big_warm, plain_cold = [float("nan")], [float("nan")], [float("nan")]
        if worst is not None:
            runs = big_runs if worst_time < 0.5 else 3
            big_cold, s1 = await _timed(caller, op, worst, runs, cold=True)
            plain_cold, _ = await _timed(caller, op, worst, 3, cold=True, headers={"accept": "application/json"})
            big_warm, s2 = await _timed(caller, op, worst, max(runs, 20), cold=False)
            if max(s1, s2) >= 400:
                report.add("server", f"{op.label} largest", f"HTTP {max(s1, s2)} for {describe(worst)}", verdict="error")
                worst = None
        size_default = await _sizes(caller, op, op.default)
        size_largest = await _sizes(caller, op, worst) if worst is not None else (0, 0)
        sizes[op.label] = size_default
        d_cold, d_warm, l_cold, l_warm = median(cold), median(warm), median(big_cold), median(big_warm)
        worst_default = max(worst_default, (d_cold, op.label))
        if worst is not None:
            worst_largest = max(worst_largest, (l_cold, f"{op.label}?{describe(worst, 60)}"))
        details.append(
            f"| {op.label} | {describe(worst or {}, 70)} | {_ms(d_cold)} | {_ms(d_warm)} | {_ms(l_cold)} | {_ms(l_warm)} | {_ms(median(plain_cold))} "
            f"| {size_default[0]:,} / {size_default[1]:,} | {size_largest[0]:,} / {size_largest[1]:,} |"
        )
        if worst is None:
            largest_text, largest_ok = "largest: not derivable (free-form body)" if op.method == "POST" else "largest: none valid", True
        else:
            largest_text, largest_ok = f"largest: cold {_ms(l_cold)} · warm {_ms(l_warm)}", l_cold * 1000 <= LARGEST_TARGET_MS
        default_ok = d_cold * 1000 <= DEFAULT_TARGET_MS
        warm_ok = d_warm * 1000 <= DEFAULT_TARGET_MS and (worst is None or l_warm * 1000 <= LARGEST_TARGET_MS)
        # Judged on the cold figures (a new slider value is a cold request); "warm ok" notes that
        # repeated URLs (what most of a class sends) meet the target.
        verdict = "pass" if default_ok and largest_ok else ("miss (warm ok)" if warm_ok else "miss")
        kind = "CSV export" if op.path.endswith(".csv") else ("page twin" if op.view is not None else "operation")
        report.add(
            "server",
            f"server p50, {op.label} ({kind})" + (f"; largest = {describe(worst, 70)}" if worst else ""),
            f"defaults: cold {_ms(d_cold)} · warm {_ms(d_warm)}; {largest_text}",
            f"cold ≤ {DEFAULT_TARGET_MS:g} ms / ≤ {LARGEST_TARGET_MS:g} ms",
            verdict=verdict,
        )
    await _scaling(report, caller, ops, quick)
    return {"details": "\n".join(details), "sizes": sizes}


async def _sizes(caller: Caller, op: Operation, values: dict) -> tuple[int, int]:
    url, body = url_for(op, values), body_for(op, values)
    gz = await caller.request(op.method, url, body, page_headers())  # what a page receives
    raw = await caller.request(op.method, url, body, {"accept": "application/json"})  # plain JSON, no gzip
    return len(gz.body), len(raw.body)


async def _scaling(report: Report, caller: Caller, ops: list[Operation], quick: bool) -> None:
    """time(L = 131072) / time(L = 512), cold, for every operation with a length field reaching 131072."""
    runs = 3 if quick else 9
    for op in ops:
        if op.model is None or op.method != "GET" or op.path.endswith(".csv"):
            continue
        schema = op.model.model_json_schema().get("properties", {})
        for name in LONG_FIELDS:
            prop = schema.get(name)
            if not prop:
                continue
            high = prop.get("maximum") or next((o.get("maximum") for o in prop.get("anyOf", []) if "maximum" in o), None)
            if not high or high < 131072:
                continue
            small, large = {**op.default, name: 512}, {**op.default, name: 131072}
            t_small, s1 = await _timed(caller, op, small, runs, cold=True)
            t_large, s2 = await _timed(caller, op, large, runs, cold=True)
            if s1 >= 400 or s2 >= 400:
                report.add("scaling", f"{op.label} {name}=131072 vs 512", f"HTTP {s1}/{s2}", verdict="error")
                continue
            ratio = median(t_large) / median(t_small)
            report.add(
                "scaling",
                f"cost bounded by pixels, {op.label}: time({name}=131072) / time({name}=512), cold",
                f"{ratio:.2f} ({_ms(median(t_large))} / {_ms(median(t_small))})",
                f"≤ {SCALING_TARGET:g}",
                ratio <= SCALING_TARGET,
            )


def run(report: Report, quick: bool = False) -> dict:
    return asyncio.run(_run(report, quick))

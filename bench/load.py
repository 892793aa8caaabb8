"""Load: wrk on loopback against the explorer with 2 workers, over the mix of bench/url_mix.py."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from bench import PAGE_ACCEPT
from bench.report import Report
from bench.server import ROOT, explorer

RPS_TARGET = 3000
P99_TARGET_MS = 30.0


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[unit]


def parse(output: str) -> dict:
    result: dict = {"errors": 0}
    if match := re.search(r"Requests/sec:\s+([\d.]+)", output):
        result["rps"] = float(match.group(1))
    for pct in ("50", "75", "90", "99"):
        if match := re.search(rf"^\s+{pct}(?:\.000)?%\s+(\S+)", output, re.M):
            result[f"p{pct}"] = _ms(match.group(1))
    if match := re.search(r"(\d+) requests in", output):
        result["requests"] = int(match.group(1))
    if match := re.search(r"Non-2xx or 3xx responses: (\d+)", output):
        result["errors"] += int(match.group(1))
    if match := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output):
        result["errors"] += sum(int(g) for g in match.groups())
    if match := re.search(r"Transfer/sec:\s+(\S+)", output):
        result["transfer"] = match.group(1)
    return result


def warm_up(base: str, calls, rounds: int = 3) -> float:
    """Send every distinct call ``rounds`` times, 8 at a time on fresh connections, so that each
    worker has computed it once (steady state of a class that has been on the pages a while)."""
    import time
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    distinct = list(dict.fromkeys(calls))

    def send(call) -> None:
        request = urllib.request.Request(
            base + call.url,
            data=call.body.encode() if call.method == "POST" else None,
            method=call.method,
            headers={"Accept": PAGE_ACCEPT, "Accept-Encoding": "gzip", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                response.read()
        except OSError:
            pass

    start = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(send, distinct * rounds))
    return time.monotonic() - start


def run(report: Report, duration: int = 20, connections: int = 64, workers: int = 2, warmup: int = 5) -> str:
    from bench.url_mix import url_mix, wrk_lua

    wrk = shutil.which("wrk")
    if wrk is None:
        report.add("load", "load test", "wrk is not installed (apt-get install -y wrk)", verdict="error")
        return ""
    calls = url_mix()
    script = ROOT / "bench" / "results" / "mix.lua"
    script.write_text(wrk_lua(calls, {"Accept": PAGE_ACCEPT, "Accept-Encoding": "gzip"}))
    distinct = len({(c.method, c.url, c.body) for c in calls})
    with explorer(workers=workers) as base:
        print(f"[load] warming up: every call of the mix, 3 times", file=sys.stderr, flush=True)
        warm_seconds = warm_up(base, calls)
        if warmup:
            subprocess.run([wrk, "-t2", f"-c{connections}", f"-d{warmup}s", "-s", str(script), base],
                           capture_output=True, text=True, timeout=warmup + 60)
        print(f"[load] wrk -t2 -c{connections} -d{duration}s over {distinct} distinct calls", file=sys.stderr, flush=True)
        done = subprocess.run([wrk, "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "5s", "-s", str(script), base],
                              capture_output=True, text=True, timeout=duration + 120)
    output = done.stdout + done.stderr
    (ROOT / "bench" / "results" / "wrk.txt").write_text(output)
    result = parse(output)
    setting = (
        f"{workers} workers, {connections} connections, {duration} s, {distinct} distinct calls; caches warmed first "
        f"({warm_seconds:.0f} s: each call ×3, then {warmup} s of wrk)"
    )
    if "rps" not in result:
        report.add("load", "load test", "could not parse wrk output (bench/results/wrk.txt)", verdict="error")
        return output
    report.add("load", f"load: requests/s ({setting})", f"{result['rps']:,.0f}", f"≥ {RPS_TARGET}", result["rps"] >= RPS_TARGET)
    report.add("load", "load: p99 latency", f"{result.get('p99', float('nan')):.1f} ms (p50 {result.get('p50', float('nan')):.1f} ms)",
               f"≤ {P99_TARGET_MS:g} ms", result.get("p99", 1e9) <= P99_TARGET_MS)
    report.add("load", "load: errors (non-2xx/3xx, socket errors)", f"{result['errors']} of {result.get('requests', 0):,}", "0",
               result["errors"] == 0)
    return output

"""Load and soak test: the explorer with 2 workers under wrk at 64 connections on loopback.

    python scripts/soak.py [--seconds N] [--connections 64] [--workers 2] [--json FILE]

1. Builds the request mix from the view registry at start: every registered view's JSON twin at
   its defaults and with each control moved to a few values across its range (every choice of a
   select), each checked against the view's parameter model so every request is valid; the other
   GET operations with a registered parameter model, likewise; the POST operations' example
   bodies.  wrk picks among them at random (a Lua script written to a temporary directory).
2. Starts ``python -m app --workers N`` on a free loopback port (access log on, written to a file),
   waits for ``/healthz``, sends every request of the mix once (each must answer 2xx), warms up
   with an unrecorded wrk run (a tenth of the time, 2–30 s) so both workers have seen the mix, and
   reads each uvicorn worker's resident memory (VmRSS in /proc/<pid>/status).
3. Runs ``wrk --latency`` for the given time, reads the workers' memory again, stops the server
   with SIGTERM (a graceful shutdown) and prints requests, errors (non-2xx/3xx responses and
   socket errors), latency percentiles and memory at start and end per worker.

Exits 1 on any error, and with ``--max-growth F`` also when a worker's memory grew by more than
the fraction F from the warm-up to the end.  Only loopback is ever targeted.  wrk is installed
from Debian's packages when missing and running as root (as scripts/ensure-tools.sh does).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VALUES_PER_CONTROL = 4
HOST = "127.0.0.1"


# ---- the request mix -------------------------------------------------------------------------


def _url_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _spread(prop: dict, count: int) -> list:
    """A few values across a numeric field's range: log-spaced for wide positive ranges."""
    low = prop.get("minimum", prop.get("exclusiveMinimum"))
    high = prop.get("maximum", prop.get("exclusiveMaximum"))
    if low is None or high is None:
        return []
    integer = prop.get("type") == "integer"
    step = prop.get("multipleOf")
    if low > 0 and high / low > 100:
        points = [math.exp(math.log(low) + (math.log(high) - math.log(low)) * (i + 1) / (count + 1)) for i in range(count)]
    else:
        points = [low + (high - low) * (i + 1) / (count + 1) for i in range(count)]
    out = []
    for point in points:
        if step:
            point = round(point / step) * step
        point = round(point) if integer else float(f"{point:.4g}")
        out.append(point)
    return out


def _variations(model) -> list[dict]:
    """One-field changes from the defaults that the model accepts."""
    from pydantic import ValidationError

    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    changes: list[dict] = [{}]
    for name, prop in schema.get("properties", {}).items():
        if "$ref" in prop:
            prop = definitions.get(prop["$ref"].rsplit("/", 1)[-1], prop)
        if "anyOf" in prop:
            prop = next((p for p in prop["anyOf"] if p.get("type") != "null"), prop)
        if "enum" in prop:
            values = prop["enum"]
        elif prop.get("type") == "boolean":
            values = [True, False]
        elif prop.get("type") in ("integer", "number"):
            values = _spread(prop, VALUES_PER_CONTROL)
        else:
            continue
        for value in values:
            try:
                model.model_validate({name: value})
            except ValidationError:
                continue
            changes.append({name: value})
    return changes


def _served(path: str, change: dict) -> bool:
    """False for a request this server declares it cannot answer: a text of your own on /heads needs
    the model, and without it the answer is the documented 503, not a load-test request."""
    from app.views import heads

    return heads.CUSTOM or not (path.startswith("/api/model/heads") and change.get("text") == "custom")


def _example_body(operation: dict) -> dict | None:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    if "example" in content:
        return content["example"]
    match = re.search(r"Example body: `(\{.*?\})`", operation.get("description", ""), re.S)
    return json.loads(match.group(1)) if match else None


def _jitter_field(model, change: dict) -> dict | None:
    """How to make every request of ``change`` new (cache-busting mode): a float field nudged by a
    random relative 1e-7 (``base`` 10000 → 10000.000734…: the same cost, another result), or a seed
    drawn at random.  Checked against the model at both ends of the nudge."""
    from pydantic import ValidationError

    fields = model.model_fields
    values = model(**change)
    candidates = [name for name in ("base", "rope_theta") if name in fields] + [
        name for name, field in fields.items() if field.annotation is float
    ]
    for name in candidates:
        value = getattr(values, name)
        if not isinstance(value, float) or value == 0:
            continue
        try:
            for factor in (1.0, 1.0 + 1e-7):
                model.model_validate({**change, name: value * factor})
        except ValidationError:
            continue
        return {"name": name, "kind": "float", "value": value}
    if "seed" in fields:
        return {"name": "seed", "kind": "int", "value": 2**31 - 1}
    return None


def request_mix(bust_cache: bool = False) -> list[dict]:
    """[{method, path, body, jitter}] for every view's twin and every other operation, all valid;
    with ``bust_cache``, GET calls carry how to make each request's parameters new (``jitter``)."""
    from app.main import create_app
    from app.web.routing import validating_models
    from app.web.views import discover

    app = create_app()
    validating = validating_models(app)
    mix: list[dict] = []
    twins = set()
    for view in discover():
        twins.add(view.api_path)
        for change in _variations(view.params):
            if not _served(view.api_path, change):
                continue
            query = urlencode({k: _url_value(v) for k, v in change.items()})
            jitter = _jitter_field(view.params, change) if bust_cache else None
            mix.append({"method": "GET", "path": view.api_path + ("?" + query if query else ""), "body": "", "jitter": jitter})
    for path, methods in app.openapi()["paths"].items():
        if not path.startswith("/api/") or path in twins or path.endswith(".csv"):
            continue
        if "get" in methods and validating.get(path):
            model = validating[path][0]
            for change in _variations(model):
                if not _served(path, change):
                    continue
                query = urlencode({k: _url_value(v) for k, v in change.items()})
                jitter = _jitter_field(model, change) if bust_cache else None
                mix.append({"method": "GET", "path": path + ("?" + query if query else ""), "body": "", "jitter": jitter})
        if "post" in methods:
            body = _example_body(methods["post"])
            if body is not None:
                mix.append({"method": "POST", "path": path, "body": json.dumps(body), "jitter": None})
    return mix


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _lua_jitter(jitter: dict | None) -> str:
    if jitter is None:
        return "false"
    return "{%s, %s, %r}" % (_lua_string(jitter["name"]), _lua_string(jitter["kind"]), float(jitter["value"]))


def lua_script(mix: list[dict]) -> str:
    rows = ",\n".join(
        f"  {{{_lua_string(item['method'])}, {_lua_string(item['path'])}, {_lua_string(item['body'])}, {_lua_jitter(item.get('jitter'))}}}"
        for item in mix
    )
    return f"""-- Generated by scripts/soak.py from the view registry: one random call of the mix per request.
-- A call with a jitter entry gets one parameter made new on every request (cache-busting mode).
local calls = {{
{rows}
}}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end
function init(args)
  math.randomseed(os.time() * 1000 + (id or 0))
end
function request()
  local call = calls[math.random(#calls)]
  local headers = {{["Accept"] = "application/json", ["Accept-Encoding"] = "gzip"}}
  if call[1] == "POST" then headers["Content-Type"] = "application/json" end
  local path = call[2]
  local jitter = call[4]
  if jitter then
    local value
    if jitter[2] == "int" then
      value = string.format("%d", math.random(0, jitter[3]))
    else
      value = string.format("%.17g", jitter[3] * (1 + math.random() * 1e-7))
    end
    local sep = "?"
    if string.find(path, "?", 1, true) then sep = "&" end
    path = path .. sep .. jitter[1] .. "=" .. value
  end
  if call[3] == "" then return wrk.format(call[1], path, headers) end
  return wrk.format(call[1], path, headers, call[3])
end
"""


# ---- the server --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if Path("/etc/debian_version").exists() and os.geteuid() == 0:
        subprocess.run(["bash", str(ROOT / "scripts" / "ensure-tools.sh")], check=True)
        found = shutil.which("wrk")
    if not found:
        sys.exit("wrk not found: install it (Debian: apt-get install wrk) or run scripts/ensure-tools.sh as root")
    return found


def start_server(port: int, workers: int, log_path: Path) -> subprocess.Popen:
    with open(log_path, "wb") as log:  # the server writes its own copy
        return subprocess.Popen(
            [sys.executable, "-m", "app", "--host", HOST, "--port", str(port), "--workers", str(workers), "--log-level", "info"],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def wait_healthy(base: str, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before answering")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("server did not answer /healthz in time")


def worker_pids(parent: int) -> list[int]:
    """The uvicorn worker processes: children of ``parent`` started by multiprocessing's spawn."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and "spawn_main" in cmdline:
            pids.append(int(entry.name))
    return sorted(pids) or [parent]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def warm_up(base: str, mix: list[dict]) -> list[str]:
    """Send every call once; return the ones that did not answer 2xx (the mix must be valid)."""
    bad = []
    for item in mix:
        request = urllib.request.Request(
            base + item["path"],
            data=item["body"].encode() if item["body"] else None,
            method=item["method"],
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            bad.append(f"{item['method']} {item['path']} → {exc.code}")
    return bad


# ---- wrk output --------------------------------------------------------------------------------

_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(match.group(1)) * _UNITS[match.group(2)] if match else float("nan")


def parse_wrk(output: str) -> dict:
    result: dict = {"latency_ms": {}}
    for percent, value in re.findall(r"^\s+(\d+)%\s+([\d.]+\w+)\s*$", output, re.M):
        result["latency_ms"][f"p{percent}"] = _ms(value)
    match = re.search(r"(\d+) requests in ([\d.]+\w+), ([\d.]+\w+) read", output)
    result["requests"] = int(match.group(1)) if match else 0
    result["duration_s"] = _ms(match.group(2)) / 1e3 if match else float("nan")
    match = re.search(r"Requests/sec:\s+([\d.]+)", output)
    result["requests_per_second"] = float(match.group(1)) if match else 0.0
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    result["non_2xx_3xx"] = int(match.group(1)) if match else 0
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    result["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, match.groups()), strict=True)) if match else {}
    result["errors"] = result["non_2xx_3xx"] + sum(result["socket_errors"].values())
    return result


# ---- main --------------------------------------------------------------------------------------


def soak(seconds: int, connections: int, threads: int, workers: int, bust_cache: bool = False) -> dict:
    wrk = ensure_wrk()
    mix = request_mix(bust_cache)
    work = Path(tempfile.mkdtemp(prefix="soak-"))
    script = work / "mix.lua"
    script.write_text(lua_script(mix))
    port = free_port()
    base = f"http://{HOST}:{port}"
    log_path = work / "server.log"
    server = start_server(port, workers, log_path)
    result: dict = {"seconds": seconds, "connections": connections, "workers": workers, "calls_in_mix": len(mix),
                    "bust_cache": bust_cache, "rss_kib_samples": []}
    try:
        wait_healthy(base, server)
        pids = worker_pids(server.pid)
        result["rss_kib_after_start"] = {pid: rss_kib(pid) for pid in pids}
        result["warm_up_failures"] = warm_up(base, mix)
        # Then wrk itself, unrecorded, so both workers have seen the mix (and filled their caches).
        warm = max(2, min(30, seconds // 10))
        result["warm_up_seconds"] = warm
        subprocess.run(_wrk_command(wrk, threads, connections, warm, script, base), capture_output=True, timeout=warm + 120)
        result["rss_kib_start"] = {pid: rss_kib(pid) for pid in pids}
        command = _wrk_command(wrk, threads, connections, seconds, script, base)
        wrk_process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Each worker's memory every 10 s while wrk runs: the peak matters, not only the end.
        while wrk_process.poll() is None:
            time.sleep(min(10, max(1, seconds / 30)))
            result["rss_kib_samples"].append({pid: rss_kib(pid) for pid in pids if Path(f"/proc/{pid}").exists()})
        out, err = wrk_process.communicate(timeout=120)
        result["wrk_output"] = out + err
        result.update(parse_wrk(out))
        result["rss_kib_end"] = {pid: rss_kib(pid) for pid in pids}
        result["load_average"] = os.getloadavg()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            result["server_exit_code"] = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            result["server_exit_code"] = "killed after 60 s"
    log_text = log_path.read_text(errors="replace")
    result["access_log_lines"] = len(re.findall(r" INFO app\.access ", log_text))
    result["server_errors_logged"] = len(re.findall(r"Traceback|ERROR", log_text))
    result["log_file"] = str(log_path)
    return result


def _wrk_command(wrk: str, threads: int, connections: int, seconds: int, script: Path, base: str) -> list[str]:
    return [wrk, f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "--latency", "-s", str(script), base]


def report(result: dict) -> str:
    lines = [
        f"soak: {result['seconds']} s, {result['connections']} connections, {result['workers']} workers, "
        f"{result['calls_in_mix']} calls in the mix"
        + (" (cache-busting: every GET with new parameters)" if result.get("bust_cache") else "")
        + " (load average at end: "
        + " ".join(f"{x:.2f}" for x in result.get("load_average", ()))
        + ")",
        f"requests: {result.get('requests', 0)} ({result.get('requests_per_second', 0):.0f}/s)",
        f"errors: {result.get('errors', 'n/a')} (non-2xx/3xx {result.get('non_2xx_3xx', 'n/a')}, socket "
        f"{result.get('socket_errors', {})}); warm-up failures: {len(result.get('warm_up_failures', []))}",
        "latency: " + ", ".join(f"{k} {v:.2f} ms" for k, v in result.get("latency_ms", {}).items()),
        f"access log lines: {result.get('access_log_lines')}; errors logged by the server: {result.get('server_errors_logged')}; "
        f"server exit code after SIGTERM: {result.get('server_exit_code')}",
        f"resident memory per worker (VmRSS, MiB): after start → after warm-up (each call once, then "
        f"{result.get('warm_up_seconds')} s of wrk) → end (growth from warm-up)",
    ]
    for pid, start in result.get("rss_kib_start", {}).items():
        first = result["rss_kib_after_start"].get(pid, 0)
        end = result.get("rss_kib_end", {}).get(pid, 0)
        growth = (end - start) / start if start else float("nan")
        peak = max([sample.get(pid, 0) for sample in result.get("rss_kib_samples", [])] + [end])
        lines.append(
            f"  worker {pid}: {first / 1024:.1f} → {start / 1024:.1f} → {end / 1024:.1f} ({growth:+.1%}); "
            f"peak while loaded {peak / 1024:.1f}"
        )
    for failure in result.get("warm_up_failures", [])[:10]:
        lines.append(f"  warm-up failure: {failure}")
    return "\n".join(lines)


def max_growth(result: dict) -> float:
    growths = [
        (result["rss_kib_end"][pid] - start) / start
        for pid, start in result.get("rss_kib_start", {}).items()
        if start and pid in result.get("rss_kib_end", {})
    ]
    return max(growths, default=0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Load and soak test of the explorer (loopback only).")
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS", 600)))
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-growth", type=float, default=None, help="fail if a worker's RSS grows more than this fraction")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--bust-cache", action="store_true", help="every GET with new parameters (no response cache hits)")
    parser.add_argument("--max-rss-mib", type=float, default=None, help="fail if a worker's RSS ever exceeds this (MiB)")
    args = parser.parse_args(argv)

    result = soak(args.seconds, args.connections, args.threads, args.workers, args.bust_cache)
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))
    failed = []
    if result.get("errors", 1) or result.get("warm_up_failures") or result.get("requests", 0) == 0:
        failed.append("errors")
    if result.get("server_exit_code") != 0:
        failed.append("unclean shutdown")
    if args.max_growth is not None and max_growth(result) > args.max_growth:
        failed.append(f"memory grew by {max_growth(result):.1%} (> {args.max_growth:.0%})")
    peak = max((kib for sample in result.get("rss_kib_samples", []) for kib in sample.values()), default=0) / 1024
    if args.max_rss_mib is not None and peak > args.max_rss_mib:
        failed.append(f"a worker reached {peak:.0f} MiB (> {args.max_rss_mib:g})")
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Where a class's load spends the CPU: per operation, in-process, every request with new parameters.

The calls are those of the load section's new-parameter mode (``scripts/soak.py:
request_mix(bust_cache=True)``: each GET gets one float nudged by a random relative 1e-7 or a fresh
seed, so no response is ever answered from the cache), sent with the same headers as that wrk
script (``Accept: application/json``, ``Accept-Encoding: gzip``).  Each is one ``await app(...)``
on the full ASGI app (``bench.asgi``) and costs ``time.process_time()`` of the process around it
(validation, compute, serialisation, gzip, middleware; the thread pool's work included).  Caches
of parts that do not depend on the nudged parameter stay as a running worker has them (each call is
sent once unrecorded first).  A group is the path of the call; its share is of the CPU the whole
mix costs when every call is equally likely, which is how wrk picks them.

``python -m bench.cpu [--rounds N] [--profile]``: the table on stdout; ``--profile`` adds the
functions that cost the most (cProfile, cumulative and own time) over the whole mix.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gzip
import io
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import TypeVar, TypeVarTuple

from bench.asgi import Caller

HEADERS = {"accept": "application/json", "accept-encoding": "gzip"}
Args = TypeVarTuple("Args")
T = TypeVar("T")


def _nudged(call: dict, rng: random.Random) -> str:
    """The call's path with its jitter parameter made new, as the wrk script does."""
    path, jitter = call["path"], call.get("jitter")
    if not jitter:
        return path
    if jitter["kind"] == "int":
        value = str(rng.randint(0, int(jitter["value"])))
    else:
        value = repr(float(jitter["value"]) * (1 + rng.random() * 1e-7))
    return path + ("&" if "?" in path else "?") + f"{jitter['name']}={value}"


def _mix() -> list[dict]:
    from bench.load import _soak_module

    return _soak_module().request_mix(bust_cache=True)


async def _measure(rounds: int, profile: cProfile.Profile | None, seed: int = 7) -> dict[str, dict]:
    from app.main import create_app

    caller = Caller(create_app())
    rng = random.Random(seed)
    calls = _mix()
    groups: dict[str, dict] = defaultdict(lambda: {"cpu": [], "raw": [], "gzip": [], "calls": 0})
    for call in calls:  # unrecorded: per-process caches (schemas, fixed tables) filled as in a running worker
        await caller.request(call["method"], _nudged(call, rng), call["body"].encode(), HEADERS)
    for _ in range(rounds):
        order = list(calls)
        rng.shuffle(order)
        for call in order:
            url = _nudged(call, rng)
            body = call["body"].encode()
            if profile is not None:
                profile.enable()
            started = time.process_time()
            reply = await caller.request(call["method"], url, body, HEADERS)
            spent = time.process_time() - started
            if profile is not None:
                profile.disable()
            group = groups[call["method"] + " " + call["path"].split("?")[0]]
            group["cpu"].append(spent)
            group["calls"] += 1
            sent = reply.body
            if reply.headers.get("content-encoding") == "gzip":
                group["gzip"].append(len(sent))
                group["raw"].append(len(gzip.decompress(sent)))
            else:
                group["gzip"].append(len(sent))
                group["raw"].append(len(sent))
    return dict(groups)


def table(groups: dict[str, dict]) -> str:
    total = sum(sum(g["cpu"]) for g in groups.values())
    lines = [
        "| operation | requests | CPU mean (ms) | CPU p50 (ms) | CPU max (ms) | share of CPU | body sent mean (KiB) | body raw mean (KiB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, g in sorted(groups.items(), key=lambda item: -sum(item[1]["cpu"])):
        cpu = g["cpu"]
        lines.append(
            f"| {name} | {g['calls']} | {statistics.fmean(cpu) * 1e3:.2f} | {statistics.median(cpu) * 1e3:.2f} | "
            f"{max(cpu) * 1e3:.2f} | {sum(cpu) / total:.1%} | {statistics.fmean(g['gzip']) / 1024:.1f} | "
            f"{statistics.fmean(g['raw']) / 1024:.1f} |"
        )
    count = sum(g["calls"] for g in groups.values())
    lines.append(f"| all | {count} | {total / count * 1e3:.2f} | | | 100 % | | |")
    lines += ["", f"CPU per request of the mix: {total / count * 1e3:.2f} ms, i.e. at most {count / total:,.0f} requests/s per busy core."]
    return "\n".join(lines)


async def _inline(func: Callable[[*Args], T], *args: *Args, **_options: object) -> T:
    """anyio.to_thread.run_sync in the calling thread: cProfile sees only the thread it runs in."""
    return func(*args)


def run(rounds: int = 3, profile: bool = False) -> str:
    profiler = cProfile.Profile(time.process_time) if profile else None
    if profile:  # endpoints run in the thread pool; run them inline so the profile includes them
        import anyio.to_thread

        anyio.to_thread.run_sync = _inline
    groups = asyncio.run(_measure(rounds, profiler))
    out = table(groups)
    if profiler is not None:
        for key in ("cumulative", "tottime"):
            stream = io.StringIO()
            pstats.Stats(profiler, stream=stream).strip_dirs().sort_stats(key).print_stats(70)
            out += f"\n\n### cProfile, sorted by {key}\n\n```\n{stream.getvalue().strip()}\n```"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cpu", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="times each call of the mix is sent (new parameters each time)")
    parser.add_argument("--profile", action="store_true", help="add cProfile's costliest functions")
    args = parser.parse_args(argv)
    print(run(args.rounds, args.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())

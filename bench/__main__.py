"""``python -m bench``: run the benchmark sections and print one table (figure, value, target, result)."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys

from bench.report import Report
from bench.server import ROOT

SECTIONS = ("server", "heads", "browser", "navigation", "load", "fuzz")


def machine() -> str:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        chromium = subprocess.run(["chromium", "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        chromium = "chromium ?"
    try:
        wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True, timeout=10).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        wrk = "wrk ?"
    try:
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return (
        f"{platform.node()} · {cpu or platform.processor()} · {os.cpu_count()} CPUs · "
        f"{platform.system()} {platform.release()} · Python {platform.python_version()} · {chromium} · {wrk} · "
        f"load average at start {load}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {', '.join(SECTIONS)}")
    parser.add_argument("--moves", type=int, default=30, help="measured slider moves per page (at least 30 for the targets)")
    parser.add_argument("--pages", default="", help="comma-separated view names (browser section); default: every registered view")
    parser.add_argument("--duration", type=int, default=20, help="seconds of the measured wrk run")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, not for the record)")
    parser.add_argument("--baseline", nargs="?", const="", default=None, metavar="REF",
                        help="also serve REF (a git ref; alone: origin/main, else main, else HEAD^1) from a temporary "
                             "worktree and measure the browser and navigation sections, and the load section's "
                             "new-parameter run, on both trees, interleaved (bench/baseline.py)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "latest.md"))
    args = parser.parse_args(argv)
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    shown = list(sections)
    (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)

    started = dt.datetime.now().astimezone()
    about = machine()
    report = Report()
    details: list[str] = []
    if "server" in sections:
        from bench import api_bench

        print("== server time, cost vs L, response sizes (in-process ASGI)", file=sys.stderr, flush=True)
        server = api_bench.run(report, quick=args.quick)
        details += ["### Server time per operation (median; cold = caches cleared)", "", server["details"], ""]
    if "heads" in sections:
        from bench import heads

        print("== /heads surgery at T = 256", file=sys.stderr, flush=True)
        details += ["### /heads surgery at T = 256", "", heads.run(report, quick=args.quick), ""]
    if args.baseline is not None and any(s in sections for s in ("browser", "navigation", "load")):
        from bench import baseline

        ref = args.baseline or baseline.default_ref()
        print(f"== the old tree ({ref}) beside the new: slider → redraw, opening lessons, load", file=sys.stderr, flush=True)
        only = [name for name in args.pages.split(",") if name] or None
        out = baseline.run(report, ref, sections, moves=args.moves, quick=args.quick, only=only, duration=args.duration)
        details += ["### The old tree beside the new", "", out, ""]
        shown = [s + (f" (and beside {ref})" if s == "load" else f" (beside {ref})" if s in ("browser", "navigation") else "") for s in sections]
        sections = [s for s in sections if s not in ("browser", "navigation")]
    if "browser" in sections:
        from bench import pages

        print("== slider → redraw in Chromium, bytes per update, Dash comparison", file=sys.stderr, flush=True)
        only = [name for name in args.pages.split(",") if name] or None
        out = pages.run(report, moves=args.moves, quick=args.quick, only=only)
        details += ["### Slider → redraw per slider", "", out, ""]
    if "navigation" in sections:
        from bench import navigation

        print("== opening lessons: first visit and next lesson", file=sys.stderr, flush=True)
        only = [name for name in args.pages.split(",") if name] or None
        out = navigation.run(report, quick=args.quick, only=only)
        details += ["### First plot when opening a lesson", "", out, ""]
    if "load" in sections:
        from bench import load

        print("== load (wrk)", file=sys.stderr, flush=True)
        out = load.run(report, duration=args.duration)
        details += ["### wrk output", "", "```", out.strip(), "```", ""]
    if "fuzz" in sections:
        from bench import fuzz

        print("== schemathesis, the big run", file=sys.stderr, flush=True)
        out = fuzz.run(report, quick=args.quick)
        details += ["### schemathesis cases per operation", "", "```", out.strip(), "```", ""]
    finished = dt.datetime.now().astimezone()

    table = report.markdown()
    print(table)
    print(report.summary())
    text = "\n".join(
        [
            "# Benchmark results (`make bench`)",
            "",
            f"Run {started:%Y-%m-%d %H:%M %Z} – {finished:%H:%M}; sections: {', '.join(shown)}"
            + ("; QUICK run (fewer repetitions)" if args.quick else ""),
            "",
            f"Machine: {about}",
            "",
            "How each figure is measured: `bench/README.md`.",
            "",
            table,
            "",
            report.summary(),
            "",
            *report.notes,
            "## Details",
            "",
            *details,
        ]
    )
    with open(args.out, "w") as handle:
        handle.write(text + "\n")
    print(f"written to {os.path.relpath(args.out, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

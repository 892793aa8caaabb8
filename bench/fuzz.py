"""The big schemathesis run: tests/fuzz with many more generated cases than CI's (~10,000).

``FUZZ_EXAMPLES`` generated cases per JSON operation and ``FUZZ_CSV_EXAMPLES`` per CSV twin (the
deterministic coverage phase adds its own), derandomised like the CI run; reports the cases sent
and whether any answer was a server error or broke the schema (the test fails on either).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from bench.report import Report
from bench.server import ROOT

BIG_EXAMPLES = 2000
BIG_CSV_EXAMPLES = 600


def run(report: Report, quick: bool = False) -> str:
    examples, csv_examples = (300, 120) if quick else (BIG_EXAMPLES, BIG_CSV_EXAMPLES)
    env = {**os.environ, "FUZZ_EXAMPLES": str(examples), "FUZZ_CSV_EXAMPLES": str(csv_examples)}
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", "tests/fuzz"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3 * 3600)
    output = done.stdout + done.stderr
    total = re.search(r"all (\d+) operations\s+(\d+) cases\s+(.*)", output)
    cases = int(total.group(2)) if total else 0
    report.add("fuzz", f"schemathesis cases over every operation ({examples} generated per JSON operation, {csv_examples} per CSV)",
               f"{cases:,} cases" + (f" ({total.group(1)} operations: {total.group(3).strip()})" if total else ""), "≥ 10,000", cases >= 10_000)
    failed = re.search(r"(\d+) failed", output)
    report.add("fuzz", "server errors or answers off their schema", "none" if done.returncode == 0 else f"{failed.group(1) if failed else '?'} operations failed",
               "0", done.returncode == 0)
    return "\n".join(line for line in output.splitlines() if " cases " in line or "passed" in line or "failed" in line)

"""The short load check CI runs: scripts/soak.py for 20 s (2 workers, 64 connections, wrk on
loopback, the request mix built from the view registry).  Any error fails: a non-2xx/3xx
response, a socket error or timeout, a warm-up call of the mix that is not 2xx, a request that
made the server log an error, or an unclean shutdown.  Latency and memory are printed, not
asserted (they depend on the machine); ``make soak`` runs the long version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 20


def test_short_soak_has_no_errors(tmp_path):
    out = tmp_path / "soak.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "soak.py"), "--seconds", str(SECONDS), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=SECONDS + 400,
    )
    print(run.stdout)
    assert out.exists(), run.stdout + run.stderr
    result = json.loads(out.read_text())
    assert result["requests"] > 0, result["wrk_output"]
    assert result["errors"] == 0, result["wrk_output"]
    assert result["warm_up_failures"] == []
    assert result["server_errors_logged"] == 0, Path(result["log_file"]).read_text()[-3000:]
    assert result["server_exit_code"] == 0
    assert run.returncode == 0, run.stdout + run.stderr

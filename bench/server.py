"""Start the explorer (or the Dash comparison app) as a separate process on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with code {process.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status < 500:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server did not answer {url} within {timeout:.0f} s")


@contextlib.contextmanager
def serve(command: list[str], health_path: str, port: int, env: dict | None = None, cwd: Path = ROOT):
    with open(ROOT / "bench" / "results" / f"server-{port}.log", "w") as log:  # the server writes its own copy
        process = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    try:
        _wait(f"http://127.0.0.1:{port}{health_path}", process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def explorer(workers: int = 1, tree: Path = ROOT):
    """The explorer of ``tree`` (this checkout, or another one such as bench/baseline.py's old
    tree): ``python -m app`` run from the tree's root imports that tree's ``app``."""
    port = free_port()
    command = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers), "--log-level", "warning"]
    return serve(command, "/healthz", port, cwd=tree)


DASH_PYTHON = ROOT / "bench" / ".venv-dash" / "bin" / "python"


def dash_app():
    port = free_port()
    return serve([str(DASH_PYTHON), str(ROOT / "bench" / "dash_app.py"), "--port", str(port)], "/", port)

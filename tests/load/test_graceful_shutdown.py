"""SIGTERM lets an in-flight request finish, then the server exits 0 (``python -m app``).

The request is made in-flight deterministically: its headers ask ``Expect: 100-continue``, so
the server answers ``100 Continue`` only once the application reads the body.  SIGTERM arrives
then, the rest of the body after it; the response must still be the full 200, and the process
must exit with 0 (uvicorn's graceful shutdown, ``timeout_graceful_shutdown`` in app/__main__.py).
Checked with one worker and with two (the supervisor passes SIGTERM on to each worker).
"""

from __future__ import annotations

import json
import math
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BODY = json.dumps({"q": [1, 0], "k": [1, 0], "positions": [0, 2, 5, 7]}).encode()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "server exited before answering"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail("server did not answer /healthz")


def _read_until(sock: socket.socket, marker: bytes, data: bytes = b"") -> bytes:
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_lets_the_inflight_request_finish_and_exits_0(tmp_path, workers):
    port = _free_port()
    with open(tmp_path / "server.log", "wb") as log:  # the server writes its own copy
        server = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port), "--workers", str(workers), "--log-level", "info"],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_healthy(port, server)
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        head = (
            "POST /api/rope/rotate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(BODY)}\r\nExpect: 100-continue\r\n\r\n"
        ).encode()
        sock.sendall(head)
        interim = _read_until(sock, b"\r\n\r\n")
        assert interim.startswith(b"HTTP/1.1 100"), interim  # the app is now reading the body: in flight

        server.send_signal(signal.SIGTERM)
        time.sleep(1.0)  # let the shutdown begin (not a timing assertion: the server must still wait)
        assert server.poll() is None, "the server exited with a request in flight"
        sock.sendall(BODY)
        raw = _read_until(sock, b"\r\n\r\n", interim.split(b"\r\n\r\n", 1)[1])
        head_part, _, rest = raw.partition(b"\r\n\r\n")
        assert head_part.startswith(b"HTTP/1.1 200"), raw[:500]
        length = int(next(line.split(b":")[1] for line in head_part.split(b"\r\n") if line.lower().startswith(b"content-length")))
        while len(rest) < length:
            chunk = sock.recv(65536)
            assert chunk, "connection closed before the whole response arrived"
            rest += chunk
        sock.close()
        data = json.loads(rest[:length])
        assert math.isclose(data["dot"][0][1], math.cos(2), abs_tol=1e-15)  # ⟨q at 0, k at 2⟩ = cos 2
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    text = (tmp_path / "server.log").read_text()
    assert "Traceback" not in text, text
    assert "POST /api/rope/rotate 200" in text  # the access log saw the request finish


def _response(sock: socket.socket) -> bytes:
    """One whole response (Content-Length framed), or what came before the connection ended."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        chunk = sock.recv(65536)
        if not chunk:
            return raw
        raw += chunk
    head, _, rest = raw.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest


def test_sigterm_mid_burst_answers_every_request_sent_on_kept_alive_connections(tmp_path: Path) -> None:
    """32 clients each send request after request on their kept-alive connection (every one with new
    parameters) and SIGTERM comes mid-burst.  Each request a client sends is answered, until an
    answer says "Connection: close"; a connection may also end between requests, before anything
    of the next was sent back, which a client retries safely.  No request gets a reset, an empty
    end after it was sent, or half an answer."""
    import threading

    clients, per_client = 32, 40
    port = _free_port()
    with open(tmp_path / "server.log", "wb") as log:  # the server writes its own copy
        server = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port), "--workers", "2", "--log-level", "info"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
    outcomes: dict[int, list[str]] = {}
    started = threading.Barrier(clients + 1)

    def client(number: int) -> None:
        seen = outcomes.setdefault(number, [])
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            started.wait()
            for index in range(per_client):
                path = f"/api/rope/scores?head_dim=64&seq_len=128&base={10001 + number * per_client + index}"
                try:
                    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                    answer = _response(sock)
                except OSError as exc:
                    seen.append(f"error {exc!r}")
                    return
                head = answer.split(b"\r\n\r\n", 1)[0].lower()
                if not answer.startswith(b"HTTP/1.1 200"):
                    seen.append(f"no answer ({answer[:40]!r})")
                    return
                seen.append("ok")
                if b"connection: close" in head:
                    return

    try:
        _wait_healthy(port, server)
        threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
        for thread in threads:
            thread.start()
        started.wait()
        while sum(len(seen) for seen in outcomes.values()) < clients * per_client // 4:
            time.sleep(0.01)  # mid-burst: a quarter of the requests answered
        server.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=120)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    failed = {number: seen[-1] for number, seen in outcomes.items() if seen and seen[-1] != "ok"}
    assert not failed, f"{len(failed)} of {clients} clients lost a request they had sent: {list(failed.values())[:4]}"
    assert sum(len(seen) for seen in outcomes.values()) < clients * per_client  # the signal did come mid-burst
    assert "Traceback" not in (tmp_path / "server.log").read_text()

"""Shutdown refuses, never resets, with two workers; connections the server gives up on end with
an RST that frees their unsent bytes (SO_LINGER 0), so no socket lingers in FIN-WAIT-1.

The first test's clients behave as ``http.client`` and ``requests`` do: each request on a kept-alive
connection until an answer says "Connection: close", then a NEW connection for the next request.
SIGTERM arrives mid-burst.  A request that was sent must be answered; a connection attempt that is
refused (ECONNREFUSED: nothing was sent, a client retries it safely) ends the client.  With uvicorn's
own supervisor the listening socket stayed open in the supervisor during the drain, so those new
connections were accepted by the kernel and then reset: every client lost one request.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from app import settings
from tests.load.test_graceful_shutdown import _free_port, _response, _wait_healthy

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_with_two_workers_refuses_new_connections_and_answers_every_request_sent(tmp_path: Path) -> None:
    clients, per_client = 48, 400
    port = _free_port()
    with open(tmp_path / "server.log", "wb") as log:  # the server writes its own copy
        server = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port), "--workers", "2", "--log-level", "info"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
    outcomes: dict[int, list[str]] = {number: [] for number in range(clients)}
    signalled = threading.Event()
    started = threading.Barrier(clients + 1)

    def client(number: int) -> None:
        seen = outcomes[number]
        started.wait()
        index = 0
        while index < per_client:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=60)
            except ConnectionRefusedError:
                seen.append("refused" if signalled.is_set() else "refused before the signal")
                return
            with sock:
                while index < per_client:
                    path = f"/api/rope/scores?head_dim=64&seq_len=64&base={20001 + number * per_client + index}"
                    index += 1
                    try:
                        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                        answer = _response(sock)
                    except OSError as exc:
                        seen.append(f"lost: {exc!r}")
                        return
                    if not answer:
                        # closed between requests before any byte of the answer: not one of ours unless
                        # the server had read it; http.client retries this case, and so do we
                        seen.append("closed idle")
                        break
                    if not answer.startswith(b"HTTP/1.1 200"):
                        seen.append(f"lost: {answer[:40]!r}")
                        return
                    seen.append("ok")
                    if b"connection: close" in answer.split(b"\r\n\r\n", 1)[0].lower():
                        break  # http.client opens a new connection for the next request

    try:
        _wait_healthy(port, server)
        threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
        for thread in threads:
            thread.start()
        started.wait()
        deadline = time.monotonic() + 60
        while sum(s.count("ok") for s in outcomes.values()) < clients * 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        signalled.set()
        server.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=90)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    lost = [seen[-1] for seen in outcomes.values() if seen and seen[-1].startswith(("lost", "refused before"))]
    assert not lost, f"{len(lost)} of {clients} clients lost a request they had sent: {lost[:4]}"
    ended = [seen[-1] for seen in outcomes.values()]
    assert ended.count("refused") == clients, f"every client ends refused once the server is gone: {ended[:6]}"
    assert all(seen.count("ok") < per_client for seen in outcomes.values())  # the signal came mid-burst
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def _server_side_sockets(port: int) -> list[tuple[str, int]]:
    """(state, bytes unsent) of every TCP socket whose local end is the server's port that holds buffers."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            state = fields[3]
            tx_queue = int(fields[4].split(":")[0], 16)
            # 0A: LISTEN; 06: TIME-WAIT, which holds no buffers (left by the health check's own
            # connection, which the server closed after its "Connection: close" answer)
            if local_port == port and state not in ("0A", "06"):
                found.append((state, tx_queue))
    return found


def test_never_reading_clients_leave_no_socket_behind_after_the_timeout(tmp_path):
    """20 clients ask for plotly.js and never read.  Once the deadline passes the server resets each
    connection: 5 s later no server-side socket of its port exists, none holds unsent bytes (an
    ordinary close left them in FIN-WAIT-1, 77 MB for 20 such clients)."""
    timeout = 2.0
    port = _free_port()
    with open(tmp_path / "server.log", "wb") as log:  # the server writes its own copy
        server = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port), "--request-timeout", str(timeout), "--log-level", "warning"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
    socks = []
    try:
        _wait_healthy(port, server)
        # One full read first: the server's first answer of the file pays for loading it, which on
        # a busy machine can take longer than the deadline the stalled clients are watched within.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/vendor/plotly.min.js", timeout=30) as warm:
            warm.read()
        time.sleep(0.5)  # the health check's and warm-up's connections closed and gone (TIME-WAIT is the client's)
        for _ in range(20):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.sendall(b"GET /vendor/plotly.min.js HTTP/1.1\r\nHost: x\r\n\r\n")
            socks.append(sock)
        deadline = time.monotonic() + timeout  # the server fills its send buffers meanwhile
        while time.monotonic() < deadline:
            stalled = _server_side_sockets(port)
            if sum(1 for _, unsent in stalled if unsent) >= 20:
                break
            time.sleep(0.1)
        assert sum(1 for _, unsent in stalled if unsent) >= 20, stalled  # the test sees them stalled
        time.sleep(timeout + 5)
        left = _server_side_sockets(port)
        assert left == [], f"{len(left)} server-side sockets left, {sum(u for _, u in left)} bytes unsent: {left[:5]}"
        assert settings.PLOTLY_JS.stat().st_size > 20 * 4096  # each would have held far more than its buffer
    finally:
        for sock in socks:
            sock.close()
        server.terminate()
        server.wait(timeout=30)

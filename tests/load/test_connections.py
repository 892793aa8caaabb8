"""Connections to the real server (``python -m app``, uvicorn with app/web/connections.py): a
client that opens a connection and says nothing, or sends part of a request and stalls (slowloris),
is cut off once the request deadline passes, with a 408 in the app's JSON shape when it had begun;
an oversized request head gets a 414/431 with the app's security headers, not uvicorn's plain text.

The server runs with ``--request-timeout 2`` so the test is quick; the default
(``REQUEST_TIMEOUT_SECONDS``, 20 s) is checked against the 60 s target separately.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import settings
from tests.load.test_graceful_shutdown import _free_port, _wait_healthy

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 2.0
LOG: list[Path] = []  # the module server's log file


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    log_path = tmp_path_factory.mktemp("connections") / "server.log"
    LOG[:] = [log_path]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "--port", str(port), "--request-timeout", str(TIMEOUT), "--log-level", "warning"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        _wait_healthy(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(TIMEOUT * 10)
    return sock


def _read_all(sock: socket.socket) -> tuple[bytes, float]:
    """Everything until the server closes the connection, and when it did."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data, time.monotonic()


def _one_response(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")))
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def _json_error(reply: bytes, status: int) -> dict:
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), head
    assert b"content-security-policy: " in head.lower() and b"x-content-type-options: nosniff" in head.lower()
    (item,) = json.loads(body)["detail"]
    return item


def test_the_default_deadline_is_within_a_minute():
    assert 0 < settings.current().request_timeout <= 60


def test_a_silent_connection_is_closed(server):
    start = time.monotonic()
    with _connect(server) as sock:
        reply, closed = _read_all(sock)
    assert reply == b""  # nothing was asked, nothing is answered
    assert TIMEOUT * 0.8 <= closed - start <= TIMEOUT + 3


def test_half_a_request_line_gets_408_and_is_closed(server):
    with _connect(server) as sock:
        start = time.monotonic()
        sock.sendall(b"GET /healthz HT")
        reply, closed = _read_all(sock)
    assert _json_error(reply, 408)["type"] == "http_408"
    assert closed - start <= TIMEOUT + 3


def test_headers_dribbled_byte_by_byte_do_not_extend_the_deadline(server):
    with _connect(server) as sock:
        start = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        try:
            for _ in range(int(TIMEOUT * 10)):
                sock.sendall(b"X")
                time.sleep(0.25)
        except OSError:
            pass  # closed under us: what we want
        reply, closed = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 408 ")
    assert closed - start <= TIMEOUT + 3


def test_a_body_that_never_comes_gets_408(server):
    with _connect(server) as sock:
        sock.sendall(b"POST /api/rope/rotate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"q\"")
        reply, _ = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 408 ")


def test_kept_alive_connection_still_serves_requests_then_closes_when_idle(server):
    with _connect(server) as sock:
        for _ in range(2):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            reply = _one_response(sock)
            assert reply.startswith(b"HTTP/1.1 200 ") and b'"status":"ok"' in reply
            time.sleep(TIMEOUT * 0.6)  # less than the deadline each time, more than it in total
        rest, _ = _read_all(sock)  # uvicorn's keep-alive timeout (5 s) then closes it
    assert rest == b""


def test_a_slow_but_steady_request_within_the_deadline_is_served(server):
    with _connect(server) as sock:
        for part in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"\r\n"):
            sock.sendall(part)
            time.sleep(TIMEOUT / 5)
        assert _one_response(sock).startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize("size", [70 * 1024, 200 * 1024])
def test_a_request_line_too_long_gets_414_in_the_apps_shape(server, size):
    with _connect(server) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(b"GET /api/rope/scores?x=" + b"1" * size + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        reply, _ = _read_all(sock)
    item = _json_error(reply, 414)
    assert item["param"] == "x" and "65536" in item["allowed"]  # the parameter that made it too long


def test_an_over_long_malformed_line_is_refused_once_with_414(server):
    """A line over the limit with a byte the parser refuses (\\x01): one 414, no transport error logged."""
    with _connect(server) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(b"GET /?q=" + b"a" * 70_000 + b"\x01 HTTP/1.1\r\nHost: x\r\n\r\n")
        reply, _ = _read_all(sock)
    assert reply.count(b"HTTP/1.1 ") == 1
    assert _json_error(reply, 414)["param"] == "q"
    time.sleep(0.5)  # let the server log what it would (not a timing assertion)
    assert "write_eof" not in LOG[0].read_text() and "Fatal error" not in LOG[0].read_text()


def test_a_response_never_read_is_abandoned_after_the_deadline(server):
    """60 clients ask for plotly.js (4.6 MB) and never read: each connection is closed once the
    deadline passes without the client taking more, short of the whole file."""
    socks = []
    for _ in range(60):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server))
        sock.sendall(b"GET /vendor/plotly.min.js HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(sock)
    time.sleep(TIMEOUT * 3)  # past the deadline
    received = []
    for sock in socks:
        sock.settimeout(TIMEOUT * 5)
        total = 0
        try:
            while chunk := sock.recv(1 << 20):
                total += len(chunk)
        except ConnectionResetError:
            pass
        except TimeoutError:
            total = -1  # still open and silent: not closed
        sock.close()
        received.append(total)
    size = settings.PLOTLY_JS.stat().st_size
    assert all(0 <= total < size for total in received), received


def test_too_many_header_bytes_get_431(server):
    with _connect(server) as sock:
        headers = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"y" * 1000) for i in range(80))
        with contextlib.suppress(OSError):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
        reply, _ = _read_all(sock)
    assert _json_error(reply, 431)["param"] == "request"


def test_a_malformed_request_gets_400_in_the_apps_shape(server):
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost x\r\n\r\n")
        reply, _ = _read_all(sock)
    assert _json_error(reply, 400)["param"] == "request"


def test_the_longest_valid_request_line_is_served(server):
    factors = "&".join(f"{name}=1.0000000000000002" for name in ("short_factor", "long_factor") for _ in range(512))
    path = f"/api/rope/frequencies?head_dim=1024&rope_type=longrope&original_max_position_embeddings=4096&factor=2&{factors}"
    assert len(path) > 32_000
    with _connect(server) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        reply, _ = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 200 ")

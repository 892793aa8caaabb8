"""Serving with uvicorn so that a shutdown refuses new connections instead of resetting them.

uvicorn stops a server by closing its listening socket and draining the open connections.  Two
things let connections that arrive meanwhile be reset after the client had sent its request:

* with several workers, the supervisor keeps its own copy of the listening socket open until the
  workers have exited, so the kernel keeps accepting connections into a queue no process reads;
* in each worker, the connections already queued by the kernel but not yet accepted by the event
  loop when the socket is closed are reset by the kernel.

Here, before any listener is closed, the kernel is made to drop new connection attempts on it (a
socket filter that takes no packet: the client's SYN goes unanswered, and its retry is refused once
the socket is closed), and the workers' event loops are given the moment it takes to accept what
was already queued, so that those are answered like every other open connection.  The supervisor
does this for the socket all workers share, then closes its own copy before it signals them
(:class:`RefusingSupervisor`); a single server does it itself (:class:`DrainingServer`).
"""

from __future__ import annotations

import asyncio
import ctypes
import socket
import struct
import time
from typing import Any

from uvicorn import Config, Server
from uvicorn.supervisors import Multiprocess

# How long a worker waits for its event loop to accept the connections queued before it closes.
QUEUE_WAIT_SECONDS = 1.0
SO_ATTACH_FILTER = 26  # linux/asm-generic/socket.h
BPF_RET_K = 0x06  # a one-instruction classic BPF program: "return 0", take no bytes of any packet


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def refuse_new_connections(sock: Any) -> bool:
    """Make the kernel drop every new connection attempt on a listening socket (SO_ATTACH_FILTER
    with a program that returns 0).  False where the platform has no such filter."""
    program = (_SockFilter * 1)(_SockFilter(BPF_RET_K, 0, 0, 0))
    fprog = _SockFprog(1, program)
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, bytes(fprog))  # the kernel copies the program
    except OSError:
        return False
    return True


def queued_connections(sock: Any) -> int | None:
    """Connections the kernel has accepted on a listening socket that no accept() took yet
    (tcp_info's tcpi_unacked on a listener is its accept queue's length), or None if unknown."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    except (OSError, AttributeError):
        return None
    return int(struct.unpack_from("I", info, 24)[0])  # struct tcp_info: 8 bytes, then 4-byte fields; unacked is the 5th


def settle(listeners: list[Any]) -> None:
    """Stop new connections reaching ``listeners`` and wait (bounded) until the event loops serving
    them have accepted what the kernel had queued, so that closing them resets nothing."""
    if listeners and all(refuse_new_connections(sock) for sock in listeners):
        deadline = time.monotonic() + QUEUE_WAIT_SECONDS
        while time.monotonic() < deadline and any(queued_connections(sock) for sock in listeners):
            time.sleep(0.005)


class DrainingServer(Server):
    """uvicorn's Server (one worker), which settles its listeners before closing them."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        listeners = [sock for server in self.servers for sock in (server.sockets or ())]
        if listeners and all(refuse_new_connections(sock) for sock in listeners):
            deadline = time.monotonic() + QUEUE_WAIT_SECONDS
            while time.monotonic() < deadline and any(queued_connections(sock) for sock in listeners):
                await asyncio.sleep(0.005)  # this loop's accept callback takes them meanwhile
        await super().shutdown(sockets)


class RefusingSupervisor(Multiprocess):
    """uvicorn's supervisor of several workers, which settles the shared listening socket and
    closes its own copy before it asks the workers to stop (uvicorn's kept it open until they had
    exited, and connections accepted into it meanwhile were reset)."""

    def terminate_all(self) -> None:
        settle(self.sockets)  # the workers, still serving, accept what is queued
        for sock in self.sockets:
            sock.close()
        super().terminate_all()


def serve(config: Config) -> bool:
    """Run the server of ``config`` (several workers under the supervisor); False if it did not start."""
    if config.workers > 1:
        RefusingSupervisor(config, sockets=[config.bind_socket()]).run()
        return True
    server = DrainingServer(config)
    server.run()
    return server.started

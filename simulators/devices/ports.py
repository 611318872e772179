"""Where a simulated device sits: a pty (the controller opens its slave path
like /dev/ttyUSB0) or a TCP socket (the controller opens socket://HOST:PORT).

Owns the device end of the byte stream: ``read(timeout)`` and ``write``.
Both ends are raw byte pipes; nothing protocol-specific lives here.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import tty


class PtyPort:
    """A pseudo-terminal pair; the device holds the master, the controller opens ``path``."""

    # A pty has no UART: Linux keeps it at 8 data bits without parity whatever is asked, and
    # refuses the next open asked for another framing (EINVAL). A driver on a pty is given this
    # framing in place of its device's (the Alpha sign's 7E1): the bytes are the same.
    LINE = {"bytesize": 8, "parity": "N", "stopbits": 1}

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)          # no echo, no line discipline: bytes pass as they are
        self.path = os.ttyname(self._slave)
        self.url = self.path
        self._closed = False

    def read(self, timeout: float) -> bytes:
        if self._closed:
            return b""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:                  # EIO while no process has the slave open
            return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self.master, view)
            view = view[written:]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self.master)
            os.close(self._slave)


class TcpPort:
    """A listening socket on 127.0.0.1 accepting one controller connection at a time."""

    def __init__(self, port: int = 0) -> None:
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._server.bind(("127.0.0.1", port))
            self._server.listen(1)
        except OSError:                  # the port is taken (or not ours to take): leave nothing open
            self._server.close()
            raise
        self.port = self._server.getsockname()[1]
        self.url = f"socket://127.0.0.1:{self.port}"
        self._conn: socket.socket | None = None
        self._lock = threading.Lock()
        self._closed = False

    def read(self, timeout: float) -> bytes:
        if self._closed:
            return b""
        if self._conn is None:
            ready, _, _ = select.select([self._server], [], [], timeout)
            if ready:
                conn, _ = self._server.accept()
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                with self._lock:
                    self._conn = conn
            return b""
        conn = self._conn                # drop() may clear it from another thread
        try:
            ready, _, _ = select.select([conn], [], [], timeout)
            data = conn.recv(4096) if ready else None
        except (OSError, ValueError):    # drop() closed it under select: the link is gone
            data = b""
        if data is None:
            return b""
        if not data:                     # the controller went away: wait for the next one
            self.drop()
        return data

    def write(self, data: bytes) -> None:
        with self._lock:
            conn = self._conn
        if conn is not None:
            try:
                conn.sendall(data)
            except OSError:
                self.drop()

    def drop(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        self._closed = True
        self.drop()
        self._server.close()

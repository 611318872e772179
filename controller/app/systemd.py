"""systemd's service notification: readiness, status and the watchdog (``Type=notify``).

Owns the messages to ``$NOTIFY_SOCKET`` (a Unix datagram socket; a name
starting with "@" is in the abstract namespace): ``READY=1`` once the table
has left its start-up self-check with the devices answering, ``STATUS=`` with
the table's state, ``WATCHDOG=1`` pings and ``STOPPING=1``. Without
``NOTIFY_SOCKET`` (not started by systemd) every call does nothing.

The watchdog pings only while the engine's thread is alive and answering:
each ping first posts a probe through the engine's queue and waits for the
engine to handle it, so a hung engine stops the pings and systemd restarts
the controller (``WatchdogSec=`` in deploy/table-controller.service). Pings
go out at half the interval systemd asks for (``WATCHDOG_USEC``).

Wire format: one datagram per message, ``KEY=VALUE`` lines, UTF-8.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Mapping

import structlog


class Notifier:
    def __init__(self, environ: Mapping[str, str] = os.environ):
        self.address = environ.get("NOTIFY_SOCKET") or None
        usec = environ.get("WATCHDOG_USEC")
        pid = environ.get("WATCHDOG_PID")
        self.watchdog_interval = int(usec) / 1e6 if usec and usec.isdigit() and int(usec) > 0 \
            and (pid is None or pid == str(os.getpid())) else None
        self.log = structlog.get_logger("systemd")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *lines: str) -> bool:
        if not self.address:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto("\n".join(lines).encode(), target)
            return True
        except OSError as err:
            self.log.warning("systemd.notify_failed", socket=self.address, reason=str(err))
            return False

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def start_watchdog(self, engine_alive) -> None:
        """Ping every half interval while ``engine_alive(timeout)`` says the engine answered."""
        if not self.enabled or self.watchdog_interval is None:
            return
        period = self.watchdog_interval / 2

        def loop():
            while not self._stop.wait(period):
                if engine_alive(period):
                    self.send("WATCHDOG=1")
                else:
                    self.log.error("systemd.watchdog_withheld", reason="the engine did not answer within "
                                   f"{period:.1f} s")
        self._thread = threading.Thread(target=loop, name="watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(2)

"""Device side of the framed protocols, running on a port: the base of the
simulated shoe and sensors.

Owns the device's I/O thread and its end of the link (drivers/wire/link.py, the
same code the host runs). A subclass implements ``handle(message, now)`` and
calls ``emit(message)`` to send; its model state is guarded by ``self.lock``.
Faults a test or the CLI can switch on at this layer: ``silent`` (answer
nothing: a dead or unplugged device), ``corrupt_next`` (flip a byte of the next
frames sent), ``delay`` (hold every reply back that many seconds).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from drivers.wire.link import Delivered, Link
from drivers.wire.messages import Catalog


class PortDevice:
    """A simulated device's I/O thread on a port: ``step(data, now)`` every 10 ms or on input."""

    def __init__(self, port, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.clock = clock
        self.lock = threading.RLock()
        self.silent = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self):
        self._thread = threading.Thread(target=self._run, name=f"sim-{type(self).__name__}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        self.port.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self.port.read(0.01)
            with self.lock:
                self.step(data, self.clock())

    def step(self, data: bytes, now: float) -> None:
        raise NotImplementedError


class FramedDevice(PortDevice):
    catalog: Catalog
    decode: Callable

    def __init__(self, port, *, clock: Callable[[], float] = time.monotonic,
                 heartbeat_every: float = 1.0) -> None:
        super().__init__(port, clock=clock)
        self.link = Link(type(self).decode, heartbeat_every=heartbeat_every, silence_after=3600)
        self.corrupt_next = 0
        self.delay = 0.0
        self.received: list[Any] = []
        self._delayed: list[tuple[float, bytes]] = []
        # Callbacks (direction, message) for what the device took and sent: how scripted
        # players "see" the felt and the shoe. Called on the device's thread.
        self.listeners: list[Callable[[str, Any], None]] = []

    def step(self, data: bytes, now: float) -> None:
        if data and not self.silent:
            events, out = self.link.receive(data, now)
            self._send(out, now)
            for event in events:
                if isinstance(event, Delivered):
                    self.received.append(event.message)
                    self.handle(event.message, now)
                    for listener in self.listeners:
                        listener("received", event.message)
        if not self.silent:
            _, out = self.link.poll(now)
            self._send(out, now)
        self._flush_delayed(now)

    def emit(self, message: Any) -> None:
        """Send a message to the host (reliably, through the link)."""
        for listener in self.listeners:      # before the bytes leave: what the table sees next
            listener("sent", message)        # is never ahead of what the players saw
        with self.lock:
            now = self.clock()
            type_code, payload = self.catalog.encode(message)
            self._send(self.link.send(type_code, payload, now), now)

    def write_raw(self, data: bytes) -> None:
        """Put bytes on the line as they are (line noise, a hand-made bad frame)."""
        self.port.write(data)

    def _send(self, data: bytes, now: float) -> None:
        if not data or self.silent:
            return
        if self.corrupt_next:
            self.corrupt_next -= 1
            mid = len(data) // 2
            data = data[:mid] + bytes((data[mid] ^ 0x5A or 1,)) + data[mid + 1:]
        if self.delay:
            self._delayed.append((now + self.delay, data))
            return
        self.port.write(data)

    def _flush_delayed(self, now: float) -> None:
        due = [d for t, d in self._delayed if t <= now]
        self._delayed = [(t, d) for t, d in self._delayed if t > now]
        for data in due:
            self.port.write(data)

    def handle(self, message: Any, now: float) -> None:
        raise NotImplementedError

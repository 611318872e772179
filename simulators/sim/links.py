"""In-memory links between the real drivers and the simulated devices, and the drivers' loop.

Owns the bytes between the two ends and the loop a driver's I/O thread would run. A link is two
pipes; bytes written at one end reach the other after a seeded delay (``LATENCY``), in order, and
nothing more: no thread, no pty, no socket. The host end is a transport (drivers/transport.py's
``Transport``: open, write, close) the real driver is built on; the device end is a port (what
simulators/devices/ports.py's ``PtyPort`` is to a device: write, close, and ``drop``). Cutting a
link (``drop``) loses what is in flight both ways and is, to the driver, a read that failed.

``DriverLoop`` is drivers/device.py's ``_loop`` turned into timers: open (retried with the
driver's backoff), the driver's ``on_open``, ``on_bytes`` for what arrives, ``on_tick`` every
``tick`` seconds and after each arrival, a ``TransportError`` a lost connection, any other error
one the driver ``survived``. ``DeviceLoop`` is simulators/devices/framed.py's thread: the device's
``step`` for what arrives and on its ticks. Both run the drivers' and the devices' own code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

from drivers.transport import TransportError
from simulators.sim.clock import VirtualClock

LATENCY = (0.0005, 0.004)       # seconds a write takes to reach the other end: a serial line's spread


class Pipe:
    """One direction of a link: what is sent arrives after a seeded delay, in the order sent."""

    def __init__(self, clock: VirtualClock, rng: random.Random, deliver: Callable[[bytes], None]):
        self.clock, self.rng, self.deliver = clock, rng, deliver
        self._last = 0.0
        self._generation = 0

    def send(self, data: bytes) -> None:
        when = max(self._last, self.clock.now + self.rng.uniform(*LATENCY))
        self._last = when
        self.clock.at(when, partial(self._arrive, self._generation, data))

    def _arrive(self, generation: int, data: bytes) -> None:
        if generation == self._generation:
            self.deliver(data)

    def cut(self) -> None:
        """What is in flight is lost."""
        self._generation += 1


class MemoryLink:
    """One device's line: the host end (a transport) and the device end (a port)."""

    def __init__(self, role: str, clock: VirtualClock, rng: random.Random):
        self.role = role
        self.url = f"sim://{role}"
        self.open = False                   # the host has the line open
        self.host_bytes: Callable[[bytes], None] = lambda data: None
        self.device_bytes: Callable[[bytes], None] = lambda data: None
        self.host_lost: Callable[[str], None] = lambda why: None
        self.to_device = Pipe(clock, rng, lambda data: self.device_bytes(data))
        self.to_host = Pipe(clock, rng, lambda data: self.host_bytes(data) if self.open else None)
        self.host = HostEnd(self)
        self.device = DeviceEnd(self)

    def cut(self) -> None:
        self.to_device.cut()
        self.to_host.cut()


class HostEnd:
    """The driver's transport."""

    def __init__(self, link: MemoryLink):
        self.link = link
        self.url = link.url

    def open(self) -> None:
        self.link.open = True

    def read(self) -> bytes:
        return b""                          # bytes come to the driver's loop as they arrive

    def write(self, data: bytes) -> None:
        if not self.link.open:
            raise TransportError(f"{self.link.role}: {self.url} is not open")
        self.link.to_device.send(data)

    def close(self) -> None:
        if self.link.open:
            self.link.open = False
            self.link.cut()


class DeviceEnd:
    """The device's port: what it writes reaches the host while the host has the line open."""

    def __init__(self, link: MemoryLink):
        self.link = link
        self.url = link.url

    def read(self, timeout: float) -> bytes:
        return b""

    def write(self, data: bytes) -> None:
        if self.link.open:
            self.link.to_host.send(data)

    def drop(self) -> None:
        """The link is cut and restored (as a socket's connection closed): the host finds it lost."""
        if self.link.open:
            self.link.cut()
            self.link.host_lost("the other end closed the connection (simulated drop)")

    def close(self) -> None:
        pass


class DriverLoop:
    """A driver's I/O thread as timers (see the header)."""

    def __init__(self, driver: Any, link: MemoryLink, clock: VirtualClock, tick: float):
        self.driver, self.clock, self.tick = driver, clock, tick
        self.delay = driver.backoff[0]
        self._generation = 0                # a tick chain belongs to one connection
        self.stopped = False
        link.host_bytes = self._bytes
        link.host_lost = lambda why: self._retry(TransportError(f"{driver.name}: reading {link.url} failed: {why}"),
                                                 "reading the port")

    def start(self) -> None:
        self.clock.after(0.0, self._open)

    def stop(self) -> None:
        """The process died: nothing more runs for this driver."""
        self.stopped = True
        self._generation += 1

    def _open(self) -> None:
        driver = self.driver
        if self.stopped or driver.connected:
            return
        try:
            driver.transport.open()
            driver.connected = True
            driver._write(driver.on_open(self.clock.now))
        except Exception as err:            # TransportError, or a handshake that failed
            self._retry(err, "opening the session")
            return
        self.delay = driver.backoff[0]
        self._generation += 1
        self._schedule_tick(self._generation)

    def _schedule_tick(self, generation: int) -> None:
        self.clock.after(self.tick, partial(self._tick, generation))

    def _tick(self, generation: int) -> None:
        if generation != self._generation or self.stopped:
            return
        self._run(b"")
        if generation == self._generation and self.driver.connected:
            self._schedule_tick(generation)

    def _bytes(self, data: bytes) -> None:
        if self.stopped or not self.driver.connected:
            return
        self._run(data)

    def _run(self, data: bytes) -> None:
        """What arrived (``on_bytes``), then the timers (``on_tick``), as the driver's loop runs them."""
        driver, now = self.driver, self.clock.now
        try:
            if data:
                driver.on_bytes(data, now)
            driver.on_tick(now)
        except TransportError as err:
            self._retry(err, "writing")
            return
        except Exception as err:            # hostile bytes or a bug: reported, and on to the next
            driver.survived(err, "handling bytes" if data else "running timers", data)
        if not driver.connected:            # the driver gave the line up itself (a silent sign)
            self._generation += 1
            self.clock.after(0.0, self._open)

    def _retry(self, err: Exception, where: str) -> None:
        """drivers/device.py ``_retry_later``: close, report, reopen after the backoff."""
        driver = self.driver
        if self.stopped:
            return
        if not isinstance(err, TransportError):
            driver.survived(err, where)
        self._generation += 1
        driver._lost(str(err) if isinstance(err, TransportError) else f"{type(err).__name__}: {err}")
        self.clock.after(self.delay, self._open)
        self.delay = min(self.delay * 2, driver.backoff[1])


class DeviceLoop:
    """A simulated device's thread as timers: ``step`` on what arrives and every ``tick`` seconds."""

    def __init__(self, device: Any, link: MemoryLink, clock: VirtualClock, tick: float | None):
        self.device, self.clock, self.tick = device, clock, tick
        link.device_bytes = self._bytes

    def start(self) -> None:
        if self.tick is not None:
            self.clock.after(self.tick, self._tick)

    def _bytes(self, data: bytes) -> None:
        self._step(data)

    def _tick(self) -> None:
        self._step(b"")
        assert self.tick is not None
        self.clock.after(self.tick, self._tick)

    def _step(self, data: bytes) -> None:
        try:
            self.device.step(data, self.clock.now)
        except Exception as err:             # the device survives anything, as on its thread
            self.device.survived(err, "step")

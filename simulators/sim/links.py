"""In-memory links between the real drivers and the simulated devices, and the drivers' loop.

Owns the bytes between the two ends and the loop a driver's I/O thread would run. A link is two
pipes; bytes written at one end reach the other after a seeded delay (``LATENCY``), in order, and
nothing more: no thread, no pty, no socket. The host end is a transport (drivers/transport.py's
``Transport``: open, write, close) the real driver is built on; the device end is a port (what
simulators/devices/ports.py's ``PtyPort`` is to a device: write, close, and ``drop``). Cutting a
link (``drop``) loses what is in flight both ways and is, to the driver, a read that failed.

``DriverLoop`` is drivers/device.py's ``_loop`` turned into timers: open (retried with the
driver's backoff), the driver's ``on_open``, ``on_bytes`` for what arrives, ``on_tick`` when the
driver's ``next_due`` says a timer of its is due, a ``TransportError`` a lost connection, any other
error one the driver ``survived``. ``DeviceLoop`` is simulators/devices/framed.py's thread: the
device's ``step`` for what arrives and when its ``next_due`` comes. Both run the drivers' and the
devices' own code.

The loops are deadline-driven, not ticking every 0.25 s: after each run a loop plans one tick at the
moment its driver's or device's next timer is due (a resend, a heartbeat, a silence, a Hello or a
Snapshot asked again, ...), and before which ``on_tick`` changes nothing (tests/sim/test_deadlines.py
holds them to it). A tick planned for later than a sooner one planned since is stale and does
nothing. What changes a driver or device from outside its loop (the engine's commands, a player's
chips, a fault switched) does it under the driver's or device's lock: here a ``WakingLock``, whose
release makes the loop look at its timers again. A timer is never reached later than it is due.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from math import inf
from typing import Any

from drivers.transport import TransportError
from simulators.sim.clock import VirtualClock

LATENCY = (0.0005, 0.004)       # seconds a write takes to reach the other end: a serial line's spread
# A loop whose timers are still due right after they ran (a handler failed halfway, or a bug) ticks
# again this much later, the fixed period the loops had, rather than again and again at one moment.
STALLED_TICK = 0.25


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


class WakingLock:
    """A driver's or a device's lock in the simulation: one thread, so nothing to exclude, but letting
    it go says that something outside the loop (the engine's command, a player's chips, a fault)
    worked on the driver or device: its timers may be due sooner, and its loop looks again."""

    def __init__(self, woken: Callable[[], None]):
        self.woken = woken
        self._depth = 0

    def __enter__(self) -> WakingLock:
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if not self._depth:
            self.woken()


class TickPlan:
    """A loop's next tick, at the soonest moment asked for: a tick planned before a sooner one, or
    forgotten (its connection ended), is stale and does nothing when its moment comes."""

    def __init__(self, clock: VirtualClock, tick: Callable[[], None]):
        self.clock, self._tick = clock, tick
        self._ticket = 0                    # the tick planned last
        self.planned = inf                  # its moment (inf: none)

    def plan(self, due: float) -> None:
        if due < self.planned:
            self._ticket += 1
            self.planned = due
            self.clock.at(due, partial(self._due, self._ticket))

    def forget(self) -> None:
        self._ticket += 1
        self.planned = inf

    def _due(self, ticket: int) -> None:
        if ticket == self._ticket:
            self.planned = inf
            self._tick()


class DriverLoop:
    """A driver's I/O thread as timers (see the header)."""

    def __init__(self, driver: Any, link: MemoryLink, clock: VirtualClock):
        self.driver, self.clock = driver, clock
        self.delay = driver.backoff[0]
        self.ticks = TickPlan(clock, self._tick)
        self._running = False
        self.stopped = False
        driver._lock = WakingLock(self._woken)
        link.host_bytes = self._bytes
        link.host_lost = lambda why: self._retry(TransportError(f"{driver.name}: reading {link.url} failed: {why}"),
                                                 "reading the port")

    def start(self) -> None:
        self.clock.after(0.0, self._open)

    def stop(self) -> None:
        """The process died: nothing more runs for this driver."""
        self.stopped = True
        self._forget()

    def _forget(self) -> None:
        """The tick planned is for a connection that ended: it does nothing."""
        self.ticks.forget()

    def _open(self) -> None:
        driver = self.driver
        if self.stopped or driver.connected:
            return
        try:
            self._running = True
            driver.transport.open()
            driver.connected = True
            driver._write(driver.on_open(self.clock.now))
        except Exception as err:            # TransportError, or a handshake that failed
            self._running = False
            self._retry(err, "opening the session")
            return
        finally:
            self._running = False
        self.delay = driver.backoff[0]
        self._forget()
        self._plan(driver.next_due(self.clock.now))

    def _plan(self, due: float) -> None:
        """A tick at ``due``, unless one is planned by then."""
        self.ticks.plan(due)

    def _woken(self) -> None:
        driver = self.driver
        if not self._running and not self.stopped and driver.connected:     # after a run it plans anyway
            self._plan(driver.next_due(self.clock.now))

    def _tick(self) -> None:
        if not self.stopped:
            self._run(b"")

    def _bytes(self, data: bytes) -> None:
        if not self.stopped and self.driver.connected:
            self._run(data)

    def _run(self, data: bytes) -> None:
        """What arrived (``on_bytes``), then the timers (``on_tick``) when one is due (before, it
        changes nothing), as the driver's loop runs them; then the next tick planned."""
        driver, now = self.driver, self.clock.now
        ran = False
        try:
            self._running = True
            if data:
                driver.on_bytes(data, now)
            due = driver.next_due(now)
            if due <= now:
                ran = True
                driver.on_tick(now)
                due = _stalled(driver, now, driver.next_due(now))
        except TransportError as err:
            self._running = False
            self._retry(err, "writing")
            return
        except Exception as err:            # hostile bytes or a bug: reported, and on to the next
            driver.survived(err, "handling bytes" if data else "running timers", data)
            due = driver.next_due(now)
            if ran and due <= now:          # the timers failed halfway: looked at again later, not at once
                due = now + STALLED_TICK
        finally:
            self._running = False
        if not driver.connected:            # the driver gave the line up itself (a silent sign)
            self._forget()
            self.clock.after(0.0, self._open)
            return
        self._plan(due)

    def _retry(self, err: Exception, where: str) -> None:
        """drivers/device.py ``_retry_later``: close, report, reopen after the backoff."""
        driver = self.driver
        if self.stopped:
            return
        if not isinstance(err, TransportError):
            driver.survived(err, where)
        self._forget()
        driver._lost(str(err) if isinstance(err, TransportError) else f"{type(err).__name__}: {err}")
        self.clock.after(self.delay, self._open)
        self.delay = min(self.delay * 2, driver.backoff[1])


class DeviceLoop:
    """A simulated device's thread as timers: ``step`` on what arrives and when its timers are due."""

    def __init__(self, device: Any, link: MemoryLink, clock: VirtualClock):
        self.device, self.clock = device, clock
        self.ticks = TickPlan(clock, self._tick)
        self._running = False
        device.lock = WakingLock(self._woken)
        link.device_bytes = self._step

    def start(self) -> None:
        self._plan(self.device.next_due())

    def _plan(self, due: float) -> None:
        self.ticks.plan(due)

    def _woken(self) -> None:
        if not self._running:
            self._plan(self.device.next_due())

    def _tick(self) -> None:
        due = self.device.next_due()
        if due <= self.clock.now:
            self._step(b"")
        else:
            self._plan(due)

    def _step(self, data: bytes) -> None:
        """``step``: what arrived, and the device's timers (a step runs them all)."""
        device, now = self.device, self.clock.now
        try:
            self._running = True
            device.step(data, now)
            due = _stalled(device, now, device.next_due())
        except Exception as err:             # the device survives anything, as on its thread
            device.survived(err, "step")
            due = device.next_due()
            if due <= now:                   # its timers may have failed halfway: again later, not at once
                due = now + STALLED_TICK
        finally:
            self._running = False
        self._plan(due)


def _stalled(part: Any, now: float, due: float) -> float:
    """``due`` of timers that ran just now, which cannot be ``now`` again: if it is (a ``next_due`` that
    disagrees with the timers, a bug), it is reported and the timers looked at ``STALLED_TICK`` later,
    not again and again at one moment."""
    if due > now:
        return due
    part.survived(RuntimeError(f"timers due at {due} just after they ran at {now}"), "planning the timers")
    return now + STALLED_TICK

"""Holding a driver's or a simulated device's ``next_due`` to its timers (tests/sim/test_deadlines.py,
tests/drivers/test_next_due.py), and a driver with its device on the simulation's loops (``Rig``).

The simulation's loops tick only when ``next_due`` says a timer is due (simulators/sim/links.py), so
it must never name a moment later than the first at which the timers act: ``probe`` runs the timers
(a driver's ``on_tick``, a device's ``step`` with nothing read) at moments before it, from the very
state the loop left, and fails when they change anything at all: the part's state (every field, the
link's, the authenticator's and the decoder's included), a byte written, an event posted, a line
logged.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from typing import Any

from drivers.sensors import SensorDriver
from drivers.shoe import ShoeDriver
from drivers.sign import SignDriver
from drivers.wire.auth import DEVICE, HOST, Authenticator
from drivers.wire.framing import FrameDecoder
from simulators.devices.sensors import SimulatedSensors
from simulators.devices.shoe import SimulatedShoe
from simulators.devices.sign import SimulatedSign
from simulators.sim.clock import VirtualClock
from simulators.sim.links import DeviceLoop, DriverLoop, MemoryLink

OWN = ("drivers.", "simulators.devices.")      # the parts whose objects are looked into, field by field
LONG_AFTER = 7200.0                             # "never due": probed up to this long after now


def state_of(obj: Any, seen: set[int] | None = None) -> Any:
    """``obj`` as plain values: every field of the drivers' and devices' own objects, containers
    item by item; anything else (a callable, a lock, a logger, a port) by its type's name."""
    seen = set() if seen is None else seen
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return obj
    if isinstance(obj, bytearray):
        return ("bytearray", bytes(obj))
    if isinstance(obj, (list, tuple, deque)):
        return (type(obj).__name__, [state_of(item, seen) for item in obj])
    if isinstance(obj, (set, frozenset)):
        return (type(obj).__name__, sorted(repr(state_of(item, seen)) for item in obj))
    if isinstance(obj, dict):
        return ("dict", [(repr(key), state_of(value, seen)) for key, value in obj.items()])
    if type(obj).__module__.startswith(OWN) and hasattr(obj, "__dict__") and not callable(obj):
        if id(obj) in seen:
            return ("seen", type(obj).__name__)
        seen.add(id(obj))
        return (type(obj).__name__, [(name, state_of(value, seen)) for name, value in sorted(vars(obj).items())])
    return ("opaque", type(obj).__name__)


class Recorder:
    """Stands in for a transport, a port, a logger or ``post``: every call is kept, none goes anywhere."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Callable[..., None]:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.calls.append((name, args))

    def __call__(self, *args: Any) -> None:
        self.calls.append(("call", args))


def moments(now: float, due: float, rng: random.Random) -> list[float]:
    """Moments from ``now`` to just before ``due``: now, one drawn between, the last before it."""
    top = due if due < math.inf else now + LONG_AFTER
    if top <= now:
        return []
    return sorted({now, rng.uniform(now, top), math.nextafter(top, -math.inf)} - {top})


def probe_driver(driver: Any, now: float, rng: random.Random) -> int:
    """``on_tick`` at moments before ``next_due`` changes nothing; the number of moments probed."""
    due = driver.next_due(now)
    probed = 0
    for moment in moments(now, due, rng):
        before = state_of(driver)
        outputs = Recorder()
        kept = driver.transport, driver.post, driver.log
        driver.transport = driver.post = driver.log = outputs
        try:
            driver.on_tick(moment)
        finally:
            driver.transport, driver.post, driver.log = kept
        assert outputs.calls == [], (type(driver).__name__, now, moment, due, outputs.calls)
        assert state_of(driver) == before, (type(driver).__name__, now, moment, due, "state changed")
        probed += 1
    return probed


def probe_device(device: Any, now: float, rng: random.Random) -> int:
    """A device's ``step`` with nothing read, at moments before its ``next_due``, changes nothing."""
    due = device.next_due()
    probed = 0
    for moment in moments(now, due, rng):
        before = state_of(device)
        port = Recorder()
        kept, device.port = device.port, port
        try:
            device.step(b"", moment)
        finally:
            device.port = kept
        assert port.calls == [], (type(device).__name__, now, moment, due, port.calls)
        assert state_of(device) == before, (type(device).__name__, now, moment, due, "state changed")
        probed += 1
    return probed


class Rig:
    """A real driver and its simulated device on the simulation's in-memory link and deadline-driven
    loops (simulators/sim/links.py), on a virtual clock that moves only in ``run``. ``sent``: each frame
    (framed) or packet (sign) the host wrote, with its time; ``events``: what the driver posted, with
    its time. After every timer or delivery ``run`` checks that each loop has a tick planned by its
    ``next_due`` and, a ``probe_share`` of the time, probes the timers before it."""

    def __init__(self, role: str, *, paired: bool = False, device: type | None = None, probe_share: float = 0.0,
                 seed: int = 7, **driver_settings: Any) -> None:
        driver_class, device_class = {"shoe": (ShoeDriver, SimulatedShoe), "sign": (SignDriver, SimulatedSign),
                                      "sensors": (SensorDriver, SimulatedSensors)}[role]
        self.rng = random.Random(seed)
        self.probe_share = probe_share
        self.probed = 0
        self.clock = clock = VirtualClock()
        self.link = MemoryLink(role, clock, random.Random(seed))
        clocks = {"clock": clock.monotonic, "wall": clock.wall}
        extra = {"address": "01"} if role == "sign" else {}
        self.device = (device or device_class)(self.link.device, **clocks, **extra)
        self.events: list[tuple[float, Any]] = []
        self.driver = driver_class(role, self.link.host, lambda e: self.events.append((clock.now, e)), **clocks,
                                   **extra, **driver_settings)
        if paired:
            key = bytes(range(32))
            nonces = random.Random(seed)
            self.device.link.auth = Authenticator(key, DEVICE, nonce=lambda: nonces.getrandbits(32))
            self.driver.link.auth = Authenticator(key, HOST, nonce=lambda: nonces.getrandbits(32))
        self.sent: list[tuple[float, Any]] = []
        frames, send = FrameDecoder(), self.link.to_device.send

        def sending(data: bytes) -> None:
            self.sent += [(clock.now, item) for item in (frames.feed(data) if role != "sign" else [data])]
            send(data)
        self.link.to_device.send = sending          # type: ignore[method-assign]
        self.device_loop = DeviceLoop(self.device, self.link, clock)
        self.loop = DriverLoop(self.driver, self.link, clock)
        self.device_loop.start()
        self.loop.start()

    def run(self, until: float) -> None:
        clock = self.clock
        while (due := clock.next_due()) is not None and due <= until:
            clock.advance(due)
            action = clock.pop_due()
            if action is not None:
                action()
            self.check()
        clock.advance(until)

    def check(self) -> None:
        now, driver, device = self.clock.now, self.driver, self.device
        if driver.connected and not self.loop.stopped:
            assert self.loop.ticks.planned <= driver.next_due(now), (now, self.loop.ticks.planned, driver.next_due(now))
        planned = self.device_loop.ticks.planned
        assert planned <= device.next_due(), (now, planned, device.next_due())
        if self.probe_share and self.rng.random() < self.probe_share:
            self.probed += probe_device(device, now, self.rng)
            if driver.connected:
                self.probed += probe_driver(driver, now, self.rng)

    def at(self, kind: type) -> list[float]:
        """When the driver posted each event of ``kind``."""
        return [at for at, event in self.events if isinstance(event, kind)]

    def sends(self, message_type: int) -> list[float]:
        """When the host wrote each frame of ``message_type`` (resends included)."""
        return [at for at, frame in self.sent if frame.type == message_type]

    def first_sends(self, message_type: int) -> list[float]:
        """When each message of ``message_type`` was first sent (a resend has the same SEQ)."""
        times, last = [], None
        for at, frame in self.sent:
            if frame.type == message_type and frame.seq != last:
                times.append(at)
            if frame.type >= 0x10:
                last = frame.seq
        return times

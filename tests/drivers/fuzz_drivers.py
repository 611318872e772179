"""Hostile device bytes (issue 16), driver side: each real driver's byte handler as a fuzz target.

The driver runs over a loopback transport (``Loopback``: what it writes is kept, nothing is read)
and is stepped as its I/O thread would step it, with a clock the target advances: ``on_bytes``
for each chunk that arrives, ``on_tick`` after it, a reconnection (``on_open``) after a loss.
Nothing may escape the handler, and no exception may have been caught inside it either (a
``DeviceFault`` saying "internal error": the driver went on, but a bug was hit). After an input a
good message is still turned into its event (``check``). The inputs and rules are those of
tests/wire/fuzzing.py.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

import structlog

from drivers.events import CommandFailed, DeviceFault, DeviceOffline, DeviceOnline, ShoeDoor, SignShowing, SpotChanged
from drivers.sensors import SensorDriver
from drivers.shoe import ShoeDriver
from drivers.sign import MESSAGE_LABEL, SignDriver
from drivers.wire import alpha
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import encode_frame
from drivers.wire.messages import DEVICE, Identity
from tests.wire.fuzz_codecs import AlphaResponses
from tests.wire.fuzzing import Broken, Rnd, Target, chunks, wire_case


class Loopback:
    """A transport that is always open: keeps what the driver writes, reads nothing."""

    url = "loopback://fuzz"

    def __init__(self) -> None:
        self.writes: deque[bytes] = deque(maxlen=64)

    def open(self) -> None:
        pass

    def read(self) -> bytes:
        return b""

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        pass


def quiet_log(driver: Any) -> None:
    """Info and warnings (one per bad frame) are not written; errors still go through structlog's
    processors (a caught exception's traceback is formatted), into nothing."""
    driver.log = structlog.wrap_logger(structlog.ReturnLogger(),
                                       wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))


def _kind(event: Any) -> str:
    if isinstance(event, DeviceFault):
        return "fault (refused)"
    if isinstance(event, DeviceOnline | DeviceOffline):
        return "online/offline"
    return "command failed" if isinstance(event, CommandFailed) else "game event"


class DriverTarget(Target):
    def __init__(self, driver: Any) -> None:
        self.events: list[Any] = []
        self.now = 0.0
        self.driver = driver
        quiet_log(driver)
        self._connect()

    def _connect(self) -> None:
        drv = self.driver
        with drv._lock:
            drv.transport.open()
            drv.connected = True
            drv._write(drv.on_open(self.now))

    def post(self, event: Any) -> None:
        self.events.append(event)

    def feed(self, data: bytes, r: Rnd) -> str:
        drv, start = self.driver, len(self.events)
        self.now += r.random() * 0.3
        with drv._lock:
            for chunk in chunks(r, data):
                drv.on_bytes(chunk, self.now)
            drv.on_tick(self.now)
        if not drv.connected:                       # the driver gave the line up: reopen, as its thread does
            self._connect()
        new = self.events[start:]
        del self.events[:-64]
        internal = [e for e in new if isinstance(e, DeviceFault) and e.reason.startswith("internal error")]
        if internal or drv.caught:
            raise Broken(f"the driver caught an exception: {internal[0].reason if internal else drv.caught}")
        return " + ".join(sorted({_kind(e) for e in new})) or "no event"


IDENTITY = Identity("Lab", "fuzz", "SN1", "1.0", (1, 2, 3, 4), 0)


class FramedDriverTarget(DriverTarget):
    hello_reply: Any
    def __init__(self, driver: Any, protocol: str) -> None:
        driver.post = self.post
        self.protocol = protocol
        super().__init__(driver)

    def case(self, r: Rnd) -> bytes:
        return wire_case(r, self.protocol, DEVICE)

    def good(self, r: Rnd) -> tuple[Any, type, dict[str, Any]]:
        raise NotImplementedError

    def check(self, r: Rnd) -> None:
        drv, start = self.driver, len(self.events)
        message, event, fields = self.good(r)
        with drv._lock:
            drv.on_bytes(b"\0", self.now)           # what was pending ends (it may be a frame after all)
            # a device's messages are acted on in a session: when the input knocked the driver offline,
            # the device answers its Hello first (a HelloReply then its Identity), as a real one does
            for step in ([] if drv.online else [self.hello_reply, IDENTITY]) + [message]:
                last = drv.link.last_seq
                seq = ((last if last is not None else 0) + 1) % 256
                drv.on_bytes(encode_frame(seq, *drv.catalog.encode(step)), self.now)
        if not any(isinstance(e, event) and all(getattr(e, k) == v for k, v in fields.items())
                   for e in self.events[start:]):
            raise Broken(f"a good {message!r} (SEQ {seq}) after the input posted {self.events[start:]!r}")


class ShoeTarget(FramedDriverTarget):
    name = "ShoeDriver.on_bytes"

    def __init__(self) -> None:
        self.hello_reply = shoe.HelloReply(1, 1, "LAB", "SN1")
        super().__init__(ShoeDriver("shoe", Loopback(), print), "shoe")

    def good(self, r: Rnd) -> tuple[Any, type, dict[str, Any]]:
        door = r.randrange(2)
        return shoe.Door(door), ShoeDoor, {"open": bool(door)}


class SensorsTarget(FramedDriverTarget):
    def __init__(self, positions: int | None) -> None:
        self.name = f"SensorDriver.on_bytes (positions={positions})"
        self.positions = positions or 9
        self.hello_reply = sp.HelloReply(1, self.positions, 1, "LAB", "SN1")
        super().__init__(SensorDriver("sensors", Loopback(), print, positions=positions), "sensors")

    def good(self, r: Rnd) -> tuple[Any, type, dict[str, Any]]:
        position, spot = r.randint(1, self.positions), r.randrange(5)
        value = 1 + r.randrange(10 ** 6)
        if self.driver.spots.get((position, spot), 0) == value:
            value += 1                              # never what the driver already knows
        return (sp.SpotReading(position, spot, sp.CHIPS, value), SpotChanged,
                {"position": position, "spot": sp.SPOTS[spot], "value": value})


class SignTarget(DriverTarget):
    """The sign driver reading a sign's answers (ACK, NAK and a status byte, noise), with packets
    of its own in flight; after the input a new message line is still sent and, once everything
    is ACKed (a packet after bytes no sign sends, once it is sent again), the driver is idle and
    says the sign shows it (unless a value update is still owed: its heartbeat sends those again,
    which this target does not wait for)."""

    name = "SignDriver.on_bytes"

    def __init__(self) -> None:
        self.responses = AlphaResponses()
        self.serial = 0
        driver = SignDriver("sign", Loopback(), self.post, address="01", clock=lambda: self.now)
        super().__init__(driver)

    def case(self, r: Rnd) -> bytes:
        if r.random() < 0.2:
            self.driver.show_values(r.randrange(10 ** 7), r.randrange(10 ** 6), r.randrange(10 ** 5))
        return self.responses.case(r)

    def check(self, r: Rnd) -> None:
        drv, start = self.driver, len(self.events)
        self.serial += 1
        text = f"M{self.serial}"
        drv.transport.writes.clear()
        drv.show_message(text)
        for _ in range(64):                         # ACK what is in flight, ours last
            if drv._in_flight is None and not drv._queue:
                break
            with drv._lock:
                if drv._foreign:                    # bytes no sign sends came after this packet went out:
                    self.now += drv.ack_timeout     # an ACK is believed once it is sent again (or the line
                    drv.on_tick(self.now)           # is given up and reopened, as the driver's thread does)
                if drv.connected:
                    drv.on_bytes(b"\x06", self.now)
            if not drv.connected:
                self._connect()
        sent = alpha.packet(alpha.write_string(MESSAGE_LABEL, text), "01") in drv.transport.writes
        shown = any(isinstance(e, SignShowing) and e.message == text for e in self.events[start:])
        if not sent or drv._in_flight is not None or drv._queue or not (shown or drv._owed):
            raise Broken(f"the message line {text!r}: sent {sent}, shown {shown}, in flight {drv._in_flight}, "
                         f"queued {len(drv._queue)}, owed {drv._owed}")


def driver_targets() -> list[Target]:
    return [ShoeTarget(), SensorsTarget(None), SensorsTarget(6), SignTarget()]

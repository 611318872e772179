"""Device side of the framed protocols, running on a port: the base of the
simulated shoe and sensors.

Owns the device's I/O thread and its end of the link (drivers/wire/link.py, the
same code the host runs). A subclass implements ``handle(message, now)`` and
calls ``emit(message)`` to send; its model state is guarded by ``self.lock``.
Faults a test or the CLI can switch on at this layer: ``silent`` (answer
nothing: a dead or unplugged device), ``corrupt_next`` (flip a byte of the next
frames sent), ``delay`` (hold every reply back that many seconds).

A simulated device never dies of someone else's mistake: an exception in a
listener (the scripted players), in handling a message or in a step of the
I/O thread is logged (logger ``simulators.devices``, with its traceback; the
same error again at most every ``REPEAT_LOG_EVERY`` seconds) and the device
goes on: the message is still sent, the other listeners still hear it, the
thread keeps running.
"""

from __future__ import annotations

import hashlib
import logging
import pathlib
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from math import inf
from typing import Any

from drivers.wire.auth import DEVICE, Authenticator
from drivers.wire.framing import encode_frame
from drivers.wire.link import Link
from drivers.wire.link_words import Delivered
from drivers.wire.messages import (
    CAP_AUTHENTICATION,
    CAP_KEEPS_EVENTS,
    CAP_TIMESTAMPS,
    Catalog,
    Identity,
    SetClock,
    UseCapabilities,
)

log = logging.getLogger("simulators.devices")
RECEIVED_KEPT = 256            # messages a simulated device keeps for tests to look at
REPEAT_LOG_EVERY = 10.0         # seconds between two logs of the same error of one device


class PortDevice:
    """A simulated device's I/O thread on a port: ``step(data, now)`` every 10 ms or on input."""

    def __init__(self, port, *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.port = port
        self.clock = clock
        self.wall = wall                 # UTC seconds (a simulation's virtual clock: simulators/sim)
        self.lock = threading.RLock()
        self._silent = False
        self.caught = 0                  # exceptions caught and logged (the device went on)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._logged: dict[str, float] = {}

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
            try:
                data = self.port.read(0.01)
                with self.lock:
                    self.step(data, self.clock())
            except Exception as err:     # the thread must survive anything
                self.survived(err, "step")
                time.sleep(0.01)         # a port that fails at once every time must not spin

    def survived(self, err: BaseException, where: str) -> None:
        """Log an exception the device caught and went on after."""
        self.caught += 1
        key = f"{where}: {type(err).__name__}: {err}"
        now = self.clock()
        last = self._logged.get(key)
        if last is not None and now - last < REPEAT_LOG_EVERY:
            return
        if len(self._logged) >= 100:     # errors whose text varies: keep the memory bounded
            self._logged.clear()
        self._logged[key] = now
        log.error("simulated %s: %s failed (the device goes on): %s: %s", type(self).__name__, where,
                  type(err).__name__, err, exc_info=(type(err), err, err.__traceback__))

    @property
    def silent(self) -> bool:
        """Answering nothing (a dead or unplugged device): a fault a test or the CLI switches."""
        return self._silent

    @silent.setter
    def silent(self, on: bool) -> None:
        with self.lock:                  # the device's thread sees it between two steps
            self._silent = on

    def step(self, data: bytes, now: float) -> None:
        raise NotImplementedError

    def next_due(self) -> float:
        """When ``step`` with nothing read next acts (inf: not before something is read or sent): the
        device's own timers. Before it such a step changes nothing (the simulation's loop sleeps)."""
        return inf


def _firmware_checksum(cls: type) -> tuple[int, ...]:
    """A simulated device's firmware is its source: its SHA-256, as a real one reports its image's."""
    source = sys.modules[cls.__module__].__file__ or ""
    return tuple(hashlib.sha256(pathlib.Path(source).read_bytes()).digest())


class FramedDevice(PortDevice):
    catalog: Catalog
    decode: Callable
    manufacturer = "Table simulators"
    firmware_version = "1.0"
    capabilities = CAP_TIMESTAMPS | CAP_KEEPS_EVENTS | CAP_AUTHENTICATION

    def decode_message(self, type_code: int, payload: bytes) -> Any:
        """A frame's message, or MessageError (the link NAKs it): the catalog's decoder, which a device
        narrows where it knows more than the protocol (the sensors' own positions)."""
        return type(self).decode(type_code, payload)

    def __init__(self, port, *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, heartbeat_every: float = 1.0,
                 key: bytes | None = None) -> None:
        super().__init__(port, clock=clock, wall=wall)
        # a device keeps its events through a link loss of any length (docs/protocols/framing.md)
        self.link = Link(self.decode_message, heartbeat_every=heartbeat_every, silence_after=3600,
                         keep_undelivered=True)
        if key is not None:
            self.pair(key)
        self.corrupt_next = 0
        self.delay = 0.0
        # the last messages received, for tests to look at: bounded, so a long run's memory is flat
        self.received: deque[Any] = deque(maxlen=RECEIVED_KEPT)
        self.capabilities_used = 0          # what the host turned on (UseCapabilities)
        self.clock_offset: float | None = None      # host's UTC minus our time.time(), once set
        self.serial = f"SIM-{type(self).__name__}"
        self._delayed: list[tuple[float, bytes]] = []
        # Callbacks (direction, message) for what the device took and sent: how scripted
        # players "see" the felt and the shoe. Called on the device's thread.
        self.listeners: list[Callable[[str, Any], None]] = []

    def step(self, data: bytes, now: float) -> None:
        if data and not self._silent:
            events, out = self.link.receive(data, now)
            if out:
                self._send(out, now)
            for event in events:
                if isinstance(event, Delivered):
                    message = event.message
                    self.received.append(message)
                    try:
                        if not self._session(message):
                            self.handle(message, now)
                    except Exception as err:     # one bad message must not stop the device
                        self.survived(err, f"handling {type(message).__name__}")
                    self._tell("received", message)
        if not self._silent:
            _, out = self.link.poll(now)
            if out:
                self._send(out, now)
        if self._delayed:
            self._flush_delayed(now)

    def next_due(self) -> float:
        """The link's timers (none while silent: nothing is polled) and the replies held back."""
        due = inf if self._silent else self.link.next_due()
        for at, _ in self._delayed:
            due = min(due, at)
        return due

    def pair(self, key: bytes) -> None:
        """Give the device its pairing key: from now on every frame is authenticated."""
        with self.lock:
            self.link.auth = Authenticator(key, DEVICE)

    def frame(self, seq: int, type_: int, payload: bytes) -> bytes:
        """A hand-made frame sealed as this device seals its own (for ``write_raw``): what a
        device with our key, but a bug, would send."""
        auth = self.link.auth
        return encode_frame(seq, type_, payload, seal=None if auth is None else lambda b: auth.seal(b) or b"")

    @property
    def device_time_ms(self) -> int | None:
        """Our clock as the host set it (ms since 1970 UTC), when the host uses our timestamps."""
        if self.clock_offset is None or not self.capabilities_used & CAP_TIMESTAMPS:
            return None
        return int((self.wall() + self.clock_offset) * 1000)

    def _session(self, message: Any) -> bool:
        """The session messages every framed device answers alike; True when ``message`` was one.
        A Hello is the subclass's to answer (its HelloReply); our Identity follows it."""
        if isinstance(message, UseCapabilities):
            self.capabilities_used = message.capabilities & self.capabilities
            return True
        if isinstance(message, SetClock):
            self.clock_offset = message.utc_ms / 1000 - self.wall()
            return True
        if type(message).TYPE == 0x10:                  # Hello: the reply, then who we are
            self.handle(message, self.clock())
            self.emit(Identity(self.manufacturer, type(self).__name__, self.serial, self.firmware_version,
                               _firmware_checksum(type(self)), self.capabilities))
            return True
        return False

    def emit(self, message: Any) -> None:
        """Send a message to the host (reliably, through the link)."""
        self._tell("sent", message)          # before the bytes leave: what the table sees next
        with self.lock:                      # is never ahead of what the players saw
            now = self.clock()
            type_code, payload = self.catalog.encode(message)
            # stamped with the time it happened: kept through a link loss, it still says when
            self._send(self.link.send(type_code, payload, now, time_ms=self.device_time_ms), now)

    def _tell(self, direction: str, message: Any) -> None:
        for listener in list(self.listeners):
            try:
                listener(direction, message)
            except Exception as err:         # a listener's bug is not the device's
                self.survived(err, f"a listener of {direction} {type(message).__name__}")

    def write_frame(self, seq: int, type_: int, payload: bytes) -> bytes:
        """``frame`` put on the line at once: sealed and written under the device's lock, so no frame
        of the device's own (a heartbeat, an ACK) takes a later counter and reaches the host first,
        which would make ours a replay (a flake of the fault-code test on a loaded machine)."""
        with self.lock:
            data = self.frame(seq, type_, payload)
            self.port.write(data)
        return data                         # for a test that replays it

    def write_raw(self, data: bytes) -> None:
        """Put bytes on the line as they are (line noise, a hand-made bad frame)."""
        self.port.write(data)

    def _send(self, data: bytes, now: float) -> None:
        if not data or self._silent:
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

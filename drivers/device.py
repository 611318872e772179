"""Driver base: one device, its transport, its I/O thread, reconnection with backoff.

Owns the device's life cycle. The I/O thread opens the transport, reads,
feeds the protocol and runs its timers; commands from the controller thread
take the same lock, so protocol state has one writer at a time. Everything the
controller learns arrives through ``post`` (the controller's queue), never by
callbacks into game state.

The framed devices' link and session are drivers/framed.py's.

Failure handling: a port that will not open, vanishes or errors is closed
and reopened with exponential backoff; one ``DeviceOffline`` is posted per
outage (naming device, URL and reason), and ``DeviceOnline`` when the device
has answered the handshake again. Nothing here raises into the controller.

No input ends the I/O thread. An exception from a protocol hook, a message
handler or a callback (``post``) is logged with its traceback and the bytes
being handled, posted as a ``DeviceFault`` (the same error at most every
``REPEAT_REPORT_EVERY`` seconds; ``caught`` counts them all) and the thread goes
on with the next event and the next read; a port failing in an unforeseen way
is a lost connection. Should the thread end anyway without being asked to
stop, it posts ``DeviceOffline`` saying why (so the table holds the round): a
driver whose thread has ended is never "online".
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from math import inf
from typing import Any, Protocol

import structlog

from drivers.events import DeviceFault, DeviceOffline, DeviceOnline
from drivers.transport import Transport, TransportError

Post = Callable[[Any], None]
REPEAT_REPORT_EVERY = 10.0      # seconds between two reports of the same caught exception


class HelloReply(Protocol):
    """What a framed driver reads of its device's answer to the handshake."""

    @property
    def protocol_version(self) -> int: ...


class DeviceDriver:
    def __init__(self, name: str, transport: Transport, post: Post, *,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time,
                 backoff: tuple[float, float] = (0.2, 5.0)):
        self.name = name
        self.transport = transport
        self.url = transport.url
        self.post = post
        self.clock = clock
        self.wall = wall                # UTC seconds: the device's clock is set to it (a simulation's is virtual)
        self.backoff = backoff
        self.online = False
        self.connected = False
        self._reported_offline = False
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.caught = 0                 # exceptions caught in the I/O thread (the driver went on)
        self._reported: dict[str, float] = {}
        self.log = structlog.get_logger("drivers").bind(device=name, url=self.url)

    # --- life cycle --------------------------------------------------------------

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"driver-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout)
        with self._lock:
            self.transport.close()
            self.connected = False

    @property
    def running(self) -> bool:
        """The I/O thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        reason = None
        try:
            self._loop()
        except BaseException as err:    # past every guard below: the thread ends, and says why
            reason = f"driver thread ended: {type(err).__name__}: {err}"
            self.log.critical("device.thread_ended", error=f"{type(err).__name__}: {err}", exc_info=err)
        finally:
            self._ended(reason)

    def _loop(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            if not self.connected:
                try:
                    # opened outside the lock: a port that takes seconds to open (a socket connect)
                    # must not hold the controller's thread, whose commands meanwhile fail at once
                    self.transport.open()
                    with self._lock:
                        self.connected = True
                        self.log.info("device.opened")
                        self._write(self.on_open(self.clock()))
                    delay = self.backoff[0]
                except Exception as err:            # TransportError, or a handshake that failed
                    delay = self._retry_later(err, "opening the session", delay)
                    continue
            try:
                data = self.transport.read()
            except Exception as err:                # TransportError, or a port failing unforeseen
                delay = self._retry_later(err, "reading the port", delay)
                continue
            try:
                now = self.clock()
                with self._lock:
                    if data:
                        self.on_bytes(data, now)
                    self.on_tick(now)
            except Exception as err:                # TransportError: a write failed; else a handler's bug
                if isinstance(err, TransportError):
                    delay = self._retry_later(err, "writing", delay)
                else:                               # hostile bytes or a bug: reported, and on to the next
                    self.survived(err, "handling bytes" if data else "running timers", data)

    def _retry_later(self, err: Exception, where: str, delay: float) -> float:
        """The connection is lost: close, report, wait ``delay``; the next wait (exponential backoff)."""
        if not isinstance(err, TransportError):
            self.survived(err, where)
        self._lost(_why(err))
        self._stop.wait(delay)
        return min(delay * 2, self.backoff[1])

    def _lost(self, reason: str) -> None:
        with self._lock:
            self.connected = False
            try:
                self.transport.close()
            except Exception as err:                # closing a broken port must not end the thread
                self.log.warning("device.close_failed", error=_why(err))
        self.went_offline(reason)

    def _ended(self, reason: str | None) -> None:
        """The I/O thread is ending: asked to (``stop``), or not (``reason``: DeviceOffline)."""
        try:
            with self._lock:
                self.connected = False
                self.transport.close()
        except Exception as err:
            self.log.warning("device.close_failed", error=_why(err))
        if reason is None and self._stop.is_set():
            self.online = False
            self.log.info("device.stopped")
            return
        self.online = False
        self._reported_offline = True
        reason = reason or "driver thread ended"
        self.log.error("device.offline", reason=reason)
        self._post(DeviceOffline(self.name, self.url, reason))

    def survived(self, err: BaseException, where: str, raw: bytes = b"") -> None:
        """An exception the I/O thread caught and went on after: logged with the bytes, posted as
        DeviceFault (the same one at most every REPEAT_REPORT_EVERY seconds)."""
        self.caught += 1
        text = f"{type(err).__name__}: {err}"
        key = f"{where}: {text}"
        now = self.clock()
        last = self._reported.get(key)
        if last is not None and now - last < REPEAT_REPORT_EVERY:
            return
        if len(self._reported) >= 100:              # errors whose text varies: bounded memory
            self._reported.clear()
        self._reported[key] = now
        raw_hex = raw[:64].hex(" ")
        self.log.error("device.internal_error", where=where, error=text, bytes=raw_hex, caught=self.caught,
                       exc_info=err)
        self._post(DeviceFault(self.name, self.url, f"internal error {where} ({text}); the driver goes on",
                               raw_hex))

    def _post(self, event: Any) -> None:
        """``post`` from the driver's own error paths: a failing callback is logged, never raised."""
        try:
            self.post(event)
        except Exception as err:
            self.log.error("device.post_failed", lost_event=type(event).__name__, error=_why(err), exc_info=err)

    # --- state reporting -----------------------------------------------------------

    def went_online(self, info: dict[str, Any]) -> None:
        self._reported_offline = False
        if not self.online:
            self.online = True
            self.log.info("device.online", **info)
            self._post(DeviceOnline(self.name, self.url, info))

    def went_offline(self, reason: str) -> None:
        if self.online or not self._reported_offline:
            self.online = False
            self._reported_offline = True
            self.log.warning("device.offline", reason=reason)
            self._post(DeviceOffline(self.name, self.url, reason))

    def fault(self, reason: str, raw: bytes = b"", *, security: bool = False) -> None:
        raw_hex = raw[:64].hex(" ")
        self.log.warning("device.bad_input", reason=reason, bytes=raw_hex, security=security)
        self._post(DeviceFault(self.name, self.url, reason, raw_hex, security))

    def _write(self, data: bytes) -> None:
        if data:
            self.transport.write(data)

    # --- protocol hooks (called with the lock held) -----------------------------------

    def on_open(self, now: float) -> bytes:
        return b""

    def on_bytes(self, data: bytes, now: float) -> None:
        raise NotImplementedError

    def on_tick(self, now: float) -> None:
        pass

    def next_due(self, now: float) -> float:
        """When ``on_tick`` next acts (inf: not before something is heard, sent or commanded): before
        it, ``on_tick`` changes nothing, so a loop may sleep until then (the simulation's does)."""
        return inf


def _why(err: BaseException) -> str:
    return str(err) if isinstance(err, TransportError) else f"{type(err).__name__}: {err}"

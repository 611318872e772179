"""Jackpot sign driver (host side): an Alpha protocol LED sign on a serial line.

Owns what the sign should show and getting it there without flicker: on every
(re)connection it writes the memory configuration and a TEXT layout that calls
STRING files, then only ever rewrites the STRINGs (MEGA, MAJOR, MINOR values
and a message line). With ACK/NAK enabled on the sign, each packet waits for
its ACK; a NAK or silence is retried, then reported (``CommandFailed`` naming
the sign's status, and ``DeviceOffline`` when it stays silent); a periodic
rewrite of one STRING doubles as the heartbeat. Without ACK/NAK the sign
cannot be heard, and a written packet is all that can be known.

``SignShowing`` is posted only when every STRING of the current values has
been acknowledged since they last changed: a value packet that failed stays
owed, and the heartbeat sends the owed values again instead of the message
line, so a sign that refused an update is retried until it shows it.
"""

from __future__ import annotations

from collections import deque

from drivers.device import DeviceDriver
from drivers.events import CommandFailed, SignShowing
from drivers.wire import alpha

LABELS = {"mega": "M", "major": "J", "minor": "N"}
MESSAGE_LABEL = "W"
LAYOUT_LABEL = "A"


def format_cents(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


class SignDriver(DeviceDriver):
    def __init__(self, name, transport, post, *, address: str = "00", acks: bool = True,
                 ack_timeout: float = 0.5, max_attempts: int = 3, heartbeat_every: float = 5.0,
                 **kwargs):
        try:
            address = alpha.check_address(address)
        except alpha.AlphaEncodeError:
            # Refused here, where it is given, not in the I/O thread at the first packet.
            raise ValueError(f"sign driver setting 'address': {address!r} is not the sign's address, "
                             "two hex digits (00 = every sign)") from None
        super().__init__(name, transport, post, **kwargs)
        self.address = address
        self.acks = acks
        self.ack_timeout = ack_timeout
        self.max_attempts = max_attempts
        self.heartbeat_every = heartbeat_every
        self.values: dict[str, int] = {}
        self.message = ""
        self._responses = alpha.ResponseDecoder()
        self._queue: deque[tuple[str, bytes]] = deque()
        self._in_flight: tuple[str, bytes] | None = None
        self._attempts = 0
        self._sent_at = 0.0
        self._last_sent = 0.0
        self._owed: set[str] = set()        # value STRINGs not yet acknowledged since they changed

    # --- commands (controller thread) ---------------------------------------------------

    def show_values(self, mega: int, major: int, minor: int) -> None:
        with self._lock:
            self.values = {"mega": mega, "major": major, "minor": minor}
            self._enqueue_values()
            self._pump(self.clock())

    def show_message(self, text: str) -> None:
        with self._lock:
            self.message = text
            self._enqueue("STRING message", alpha.write_string(MESSAGE_LABEL, text[:alpha.MAX_STRING]))
            self._pump(self.clock())

    def clear(self) -> None:
        self.show_message("")

    # --- protocol -------------------------------------------------------------------------

    def on_open(self, now: float) -> bytes:
        self._responses = alpha.ResponseDecoder()
        self._queue.clear()
        self._in_flight = None
        layout = (alpha.call_string(MESSAGE_LABEL) + b" MEGA " + alpha.call_string("M")
                  + b" MAJOR " + alpha.call_string("J") + b" MINOR " + alpha.call_string("N"))
        entries = [alpha.FileEntry(LAYOUT_LABEL, "A", 0x100)]
        entries += [alpha.FileEntry(label, "B", 0x20) for label in LABELS.values()]
        entries.append(alpha.FileEntry(MESSAGE_LABEL, "B", alpha.MAX_STRING))
        self._enqueue("memory configuration", alpha.memory_config(entries))
        self._enqueue("layout", alpha.write_text(LAYOUT_LABEL, layout))
        if self.values:
            self._enqueue_values()
        self._enqueue("STRING message", alpha.write_string(MESSAGE_LABEL, self.message))
        if not self.acks:
            self.went_online({"acks": False})
        self._pump(now)
        return b""

    def _enqueue_values(self) -> None:
        for key, label in LABELS.items():
            self._owed.add(f"STRING {key}")
            self._enqueue(f"STRING {key}", alpha.write_string(label, format_cents(self.values[key])))

    def _enqueue(self, what: str, command: bytes) -> None:
        self._queue.append((what, alpha.packet(command, self.address)))

    def _pump(self, now: float) -> None:
        if not self.connected:
            return
        while self._in_flight is None and self._queue:
            what, data = self._queue.popleft()
            self._write(data)
            self._last_sent = now
            if self.acks:
                self._in_flight, self._attempts, self._sent_at = (what, data), 1, now
            else:
                self._owed.discard(what)
                if not self._queue:
                    self._showing()

    def _showing(self) -> None:
        if not self._owed:
            self.post(SignShowing(self.name, dict(self.values), self.message))

    def on_bytes(self, data: bytes, now: float) -> None:
        for response in self._responses.feed(data):
            if self._in_flight is None:
                continue
            what, packet = self._in_flight
            if isinstance(response, alpha.SignAck):
                self.went_online({"acks": True})
                self._in_flight = None
                self._owed.discard(what)
                if not self._queue:
                    self._showing()
            else:
                reasons = ", ".join(response.reasons)
                self.fault(f"sign refused {what}: NAK ({reasons})", bytes((alpha.NAK, response.status)))
                self._retry(now, f"NAK ({reasons})")
        self._pump(now)

    def on_tick(self, now: float) -> None:
        if self._in_flight and now - self._sent_at >= self.ack_timeout:
            self._retry(now, f"no answer within {self.ack_timeout:.1f} s")
        elif self.acks and not self._in_flight and not self._queue and \
                now - self._last_sent >= self.heartbeat_every:
            if self._owed and self.values:
                self._enqueue_values()          # a refused update is retried until the sign takes it
            else:
                self._enqueue("heartbeat", alpha.write_string(MESSAGE_LABEL, self.message))
        self._pump(now)

    def _retry(self, now: float, reason: str) -> None:
        if self._in_flight is None:
            return
        what, packet = self._in_flight
        if self._attempts < self.max_attempts:
            self._attempts += 1
            self._sent_at = now
            self._write(packet)
            return
        self._in_flight = None
        self.post(CommandFailed(self.name, what, f"{reason} after {self._attempts} attempts"))
        if reason.startswith("no answer"):
            # Treated as a lost connection: reopened with backoff, then rewritten in full.
            self._queue.clear()
            self._lost(f"sign silent: {reason}")

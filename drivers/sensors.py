"""Bet-spot sensor driver (host side), over serial.

Owns the host's picture of every spot and turns raw readings into
``SpotChanged`` events (placed, changed, removed). A reading that repeats
what is known changes nothing, except the first reading of a spot after its
``SensorFault``: that says the spot reads again, and is always posted. After
every (re)connection it asks for a snapshot, so chips moved while the link was
down are seen, and asks again (``SNAPSHOT_AGAIN_AFTER``) until one comes: a
request the sensors never acknowledged (silent during the handshake) or never
answered is not the end of it. ``FeltRead`` says the session's snapshot came.
The locks the table asked for are its wanted state, not one-shot commands: a Lock
the sensors never acknowledged within the session has that state sent again
(``LockPicture``: a whole-table Lock and each position's exceptions, a few frames
however many Locks made it), so spots are never left locked through a betting
round (a new session is told its locks by the engine after the Hello).
A reading, fault or snapshot with chips for a position the table does not have
is refused whole (NAK 2), never a wager; sensors that say at the handshake
they cover other positions than the table's are reported.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from drivers.events import DeviceMessage, FeltRead, SpotChanged, SpotFault
from drivers.framed import FramedDriver
from drivers.wire import sensor_protocol as proto
from drivers.wire.link_words import LinkEvent, MessageError, SendFailed
from drivers.wire.messages import Message

# Seconds a session's SnapshotRequest may go unanswered (dropped after its retransmissions, or
# acknowledged and never answered) before it is sent again. A request lost while the sensors were
# silent for less than the link's silence timeout (no PeerSilent, so no new session) was never asked
# again: the table showed an empty felt with chips on it until a supervisor voided the round.
SNAPSHOT_AGAIN_AFTER = 3.0


class LockPicture:
    """The felt's wanted locks, folded from the Locks sent: the spots locked at every position
    (``base``, from whole-table Locks) and the positions told otherwise since. Folded, not kept as the
    Locks themselves: while Super 6 stays closed no whole-table Lock is sent for hours, and a list of
    them grew to dozens of frames that a restarted sensor (no session, so no ACK) made the Hello wait
    behind, one 4 x 0.25 s failure each."""

    def __init__(self) -> None:
        self.known = False                  # no whole-table Lock yet (the engine's first after a Hello)
        self.base = 0                       # spot mask locked at every position
        self.positions: dict[int, int] = {}     # position -> its spot mask locked, where not ``base``

    def apply(self, lock: proto.Lock) -> None:
        def fold(mask: int) -> int:
            return mask | lock.spots if lock.locked else mask & ~lock.spots
        if lock.position == proto.ALL_POSITIONS:
            self.known = True
            self.base = fold(self.base)
            self.positions = {p: fold(m) for p, m in self.positions.items() if fold(m) != self.base}
        else:
            mask = fold(self.positions.get(lock.position, self.base))
            self.positions.pop(lock.position, None)
            if mask != self.base:
                self.positions[lock.position] = mask

    def locks(self) -> list[proto.Lock]:
        """The Locks that make this picture on sensors in any state: the whole table, then each
        position that differs from it."""
        if not self.known:
            return []
        every = [proto.Lock(proto.ALL_POSITIONS, proto.ALL_SPOTS, 1)]
        if proto.ALL_SPOTS & ~self.base:
            every.append(proto.Lock(proto.ALL_POSITIONS, proto.ALL_SPOTS & ~self.base, 0))
        for position, mask in sorted(self.positions.items()):
            if mask & ~self.base:
                every.append(proto.Lock(position, mask & ~self.base, 1))
            if self.base & ~mask:
                every.append(proto.Lock(position, self.base & ~mask, 0))
        return every


class SensorDriver(FramedDriver):
    catalog = proto.catalog
    decode = proto.host_decode
    hello = proto.Hello(proto.PROTOCOL_VERSION)
    hello_reply = proto.HelloReply
    protocol_version = proto.PROTOCOL_VERSION

    def __init__(self, *args: Any, positions: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.positions = positions          # the table's positions: a reading for another is refused
        self.spots: dict[tuple[int, int], int | None] = {}   # (position, spot) -> value; absent = empty
        self.faulted: set[tuple[int, int]] = set()             # spots reported faulty, until they read again
        self.felt_read = False          # this session's Snapshot came (asked again until it does)
        self._snapshot_asked_at = 0.0   # when it was last asked for
        # the felt's wanted locks (under the driver's lock: the engine's thread folds each Lock in, the
        # I/O thread reads it); sent again after a Lock went unacknowledged (the sensors silent for less
        # than the silence timeout: a betting round stayed locked, no chips read, until a supervisor
        # voided it)
        self._wanted_locks = LockPicture()
        self._locks_unsure = False

    def decode_message(self, type_code: int, payload: bytes) -> Message:
        """A reading for a position the table does not have is a bad message: NAK 2, never a wager."""
        message = super().decode_message(type_code, payload)
        if self.positions is not None:
            if isinstance(message, proto.Snapshot):
                where = [r.position for r in message.readings() if r.state == proto.CHIPS]
            elif isinstance(message, (proto.SpotReading, proto.SensorFault)):
                where = [message.position]
            else:
                where = []
            bad = [p for p in where if not 1 <= p <= self.positions]
            if bad:
                raise MessageError(f"position {bad[0]} is not a position of this table (1 to {self.positions})")
        return message

    # --- commands in the controller's words (controller/round/ports.py: SensorPort) -------------

    def lock(self, locked: bool = True, *, position: int | None = None,
             spots: Collection[str] | None = None) -> bool:
        """Lock (chips may not change) or unlock ``spots`` (names; None: all) of ``position``
        (None: every position)."""
        mask = proto.ALL_SPOTS if spots is None else proto.spot_mask(spots)
        message = proto.Lock(proto.ALL_POSITIONS if position is None else position, mask, int(locked))
        with self._lock:
            self._wanted_locks.apply(message)
            return self.send(message)

    def lamp(self, position: int, spot: str, lamp: str) -> bool:
        """Light a spot: ``lamp`` is "off", "on" or "flash"."""
        return self.send(proto.Lamp(position, proto.spot_code(spot), proto.LAMP_MODES[lamp]))

    def on_handshake(self, reply: Any, now: float) -> None:
        if self.positions is not None and reply.positions != self.positions:
            self.fault(f"the sensors cover {reply.positions} positions, the table has {self.positions}: "
                       "readings for a position beyond the table are refused; one not covered is never read")
        self.felt_read = False
        self._ask_snapshot(now)
        self._locks_unsure = False      # a new session: the engine tells the locks again (sensors.md)

    def _send_wanted_locks(self, now: float) -> None:
        self._locks_unsure = False
        for message in self._wanted_locks.locks():
            self._write(self.queue(message, now))

    def _ask_snapshot(self, now: float) -> None:
        self._snapshot_asked_at = now
        self._write(self.queue(proto.SnapshotRequest(), now))

    def on_tick(self, now: float) -> None:
        super().on_tick(now)
        if (self.online and not self.felt_read and now >= self._snapshot_asked_at + SNAPSHOT_AGAIN_AFTER
                and not self.link.sending(proto.SnapshotRequest.TYPE)):
            self.log.info("sensor.snapshot_asked_again", after=round(now - self._snapshot_asked_at, 3))
            self._ask_snapshot(now)
        if self.online and self._locks_unsure and not self.link.sending(proto.Lock.TYPE):
            self.log.info("sensor.locks_sent_again", locks=len(self._wanted_locks.locks()))
            self._send_wanted_locks(now)

    def next_due(self, now: float) -> float:
        """The framed timers, the Snapshot asked again and the locks sent again (at once)."""
        due = super().next_due(now)
        if not self.online:
            return due
        if not self.felt_read and not self.link.sending(proto.SnapshotRequest.TYPE):
            due = min(due, self._snapshot_asked_at + SNAPSHOT_AGAIN_AFTER)
        if self._locks_unsure and not self.link.sending(proto.Lock.TYPE):
            due = min(due, now)
        return due

    def _handle_one(self, event: LinkEvent, now: float) -> None:
        super()._handle_one(event, now)
        if isinstance(event, SendFailed) and event.message_type == proto.Lock.TYPE:
            self._locks_unsure = True           # sent again at the next tick while online

    def went_offline(self, reason: str) -> None:
        self.felt_read = False          # a new session asks again
        self._locks_unsure = False      # and is told its locks by the engine after the Hello
        super().went_offline(reason)

    def on_message(self, message: Any, now: float) -> None:
        if isinstance(message, proto.SpotReading):
            self._reading(message)
        elif isinstance(message, proto.Snapshot):
            # a spot whose sensor reported a fault is not read by a Snapshot's row (it says empty for
            # a spot it cannot read): only a SpotReading of the spot clears the fault (sensors.md)
            for reading in message.readings():
                if (reading.position, reading.spot) not in self.faulted:
                    self._reading(reading)
            if self.held_back:
                # the ended session's answer, kept through the link loss: its chips are the felt as it
                # was (what changed since follows it), but this session's Snapshot, asked at the
                # handshake, is the one that says every spot was read since the sensors connected
                self.log.info("sensor.snapshot_kept_from_before")
                return
            self.felt_read = True
            self.post(FeltRead(self.name))
        elif isinstance(message, proto.SensorFault):              # spot checked when decoded
            self.faulted.add((message.position, message.spot))
            self.post(SpotFault(self.name, message.position, proto.SPOTS[message.spot], message.problem))
        else:
            self.post(DeviceMessage(self.name, message))

    def _reading(self, r: proto.SpotReading) -> None:
        key = (r.position, r.spot)
        value = None if r.value == proto.UNKNOWN_VALUE else r.value
        known = key in self.spots
        previous = self.spots.get(key)
        reads_again = key in self.faulted           # posted even unchanged: the spot is back
        self.faulted.discard(key)
        if r.state == proto.EMPTY:
            if not known and not reads_again:
                return
            self.spots.pop(key, None)
            change = "removed"
            value = None
        else:
            if known and previous == value and not reads_again:
                return
            self.spots[key] = value
            change = "changed" if known else "placed"
        self.log.debug("sensor.spot", position=r.position, spot=proto.SPOTS[r.spot], change=change,
                      value=value, previous=previous)
        self.post(SpotChanged(self.name, r.position, proto.SPOTS[r.spot], change, value, previous))

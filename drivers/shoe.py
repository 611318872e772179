"""Card shoe / shuffler driver (host side), over serial or USB.

Owns the commands the controller gives the shoe (the controller's ``ShoePort``:
shuffle, check the deck, deliver a hand, report its status) and the
translation of the shoe's messages into the game's events (drivers/events.py):
a shuffle done, a hand with the cards read in order (an unreadable card as
None), the status, deck checks, jams, the door and the shoe's own faults (a
count error apart: it is a misdeal). It also keeps the shuffle's time limit
(``shuffle_limit``, a setting of drivers/registry.py): a shuffle not complete
within it is reported once (``ShuffleLate``) and the shoe asked for its
status, which says why when it knows. Wire codes stay here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from drivers.events import (
    Card,
    DeckChecked,
    DeviceMessage,
    DeviceTrouble,
    HandDealt,
    ShoeCount,
    ShoeDoor,
    ShoeJam,
    ShoeMiscounted,
    ShuffleDone,
    ShuffleLate,
)
from drivers.framed import FramedDriver
from drivers.wire import shoe_protocol as proto


def _iso(time_ms: int | None) -> str | None:
    """A device's stamp (ms since 1970 UTC) as the journal writes times; None when unstamped."""
    if time_ms is None:
        return None
    try:
        return datetime.fromtimestamp(time_ms / 1000, UTC).isoformat(timespec="milliseconds")
    except (OverflowError, ValueError, OSError):     # a stamp no calendar holds: kept as a number
        return f"{time_ms} ms"


def _cards(cards: tuple[tuple[int, int], ...]) -> tuple[Card, ...]:
    return tuple((None if card == proto.UNREADABLE else card, deck) for card, deck in cards)


class ShoeDriver(FramedDriver):
    catalog = proto.catalog
    decode = proto.host_decode
    hello = proto.Hello(proto.PROTOCOL_VERSION)
    hello_reply = proto.HelloReply
    protocol_version = proto.PROTOCOL_VERSION

    def __init__(self, *args: Any, shuffle_limit: float = 60.0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.shuffle_limit = shuffle_limit
        self._shuffle_due: tuple[float, int] | None = None      # (deadline, deck) of the shuffle asked for

    def shuffle(self, deck: int = 1) -> bool:
        with self._lock:
            self._shuffle_due = (self.clock() + self.shuffle_limit, deck)
        return self.send(proto.Shuffle(deck))

    def deliver_hand(self, hand_no: int) -> bool:
        return self.send(proto.DeliverHand(hand_no))

    def deck_check(self) -> bool:
        return self.send(proto.DeckCheck())

    def request_status(self) -> bool:
        return self.send(proto.StatusRequest())

    def on_tick(self, now: float) -> None:
        super().on_tick(now)
        if self._shuffle_due is not None and now >= self._shuffle_due[0]:
            deck, self._shuffle_due = self._shuffle_due[1], None
            self.log.warning("shoe.shuffle_late", deck=deck, limit=self.shuffle_limit)
            self.post(ShuffleLate(self.name, deck, self.shuffle_limit))
            if self.connected:
                self._write(self.queue(proto.StatusRequest(), now))     # why, if the shoe knows

    def next_due(self, now: float) -> float:
        """The framed timers and the shuffle's time limit."""
        due = super().next_due(now)
        return due if self._shuffle_due is None else min(due, self._shuffle_due[0])

    def on_message(self, message: Any, now: float) -> None:
        name = self.name
        if isinstance(message, proto.ShuffleComplete):
            if self._shuffle_due is not None and self._shuffle_due[1] == message.deck:
                self._shuffle_due = None
            self.post(ShuffleDone(name, message.deck, message.count))
        elif isinstance(message, proto.HandDelivered):
            self.post(HandDealt(name, message.hand_no, _cards(message.cards), _iso(self.message_time)))
        elif isinstance(message, proto.Status):
            self.post(ShoeCount(name, message.remaining, message.deck,
                                 bool(message.flags & proto.STATUS_READY),
                                 door_open=bool(message.flags & proto.STATUS_DOOR_OPEN),
                                 jammed=bool(message.flags & proto.STATUS_JAMMED)))
        elif isinstance(message, proto.Jam):
            self.post(ShoeJam(name, message.code != proto.JAM_CLEARED, message.description, message.code))
        elif isinstance(message, proto.Door):
            self.post(ShoeDoor(name, bool(message.open)))
        elif isinstance(message, proto.DeckCheckResult):
            self.post(DeckChecked(name, message.deck, message.count, tuple(message.missing),
                                  tuple(message.duplicates), _cards(message.foreign)))
        elif isinstance(message, proto.ShoeFault):
            words = message.description + (f": {message.text}" if message.text else "")
            if message.code == proto.FAULT_COUNT:
                self.post(ShoeMiscounted(name, words))
            else:
                self.post(DeviceTrouble(name, message.code, words))
        else:
            self.post(DeviceMessage(name, message))

"""Card shoe / shuffler driver (host side), over serial or USB.

Owns the commands the controller gives the shoe (the controller's ``ShoePort``:
shuffle, deliver a hand, report its count) and the translation of the shoe's
messages into the game's events (drivers/events.py): a shuffle done, a hand
with the cards read in order (an unreadable card as None), the count, deck
checks, jams, the door and the shoe's own errors. Wire codes stay here.
"""

from __future__ import annotations

from typing import Any

from drivers.device import FramedDriver
from drivers.events import (
    Card,
    DeckChecked,
    DeviceMessage,
    DeviceTrouble,
    HandDealt,
    ShoeCount,
    ShoeDoor,
    ShoeJam,
    ShuffleDone,
)
from drivers.wire import shoe_protocol as proto


def _cards(cards: tuple[tuple[int, int], ...]) -> tuple[Card, ...]:
    return tuple((None if card == proto.UNREADABLE else card, deck) for card, deck in cards)


class ShoeDriver(FramedDriver):
    catalog = proto.catalog
    decode = proto.host_decode
    hello = proto.Hello(proto.PROTOCOL_VERSION)
    hello_reply = proto.HelloReply
    protocol_version = proto.PROTOCOL_VERSION

    def shuffle(self, deck: int = 1) -> bool:
        return self.send(proto.Shuffle(deck))

    def deliver_hand(self, hand_no: int) -> bool:
        return self.send(proto.DeliverHand(hand_no))

    def deck_check(self) -> bool:
        return self.send(proto.DeckCheck())

    def request_status(self) -> bool:
        return self.send(proto.StatusRequest())

    def on_message(self, message: Any, now: float) -> None:
        name = self.name
        if isinstance(message, proto.ShuffleComplete):
            self.post(ShuffleDone(name, message.deck, message.count))
        elif isinstance(message, proto.HandDelivered):
            self.post(HandDealt(name, message.hand_no, _cards(message.cards)))
        elif isinstance(message, proto.Status):
            self.post(ShoeCount(name, message.remaining, message.deck,
                                 bool(message.flags & proto.STATUS_READY)))
        elif isinstance(message, proto.Jam):
            self.post(ShoeJam(name, message.code != proto.JAM_CLEARED, message.description, message.code))
        elif isinstance(message, proto.Door):
            self.post(ShoeDoor(name, bool(message.open)))
        elif isinstance(message, proto.DeckCheckResult):
            self.post(DeckChecked(name, message.deck, message.count, tuple(message.missing),
                                  tuple(message.duplicates), _cards(message.foreign)))
        elif isinstance(message, proto.ShoeFault):
            self.post(DeviceTrouble(name, message.code, message.text))
        else:
            self.post(DeviceMessage(name, message))

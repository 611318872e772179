"""Card shoe / shuffler driver (host side), over serial or USB.

Owns the commands the controller gives the shoe. Its events (shuffle
complete, hands with the cards read in order, deck checks, jams, door, errors)
reach the controller as ``DeviceMessage`` carrying shoe_protocol messages.
"""

from __future__ import annotations

from drivers.wire import shoe_protocol as proto
from drivers.device import FramedDriver


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

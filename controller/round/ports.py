"""The table's devices as the round sees them: ports in domain words, and the commands it gives.

Owns the boundary between the pure round core and the hardware layer. The
core never talks to a device: it returns ``Command`` values ("lock every
spot", "deal hand 4", "show these jackpot values"); the engine journals the
event's facts first, then hands each command to the port of its device.
A port is any object with these methods, in these words: the drivers in
``drivers/`` satisfy them structurally (they import nothing from the
controller), and so do the fake ports of the round tests. Only a driver
knows how a spot, a lamp or a hand becomes bytes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from controller.rules.spots import Spot


class Lamp(StrEnum):
    """A spot's light: off, or flashing to show the dealer a stack that cannot be accepted."""
    OFF = "off"
    FLASH = "flash"


class ShoePort(Protocol):
    def shuffle(self, deck: int) -> object: ...
    def deck_check(self) -> object: ...
    def deliver_hand(self, hand_no: int) -> object: ...
    def request_status(self) -> object: ...


class SensorPort(Protocol):
    def lock(self, locked: bool = True, *, position: int | None = None,
             spots: Collection[str] | None = None) -> object: ...
    def lamp(self, position: int, spot: str, lamp: str) -> object: ...


class SignPort(Protocol):
    def show_values(self, mega: int, major: int, minor: int, won: tuple[str, ...] = (),
                    pending: tuple[str, ...] = ()) -> object: ...
    def show_message(self, text: str) -> object: ...


class Ports(Protocol):
    @property
    def shoe(self) -> ShoePort: ...
    @property
    def sensors(self) -> SensorPort: ...
    @property
    def sign(self) -> SignPort: ...


# --- commands: what the core asks of a device ----------------------------------------------

@dataclass(frozen=True)
class Shuffle:
    deck: int
    device = "shoe"

    def send(self, ports: Ports) -> None:
        ports.shoe.shuffle(self.deck)


@dataclass(frozen=True)
class DealHand:
    hand_no: int
    device = "shoe"

    def send(self, ports: Ports) -> None:
        ports.shoe.deliver_hand(self.hand_no)


@dataclass(frozen=True)
class CheckDeck:
    """The deck's composition after every shuffle: 52 cards, all of the deck in play."""
    device = "shoe"

    def send(self, ports: Ports) -> None:
        ports.shoe.deck_check()


@dataclass(frozen=True)
class AskShoeStatus:
    """The shoe's count and state, after every reconnect: after a restart cards may have left it
    unrecorded, and a jam or an open door may have come and gone unheard."""
    device = "shoe"

    def send(self, ports: Ports) -> None:
        ports.shoe.request_status()


@dataclass(frozen=True)
class LockSpots:
    """Lock (chips may not change) or unlock spots; None is every position, every spot."""
    locked: bool
    position: int | None = None
    spots: tuple[Spot, ...] | None = None
    device = "sensors"

    def send(self, ports: Ports) -> None:
        ports.sensors.lock(self.locked, position=self.position, spots=self.spots)


@dataclass(frozen=True)
class SetLamp:
    position: int
    spot: Spot
    lamp: Lamp
    device = "sensors"

    def send(self, ports: Ports) -> None:
        ports.sensors.lamp(self.position, self.spot, self.lamp)


@dataclass(frozen=True)
class ShowJackpots:
    """The posted values; ``won`` names the jackpots won since they were posted, which the sign
    shows as won, never at their old value, until the supervisor posts the new one."""
    mega: int
    major: int
    minor: int
    won: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()       # a linked jackpot's levels won on the floor: JACKPOT PENDING
    device = "sign"

    def send(self, ports: Ports) -> None:
        ports.sign.show_values(self.mega, self.major, self.minor, self.won, self.pending)


@dataclass(frozen=True)
class ShowMessage:
    text: str
    device = "sign"

    def send(self, ports: Ports) -> None:
        ports.sign.show_message(self.text)


Command = Shuffle | CheckDeck | DealHand | AskShoeStatus | LockSpots | SetLamp | ShowJackpots | ShowMessage

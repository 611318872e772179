"""Events the drivers post to the controller's queue.

Owns the vocabulary between the hardware abstraction layer and the game:
every event names the device (its configured role name) and, where it helps a
technician, the URL. Protocol messages from a device travel inside
``DeviceMessage``; the other events are about the link itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DeviceOnline:
    device: str
    url: str
    info: dict = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceOffline:
    device: str
    url: str
    reason: str


@dataclass(frozen=True)
class DeviceFault:
    """Bytes or a message from the device that could not be used (logged with the bytes);
    ``security``: a frame that failed authentication (forged, replayed, or a wrong key)."""
    device: str
    url: str
    reason: str
    raw_hex: str = ""
    security: bool = False


@dataclass(frozen=True)
class CommandFailed:
    device: str
    command: str
    reason: str


@dataclass(frozen=True)
class DeviceMessage:
    device: str
    message: Any


@dataclass(frozen=True)
class SpotChanged:
    """A bet spot's chips were placed, changed or removed (derived from sensor readings)."""
    device: str
    position: int
    spot: str               # ante, play, pair_plus, six_card_bonus, super6
    change: str             # placed, changed, removed
    value: int | None       # cents, None where the sensor reads presence only
    previous: int | None


@dataclass(frozen=True)
class FeltRead:
    """The sensors answered this session's SnapshotRequest: every spot has been read (posted after
    the SpotChanged events the Snapshot made). Until then the host's picture of the felt is not
    the felt: betting does not close on it (docs/protocols/sensors.md)."""
    device: str


# --- what the devices report, in the game's words (only the drivers know the wire codes) -------

Card = tuple["int | None", int]     # (card 0-51 as rank*4 + suit, or None where unreadable; deck number)


@dataclass(frozen=True)
class ShuffleDone:
    device: str
    deck: int
    count: int              # cards the shoe counted into the shuffled deck


@dataclass(frozen=True)
class HandDealt:
    device: str
    hand_no: int
    cards: tuple[Card, ...]     # in the order the shoe read them
    device_time: str | None = None      # when the shoe formed it, by its clock (UTC, ISO 8601)


@dataclass(frozen=True)
class ShoeCount:
    """The shoe's status (asked after every reconnect): its count, and whether it can deal."""
    device: str
    remaining: int          # cards still in the shoe
    deck: int
    ready: bool             # the shoe can deal (not shuffling, jammed or open)
    door_open: bool = False
    jammed: bool = False


@dataclass(frozen=True)
class ShuffleLate:
    """The shoe has not finished the shuffle asked for within the driver's ``shuffle_limit``."""
    device: str
    deck: int
    seconds: float


@dataclass(frozen=True)
class ShoeMiscounted:
    """The shoe reports a count error of its own (its deck is short, long or not the deck in play)."""
    device: str
    text: str


@dataclass(frozen=True)
class ShoeJam:
    device: str
    jammed: bool            # False: the jam was cleared
    description: str
    code: int               # the shoe's own jam number (docs/protocols/shoe.md), for the record


@dataclass(frozen=True)
class ShoeDoor:
    device: str
    open: bool


@dataclass(frozen=True)
class DeckChecked:
    device: str
    deck: int
    count: int
    missing: tuple[int, ...]
    duplicates: tuple[int, ...]
    foreign: tuple[Card, ...]

    @property
    def ok(self) -> bool:
        return self.count == 52 and not (self.missing or self.duplicates or self.foreign)


@dataclass(frozen=True)
class DeviceTrouble:
    """A device reports a problem of its own (a shoe error, a sensor fault), in its words."""
    device: str
    code: int
    text: str


@dataclass(frozen=True)
class SignShowing:
    """Every packet of an update has been acknowledged (or written, without ACK/NAK)."""
    device: str
    values: dict
    message: str


@dataclass(frozen=True)
class SpotFault:
    """A bet-spot sensor cannot read its spot (blocked, no reading, hardware fault)."""
    device: str
    position: int
    spot: str
    problem: str

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
    """Bytes or a message from the device that could not be used (logged with the bytes)."""
    device: str
    url: str
    reason: str
    raw_hex: str = ""


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

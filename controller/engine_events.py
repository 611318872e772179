"""What is posted to the engine besides the devices' events, and how an event is named in the trail.

Owns the engine's own event types: a dealer's action (with its reply slot and
its author), the verdict it gets, an alert from the page, a timer's expiry,
the stop and the watchdog's probe; and the checks of an action's arguments
against the one declaration in ``machine.ACTION_ARGUMENTS``.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from controller.round import machine as procedure


@dataclass
class DealerAction:
    action: str
    args: dict[str, Any] = field(default_factory=dict)
    role: str = "dealer"
    reply: queue.Queue | None = None
    who: str = ""                   # the PIN holder ("supervisor Ana"); the role when none

    @property
    def by(self) -> str:
        return self.who or self.role


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str = ""
    unknown: bool = False       # no answer in time: the action may still be done (its event commits)


@dataclass(frozen=True)
class PageAlert:
    """Something the dealer's page saw that the table must say and journal (a PIN lockout, a
    refused cross-site request): posted by the page's thread, alerted by the engine's."""
    kind: str
    message: str


@dataclass(frozen=True)
class FloorLink:
    """The floor came within reach or went out of it (posted by the floor forwarder's thread)."""
    up: bool
    reason: str = ""


@dataclass(frozen=True)
class TimerExpired:
    name: str
    token: int


class Stop:
    pass


@dataclass
class Probe:
    """Handled at once by the engine's thread: proof that it is not hung (the watchdog)."""
    done: threading.Event = field(default_factory=threading.Event)


def bad_arguments(args: dict[str, Any], takes: tuple[str, ...]) -> str | None:
    for name, value in sorted(args.items()):
        if name not in takes:
            return f"unknown argument {name!r}"
        kind = procedure.ARGUMENT_TYPES[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"{name} must be {'a whole number' if kind is int else 'text'}, not {value!r}"
    return None


def cause(event: Any) -> str:
    """An event in a few words for the audit trail's anchor: what made the facts it vouches for."""
    if isinstance(event, str):
        return event
    if isinstance(event, DealerAction):
        return f"{event.action} by {event.by}"
    if isinstance(event, TimerExpired):
        return f"timer {event.name}"
    device = getattr(event, "device", None)
    return f"{type(event).__name__} from {device}" if device else type(event).__name__

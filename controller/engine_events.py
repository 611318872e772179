"""What is posted to the engine besides the devices' events, and how an event is named in the trail.

Owns the engine's own event types: a dealer's action (with its reply slot and
its author), the verdict it gets, an alert from the page, the floor's (its link,
a linked jackpot's levels and claims, a journal found behind the floor's), a timer's expiry, the stop and the
watchdog's probe; and the checks of an action's arguments against the one declaration in ``machine.ACTION_ARGUMENTS``.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from controller.round import machine as procedure
from controller.rules.typed_text import number_problem, text_problem
from controller.rules.words import money
from controller.store.behind import FOUND as BEHIND_FOUND


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

    def deliver(self, table: Any, log: Any) -> None:
        log.info("floor.link", up=self.up, reason=self.reason, state=table.state)
        table.on_floor_link(self.up, self.reason)


@dataclass(frozen=True)
class FloorJackpots:
    """A linked jackpot's levels as the floor holds them now, {level: {generation, value, state,
    posted_by, reason, posted_at}} (the forwarder's thread posts them at each connect and at each
    ``floor_jackpot`` notice: a lock, a posting)."""
    levels: dict[str, dict[str, Any]]

    def deliver(self, table: Any, log: Any) -> None:
        log.info("floor.jackpot_levels", levels=self.levels, state=table.state)
        table.on_floor_levels(self.levels)


@dataclass(frozen=True)
class JackpotClaimed:
    """The floor's answer to a linked hit's claim ({claim_order, winners, amount, generation, value,
    final}), or its refusal in the floor's words, ``for_good`` when nothing the floor's administrator
    can do would make it stand (posted by the forwarder's thread)."""
    round_id: int
    level: str
    answer: dict[str, Any] | None
    refused: str | None = None
    for_good: bool = False

    def deliver(self, table: Any, log: Any) -> None:
        log.info("floor.jackpot_claimed", round=self.round_id, level=self.level, answer=self.answer,
                 refused=self.refused, for_good=self.for_good, state=table.state)
        table.on_jackpot_claimed(self.round_id, self.level, self.answer, self.refused, self.for_good)


@dataclass(frozen=True)
class FinalClaimDiffers:
    """A linked hit paid on the floor's final answer, sent again after a reconnect, is answered
    otherwise (``answer``) or refused (``refused``): the floor lost or changed what the table paid (a
    failover, a restore). Alerted and journaled (``jackpot_final_differs``); the round stays as paid."""
    round_id: int
    level: str
    paid: dict[str, Any]
    answer: dict[str, Any] | None
    refused: str | None = None

    def deliver(self, table: Any, log: Any) -> None:
        log.error("floor.final_claim_differs", round=self.round_id, level=self.level, paid=self.paid,
                  answer=self.answer, refused=self.refused, state=table.state)
        table.table_fact("jackpot_final_differs", {"round": self.round_id, "jackpot": self.level,
                                                   "paid": self.paid, "answer": self.answer, "refused": self.refused})
        now = (f"refuses it: {self.refused}" if self.refused is not None else
               f"answers {money((self.answer or {}).get('amount', 0))}, {(self.answer or {}).get('winners')} "
               f"winner(s), {'final' if (self.answer or {}).get('final') else 'not final'}")
        table.alert("jackpot_final_differs", f"The floor no longer holds the {self.level.upper()} claim of round "
                    f"{self.round_id} as paid ({money(self.paid.get('amount') or 0)}, {self.paid.get('winners')} "
                    f"winner(s), final): it now {now}. Call the floor's administrator")


@dataclass(frozen=True)
class JournalBehindFloor:
    """The floor holds more of this table's chain than its journal, or another record at its last one
    (controller/floor/head.py; posted once by the forwarder's thread): journaled as an alert, then the
    engine halts with these words (the table refuses to play on a journal rolled back or replaced)."""
    words: str

    def deliver(self, table: Any, log: Any) -> None:
        log.critical("floor.journal_behind", words=self.words, state=table.state)
        table.alert("journal_behind_floor", self.words)
        # kept on disk: the table starts halted in these words until a technician clears them
        # (controller/store/behind.py), not only for this process's life
        table.table_fact(BEHIND_FOUND, {"words": self.words})


# the forwarder's: each delivers itself
FLOOR_EVENTS = (FloorLink, FloorJackpots, JackpotClaimed, FinalClaimDiffers, JournalBehindFloor)


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


@dataclass
class Draw:
    """Handled at once by the engine's thread: the newest moment's snapshot drawn for a reader on
    another thread (controller/publisher.py)."""
    done: threading.Event = field(default_factory=threading.Event)


def bad_arguments(args: dict[str, Any], takes: tuple[str, ...], needs: tuple[str, ...] = ()) -> str | None:
    """Why an action's ``args`` cannot be taken (it ``takes`` those and ``needs`` these), or None."""
    for name in needs:
        if name not in args:
            return f"say which {name} (\"{name}\": N)"
    for name, value in sorted(args.items()):
        if name not in takes:
            return f"unknown argument {name!r}"
        kind = procedure.ARGUMENT_TYPES[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"{name} must be {'a whole number' if kind is int else 'text'}, not {value!r}"
        problem = number_problem(name, value) if isinstance(value, int) else text_problem(name, str(value))
        if problem is not None:
            return problem
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

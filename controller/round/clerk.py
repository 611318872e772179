"""The round's clerk: the open round, the one way its facts are written, and what an event says and asks.

Owns what every part of the round shares and no part may keep for itself:

- the open round (``controller/round/facts.py``: ``Round``) and the machine's state, which the
  model (controller/round/table.py) writes here for ``transitions``;
- ``fact``: journal a record of the open round, then apply it (the only way a part changes a
  round's data);
- ``alert``: tell the dealer, and journal it;
- ``emit``: ask a device for something. Commands are collected, never sent from here: the
  engine takes them (``take_commands``) after the event's facts are in the journal;
- ``refuse``: a condition or table action says no, in the dealer's words (``refusal``);
- the engine's timers (``schedule``, ``cancel``) and the machine's ``fire`` (a trigger by name).

And ``Holds`` (what stops the round: a device lost, jammed or open; a sensor that cannot read a
spot the round depends on). Parts ask the clerk; none holds another part's state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from controller.round import machine as procedure
from controller.round.facts import Round
from controller.round.ports import Command

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

    from controller.store.journal import Journal

ALERTS_SHOWN = 20
# alerts that come from what devices report, said once while they stand
COALESCED = frozenset({"past_posting", "play_amount", "unread_spot", "device_fault", "device_security",
                       "sensor_fault", "hold",
                       "shoe_slow", "shuffle_late",
                       "command_failed",
                       "dead_hand", "deck_check", "shoe_error"})


def _not_built(*args: Any, **kwargs: Any) -> bool:
    raise RuntimeError("the round's machine is not built yet")


class Clerk:
    def __init__(self, journal: Journal, log: FilteringBoundLogger, *, schedule: Callable[[str, float], None],
                 cancel: Callable[[str], None]) -> None:
        self.journal = journal
        self.log = log
        self.schedule = schedule                    # the engine's timers: name, delay in seconds
        self.cancel = cancel
        self.fire: Callable[..., bool] = _not_built  # the machine's ``trigger``, given once it is built
        self.state = "starting"                     # the machine's state (``transitions`` writes it)
        self.round: Round | None = None
        self.refusal = ""
        self._commands: list[Command] = []
        self._alerts: deque[dict[str, Any]] = deque(maxlen=ALERTS_SHOWN)
        self.alerted = 0                            # alerts shown so far (the snapshot keeps its list by it)

    # --- the round --------------------------------------------------------------------------

    @property
    def open_round(self) -> Round:
        """The round in play; only called where the machine's state guarantees one."""
        assert self.round is not None, f"no round open while {self.state}"
        return self.round

    @property
    def round_id(self) -> int | None:
        return self.round.id if self.round is not None else None

    @property
    def round_state(self) -> str:
        """The state whose rules apply: a held round keeps those of the state it was held in."""
        if self.state == "held" and self.round is not None and self.round.held_from:
            return self.round.held_from
        return self.state

    def since_opened_ms(self) -> int:
        """Milliseconds since the open round's ``opened`` record, by the journal's clock (the time
        every record carries): a felt change's place in the round's story."""
        opened = self.open_round.times.get("opened")
        if not opened:
            return 0
        elapsed = datetime.fromisoformat(self.journal.now()) - datetime.fromisoformat(opened)
        return max(0, int(elapsed.total_seconds() * 1000))

    def fact(self, kind: str, /, **data: Any) -> str:
        """Journal a record of the open round, then apply it; returns its time as journaled."""
        rnd = self.open_round
        record = self.journal.append(rnd.id, kind, data)
        rnd.apply(kind, data, record.at)
        # the journal holds the record; the trail's anchor for this event names its kind
        self.log.debug(f"round.{kind}", round=rnd.id, state=self.state, position=data.get("position"),
                       record=data)
        return record.at

    # --- what the dealer is told ------------------------------------------------------------

    def alert(self, kind: str, message: str, position: int | None = None) -> None:
        """Tell the dealer, and put it in the journal: in the round while one is open. A device's
        alert that is still standing is not said again (a flapping sensor must not write a record
        a blink); what people do (a supervisor called, a void) is always said."""
        entry = {"kind": kind, "message": message, "position": position}
        if kind in COALESCED and any(all(a.get(k) == v for k, v in entry.items())
                                     for a in self.standing_alerts()):
            return
        rnd = self.round
        if rnd is not None and not rnd.complete and rnd.void_reason is None:
            at, round_id = self.fact("alert", **entry), rnd.id
        else:
            at, round_id = self.journal.table_event("alert", entry), None
            self.log.warning("table.alert", round=rnd.id if rnd else None, state=self.state, **entry)
        self._alerts.append({**entry, "round": round_id, "at": at})
        self.alerted += 1

    def show(self, kind: str, message: str, at: str) -> None:
        """Show the dealer what is journaled otherwise (a table event of its own, journaled ``at``),
        between rounds."""
        self._alerts.append({"kind": kind, "position": None, "message": message, "round": None, "at": at})
        self.alerted += 1

    def standing_alerts(self) -> list[dict[str, Any]]:
        """The alerts that concern the table now: the open round's, and the table's own since the
        round opened (all of them between rounds)."""
        rnd = self.round
        if rnd is None or rnd.complete or rnd.void_reason is not None:
            return [a for a in self._alerts if a.get("round") is None]
        opened = rnd.times.get("opened", "")
        return [a for a in self._alerts if a.get("round") == rnd.id
                or (a.get("round") is None and a.get("at", "") >= opened)]

    def refuse(self, why: str) -> bool:
        self.refusal = why
        return False

    # --- what the devices are asked ---------------------------------------------------------

    def emit(self, command: Command) -> None:
        self._commands.append(command)

    def take_commands(self) -> list[Command]:
        commands, self._commands = self._commands, []
        return commands


class Holds:
    """What stops the round, each by its key ("shoe", "shoe-jam", "spot 3 ante"), in the dealer's words."""

    SHOE_KEYS = ("shoe-jam", "shoe-door", "shoe", "shoe-shuffle")

    def __init__(self, clerk: Clerk) -> None:
        self._clerk = clerk
        self._reasons: dict[str, str] = {}
        self.changes = 0                            # holds set or cleared so far (the snapshot's key)

    def set(self, key: str, reason: str | None) -> None:
        """Something that stops the round (a device lost, jammed or open), or its end (None)."""
        clerk = self._clerk
        if reason is None:
            cleared = self._reasons.pop(key, None)
            self.changes += int(cleared is not None)
            if cleared and clerk.state == "held":
                clerk.log.info("table.hold_cleared", round=clerk.round_id, state=clerk.state, hold=key)
            return
        if key not in self._reasons:
            self._reasons[key] = reason
            self.changes += 1
            if clerk.state in procedure.HOLDABLE or clerk.state == "held":
                clerk.alert("hold", f"Round held: {reason}")

    def shoe_problem(self) -> str | None:
        """What keeps the shoe from dealing: a jam, its door, its link, a shuffle past its limit."""
        return next((self._reasons[k] for k in self.SHOE_KEYS if k in self._reasons), None)

    def reasons(self) -> list[str]:
        return list(self._reasons.values())

    def __contains__(self, key: object) -> bool:
        return key in self._reasons

    def __bool__(self) -> bool:
        return bool(self._reasons)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._reasons))

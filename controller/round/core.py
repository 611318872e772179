"""What every part of the table shares: its declared state and its primitives.

Owns the attributes the table's parts (controller/round/felt.py, dealing.py,
jackpot_desk.py, floor_desk.py, table.py) read and write, declared here once so each part
says what it relies on, and the primitives they all use:

- ``fact``: journal a record of the current round, then apply it to the round;
- ``alert``: tell the dealer (and journal it);
- ``set_hold``: something stops the round (a device lost, jammed or open);
- ``emit``: ask a device for something. Commands are collected, never sent
  from here: the engine takes them (``take_commands``) after the event's
  facts are in the journal and hands them to the device ports.

Conditions of the machine refuse with ``refuse(why)``: False, and the words
the dealer is shown.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.round import machine as procedure
from controller.round.facts import Round
from controller.round.ports import Command

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger
    from transitions import Machine

    from controller.app.config import TableConfig
    from controller.rules.paytable import Preset
    from controller.store.jackpot import JackpotBoard
    from controller.store.journal import Journal

ALERTS_SHOWN = 20
# alerts that come from what devices report, said once while they stand
COALESCED = frozenset({"past_posting", "play_amount", "unread_spot", "device_fault", "device_security",
                       "sensor_fault", "hold",
                       "shoe_slow", "shuffle_late",
                       "command_failed",
                       "dead_hand", "deck_check", "shoe_error"})


class TableCore:
    config: TableConfig
    preset: Preset
    journal: Journal
    jackpot: JackpotBoard
    machine: Machine
    log: FilteringBoundLogger
    state: str                                      # set by ``transitions`` (model_attribute)
    trigger: Callable[..., bool]                    # ``transitions``: fire a trigger by its name
    schedule: Callable[[str, float], None]          # the engine's timers: name, delay in seconds
    cancel: Callable[[str], None]

    def __init__(self) -> None:
        self.round: Round | None = None
        self.commands: list[Command] = []
        self.alerts: deque[dict[str, Any]] = deque(maxlen=ALERTS_SHOWN)
        self.refusal = ""
        self.online: dict[str, bool] = {}
        self.device_detail: dict[str, str] = {}
        self.device_identity: dict[str, dict[str, Any]] = {}    # role -> its last connect's Identity
        self.holds: dict[str, str] = {}              # what holds the round: key -> the dealer's words

    # --- the primitives -------------------------------------------------------------------

    @property
    def open_round(self) -> Round:
        """The round in play; only called where the machine's state guarantees one."""
        assert self.round is not None, f"no round open while {self.state}"
        return self.round

    def fact(self, kind: str, /, **data: Any) -> str:
        """Journal a record of the open round, then apply it; returns its time as journaled."""
        rnd = self.open_round
        record = self.journal.append(rnd.id, kind, data)
        rnd.apply(kind, data, record.at)
        # the journal holds the record; the trail's anchor for this event names its kind
        self.log.debug(f"round.{kind}", round=rnd.id, state=self.state, position=data.get("position"),
                      record=data)
        return record.at

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
        self.alerts.append({**entry, "round": round_id, "at": at})

    def standing_alerts(self) -> list[dict[str, Any]]:
        """The alerts that concern the table now: the open round's, and the table's own since the
        round opened (all of them between rounds)."""
        rnd = self.round
        if rnd is None or rnd.complete or rnd.void_reason is not None:
            return [a for a in self.alerts if a.get("round") is None]
        opened = rnd.times.get("opened", "")
        return [a for a in self.alerts if a.get("round") == rnd.id
                or (a.get("round") is None and a.get("at", "") >= opened)]

    def set_hold(self, key: str, reason: str | None) -> None:
        """Something that stops the round (a device lost, jammed or open), or its end (None)."""
        if reason is None:
            if self.holds.pop(key, None) and self.state == "held":
                self.log.info("table.hold_cleared", round=self.round.id if self.round else None,
                              state=self.state, hold=key)
            return
        if key not in self.holds:
            self.holds[key] = reason
            if self.state in procedure.HOLDABLE or self.state == "held":
                self.alert("hold", f"Round held: {reason}")

    def emit(self, command: Command) -> None:
        self.commands.append(command)

    def take_commands(self) -> list[Command]:
        commands, self.commands = self.commands, []
        return commands

    def refuse(self, why: str) -> bool:
        self.refusal = why
        return False

    @property
    def round_state(self) -> str:
        """The state whose rules apply: a held round keeps those of the state it was held in."""
        if self.state == "held" and self.round is not None and self.round.held_from:
            return self.round.held_from
        return self.state

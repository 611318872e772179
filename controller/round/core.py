"""What every part of the table shares: its declared state and the three primitives.

Owns the attributes the table's parts (controller/round/felt.py, dealing.py,
jackpot_desk.py, table.py) read and write, declared here once so each part
says what it relies on, and the primitives they all use:

- ``fact``: journal a record of the current round, then apply it to the round;
- ``alert``: tell the dealer (and journal it);
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
        self.holds: dict[str, str] = {}              # what holds the round: key -> the dealer's words

    # --- the three primitives ------------------------------------------------------------

    @property
    def open_round(self) -> Round:
        """The round in play; only called where the machine's state guarantees one."""
        assert self.round is not None, f"no round open while {self.state}"
        return self.round

    def fact(self, kind: str, /, **data: Any) -> None:
        rnd = self.open_round
        record = self.journal.append(rnd.id, kind, data)
        rnd.apply(kind, data, record.at)
        self.log.info(f"round.{kind}", round=rnd.id, state=self.state, position=data.get("position"),
                      record=data)

    def alert(self, kind: str, message: str, position: int | None = None) -> None:
        """Tell the dealer, and put it in the journal: in the round while one is open."""
        entry = {"kind": kind, "message": message, "position": position}
        self.alerts.append(entry)
        if self.round is not None and not self.round.complete and self.round.void_reason is None:
            self.fact("alert", **entry)
        else:
            self.journal.table_event("alert", entry)
            self.log.warning("table.alert", round=self.round.id if self.round else None,
                             state=self.state, **entry)

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

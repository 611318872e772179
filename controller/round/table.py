"""The table: the model the round machine drives, composed of the parts that own the round's state.

Owns the composition of the round's parts and what entering each state asks
of them, and is the one face the engine (controller/engine.py) talks to: a
device's event, a timer, a table action. It keeps no state of its own; each
part keeps its own behind a few methods and asks the others:

- the clerk (clerk.py): the open round, its facts journaled then applied,
  alerts, the device commands collected for the engine, refusals; and the holds;
- the device links (links.py): which devices answer and who they are;
- the felt (felt.py): what lies on the spots, lamps, locks, past posting, Play chips;
- dealing (dealing.py): the shoe's facts, hands one at a time, the count after a restart;
- the jackpot desk (jackpot_desk.py; a linked jackpot's: floor_desk.py);
- the position pairs (pairs.py) and recovery at start-up (recovery.py);
- the dealer on duty (shift.py): who signed in, between rounds;
- the conditions of every trigger (conditions.py) and the records each transition
  journals (records.py), which the machine (machine.py) is built to ask.

It does no I/O: facts go to the journal first, device requests are returned as
commands (controller/round/ports.py) for the engine to send. It is driven by
exactly one thread, the engine's.

The procedure follows rule sheet 000's Dealing Procedures: betting, "No more
bets" with the positions without Pair Plus named, hands from the dealer's
left to right then the dealer's, play or fold, the dealer's announcement,
settlement from the dealer's right in the house pay order. Misdeals void
the round; past posting is alerted and not accepted; a lost, jammed or open
device holds the round until it is back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
from transitions import EventData

from controller.app.config import TableConfig
from controller.round import machine as procedure
from controller.round.clerk import Clerk, Holds
from controller.round.conditions import Conditions
from controller.round.dealing import HAND_TIMER, Dealing, ShoeFact
from controller.round.facts import Round
from controller.round.felt import REMOVED_TIMER, Felt
from controller.round.floor_desk import LinkedJackpotDesk
from controller.round.jackpot_desk import JackpotDesk, LocalJackpotDesk
from controller.round.links import DeviceLinks
from controller.round.pairs import PositionPairs
from controller.round.ports import Command, Shuffle
from controller.round.records import Records
from controller.round.recovery import Recovery
from controller.round.shift import DealerShift
from controller.store.jackpot import JackpotBoard
from controller.store.journal import Journal
from controller.store.recall import record_meter_reset
from drivers.events import SpotChanged, SpotFault


def _recovering(event: EventData) -> bool:
    return event.event is not None and event.event.name == "recover"


class Table:
    trigger: Callable[..., bool]                    # ``transitions``: fire a trigger by its name

    def __init__(self, config: TableConfig, journal: Journal, *, schedule: Callable[[str, float], None],
                 cancel: Callable[[str], None]) -> None:
        self.config = config
        self.clerk = clerk = Clerk(journal, structlog.get_logger("table").bind(table=config.table_id),
                                   schedule=schedule, cancel=cancel)
        self.holds = Holds(clerk)
        self.links = DeviceLinks(clerk, self.holds, config.devices)
        self.recovery = Recovery(clerk, config)
        self.recovery.self_check()              # before anything is read from the journal
        board = JackpotBoard(journal, config.preset, config.jackpots,
                             group=config.floor.jackpot_group if config.floor is not None else None)
        self.felt = Felt(clerk, self.holds, config, config.preset, super6_closed=board.super6_closed)
        self.dealing = Dealing(clerk, self.holds, config)
        self.jackpots: JackpotDesk = (LinkedJackpotDesk if board.linked else LocalJackpotDesk)(clerk, board, self.felt)
        self.pairs = PositionPairs(config.positions, config.two_positions_allowed)
        self.shift = DealerShift(clerk, config)
        self.conditions = Conditions(clerk, config, holds=self.holds, links=self.links, felt=self.felt,
                                     dealing=self.dealing, jackpots=self.jackpots, recovery=self.recovery,
                                     pairs=self.pairs, shift=self.shift)
        self.records = Records(clerk, config, felt=self.felt, jackpots=self.jackpots, pairs=self.pairs,
                               recovery=self.recovery, shift=self.shift)
        self.machine = procedure.build(self, answers=(self.conditions, self.records))
        clerk.fire = self.trigger
        self.recovery.load(board.linked, self.felt)

    # --- what the engine and the snapshot read ----------------------------------------------

    @property
    def state(self) -> str:
        return self.clerk.state

    @state.setter
    def state(self, value: str) -> None:          # ``transitions`` (model_attribute)
        self.clerk.state = value

    @property
    def round(self) -> Round | None:
        return self.clerk.round

    @property
    def open_round(self) -> Round:
        return self.clerk.open_round

    @property
    def refusal(self) -> str:
        return self.clerk.refusal

    @refusal.setter
    def refusal(self, value: str) -> None:
        self.clerk.refusal = value

    def guard(self, name: str) -> bool:
        """An automatic trigger's guard (``machine.GUARDS``), asked without an event."""
        return bool(getattr(self.conditions, name)())

    def alert(self, kind: str, message: str, position: int | None = None) -> None:
        self.clerk.alert(kind, message, position)

    def table_fact(self, kind: str, data: dict[str, Any]) -> str:
        """A fact of the table's, outside any round (the floor's word on a paid claim, ...)."""
        return self.clerk.journal.table_event(kind, data)

    def take_commands(self) -> list[Command]:
        return self.clerk.take_commands()

    # --- the devices' events, delivered by the engine ---------------------------------------

    def on_spot(self, event: SpotChanged) -> None:
        self.felt.on_spot(event)

    def on_spot_fault(self, event: SpotFault) -> None:
        self.felt.on_spot_fault(event)

    def on_shoe(self, fact: ShoeFact) -> None:
        self.dealing.on_shoe(fact)

    def on_sign_showing(self, values: dict[str, int]) -> None:
        self.jackpots.on_sign_showing(values)

    def on_sign_failed(self, reason: str) -> None:
        self.jackpots.on_sign_failed(reason)

    def on_online(self, role: str, info: dict[str, Any]) -> None:
        """A device answers again: what it holds may be lost, so it is told again."""
        self.links.came_online(role, info)
        if role == "sensors":
            self.felt.sensors_back()
        if role == "shoe":
            self.dealing.shoe_back()
        if role == "sign":
            self.jackpots.sign_back()               # rewritten from the journal: the values, a win since

    def on_felt_read(self, role: str) -> None:
        """The sensors' snapshot of every spot is in: the felt is read (its SpotChanged came first)."""
        self.links.reported(role)

    def on_command_failed(self, role: str, command: str) -> None:
        """A device never acknowledged a command: what the round still waits for is asked again."""
        if role == "shoe":
            self.dealing.command_failed(command)

    def on_offline(self, role: str, reason: str) -> None:
        self.links.went_offline(role, reason)
        if role == "sign":
            self.jackpots.on_sign_failed(f"sign offline: {reason}")
        if role == "sensors":
            self.felt.sensors_lost()
        self.links.hold_while_away(role)

    def on_timer(self, name: str) -> None:
        if name.startswith(REMOVED_TIMER + " "):
            _, position, spot = name.split()
            self.felt.on_stack_gone(int(position), spot)
        elif name == HAND_TIMER:
            self.dealing.on_hand_late()

    # --- the floor's events (controller/engine_events.py delivers them) ----------------------

    def on_floor_link(self, up: bool, reason: str) -> None:
        self.jackpots.on_floor_link(up, reason)

    def on_floor_levels(self, levels: dict[str, dict]) -> None:
        self.jackpots.on_floor_levels(levels)

    def on_jackpot_claimed(self, round_id: int, level: str, answer: dict | None, refused: str | None,
                           for_good: bool = False) -> None:
        self.jackpots.on_jackpot_claimed(round_id, level, answer, refused, for_good)

    def floor_duties(self) -> None:
        """After every event (the engine calls it): a linked jackpot's locks taken, the floor's values."""
        self.jackpots.floor_duties()

    # --- entering states: device commands (repeatable after a recovery) ---------------------

    def on_exit_starting(self, event: EventData) -> None:
        self.recovery.end()                         # recovery is over once the table leaves starting

    def on_enter_betting(self, event: EventData) -> None:
        rnd = self.clerk.open_round
        self.felt.round_opened()
        self.felt.start_story()     # with the felt as it lies (after a restart: the betting before it is lost)
        self.felt.lock_for_betting()
        if not rnd.shuffled or _recovering(event):
            self.dealing.shuffle(rnd)               # after a restart the shoe may have restarted too
        self.felt.show_flags()

    def on_enter_closed(self, event: EventData) -> None:
        self.felt.lock_all()                        # "No more bets": every spot locked
        if _recovering(event):
            self.dealing.check_deck_again()         # the check may have been lost with the restart

    def on_enter_dealing(self, event: EventData) -> None:
        self.felt.lock_for_decisions()
        self.dealing.deal(recovering=_recovering(event))

    def on_enter_decisions(self, event: EventData) -> None:
        self.felt.lock_for_decisions()
        self.felt.take_play_chips()                 # Play chips put out while others were dealt

    def on_enter_collecting(self, event: EventData) -> None:
        self.felt.lock_all()                        # every Play made or not: the felt is closed

    def on_enter_settling(self, event: EventData) -> None:
        self.felt.lock_all()
        if not _recovering(event):
            self.jackpots.announce_hits()

    def sign_out_removed_dealer(self, event: EventData) -> None:
        """Before Open betting's conditions (its ``prepare``): a dealer whose PIN was removed since the
        round's end (the table waited in ready or complete) is signed out, journaled, so betting waits
        for a dealer with a PIN. A condition only answers; this is where the fact is made."""
        self.shift.round_boundary()

    def on_enter_complete(self, event: EventData) -> None:
        self.shift.round_boundary()                 # a dealer whose PIN was removed is signed out now

    def on_enter_void(self, event: EventData) -> None:
        self.shift.round_boundary()
        self.dealing.stop()
        self.felt.lock_all()
        self.clerk.emit(Shuffle(self.clerk.open_round.deck))     # the voided cards go back and are reshuffled

    def on_enter_held(self, event: EventData) -> None:
        self.dealing.held()

    # --- table actions (machine.TABLE_ACTIONS): outside the round's procedure -------------------

    def call_supervisor(self, by: str = "dealer", reason: str = "") -> bool:
        self.clerk.alert("supervisor_called", f"Supervisor called to the table by the {by}"
                         + (f": {reason}" if reason else ""))
        return True

    def reset_meters(self, by: str = "supervisor", reason: str = "") -> bool:
        """A new baseline for ``meters``: rounds up to the last closed one are behind it."""
        clerk = self.clerk
        if clerk.state not in procedure.BETWEEN_ROUNDS:
            return clerk.refuse(f"meters are reset between rounds, not while {clerk.state}")
        if not reason:
            return clerk.refuse("say why the meters are reset")
        record_meter_reset(clerk.journal, by=by, reason=reason)
        clerk.log.info("table.meters_reset", by=by, reason=reason, state=clerk.state, round=clerk.round_id)
        return True

    def set_jackpots(self, by: str = "supervisor", reason: str = "", **values: int) -> bool:
        problem = self.jackpots.post(values, by, reason)
        return problem is None or self.clerk.refuse(problem)

    def sign_in_dealer(self, by: str = "") -> bool:
        return self.shift.sign_in(by)

    def sign_out_dealer(self, by: str = "") -> bool:
        return self.shift.sign_out(by)

"""The conditions of the round's triggers: each says True, or False with the dealer's reason.

Owns what must hold before the machine (controller/round/machine.py) takes a
transition or an action: devices answering, a deck ready, wagers within the
limits, a decision that agrees with the felt, the next position to pay. Each
condition asks the part that knows (the device links, the holds, the felt,
dealing, the jackpot desk, recovery, the position pairs) and reads the open
round's facts; it keeps no state of its own. A failing condition leaves
``refusal`` in the dealer's words (``Clerk.refuse``); the engine returns it as
the action's verdict. The machine finds each condition named in its data here
(``machine.build``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from controller.round.clerk import Clerk, Holds
from controller.round.dealing import Dealing
from controller.round.felt import Felt
from controller.round.jackpot_desk import JackpotDesk
from controller.round.links import DeviceLinks
from controller.round.pairs import PositionPairs
from controller.round.recovery import Recovery
from controller.round.shift import DealerShift
from controller.rules.spots import BET_SPOTS, Spot, label
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.app.config import TableConfig


class Conditions:
    def __init__(self, clerk: Clerk, config: TableConfig, *, holds: Holds, links: DeviceLinks, felt: Felt,
                 dealing: Dealing, jackpots: JackpotDesk, recovery: Recovery, pairs: PositionPairs,
                 shift: DealerShift) -> None:
        self._clerk = clerk
        self._config = config
        self._holds = holds
        self._links = links
        self._felt = felt
        self._dealing = dealing
        self._jackpots = jackpots
        self._recovery = recovery
        self._pairs = pairs
        self._shift = shift

    def devices_answering(self, event: EventData | None = None) -> bool:
        lost = self._links.required_lost()
        return not lost or self._clerk.refuse(f"waiting for the {' and '.join(lost)} to answer")

    def dealer_on_duty(self, event: EventData | None = None) -> bool:
        problem = self._shift.problem()
        return problem is None or self._clerk.refuse(problem)

    def no_open_round(self, event: EventData | None = None) -> bool:
        return self._recovery.found() is None or self._clerk.refuse("a round is being recovered")

    def recovering_into(self, event: EventData) -> bool:
        """The journal's open round was in this transition's destination (or held from it)."""
        rnd, dest = self._recovery.found(), event.transition.dest if event.transition else None
        if rnd is None:
            return False
        return (rnd.held_from if rnd.state == "held" else rnd.state) == dest

    def replay_invalid(self, event: EventData | None = None) -> bool:
        return self._recovery.found() is not None and self._recovery.problem() is not None

    def sensors_online(self, event: EventData | None = None) -> bool:
        """The sensors answer and have read every spot since they connected: the felt the table holds
        is the felt (a reconnection's snapshot not yet in, its chips would be missing from the wagers)."""
        if not self._links.answering("sensors"):
            return self._clerk.refuse("the bet-spot sensors are not answering")
        return self._links.awaiting("sensors") is None or self._clerk.refuse(
            "the bet-spot sensors have not yet reported every spot since they connected (asked again until they "
            "do): the felt is not read; if it lasts, call a technician")

    def deck_ready(self, event: EventData | None = None) -> bool:
        rnd = self._clerk.open_round
        problem = self._holds.shoe_problem()               # a jam, the door, a lost shoe, a shuffle past its limit
        if problem:
            return self._clerk.refuse(problem)
        if not rnd.shuffled:
            return self._clerk.refuse("the shoe has not finished shuffling")
        if rnd.shoe_count != 52:
            return self._clerk.refuse(f"the shoe counted {rnd.shoe_count} cards after the shuffle, not 52")
        if not rnd.deck_checked:
            return self._clerk.refuse("the shoe has not yet checked the deck (52 cards, all of the deck in play)")
        return True

    def has_wagers(self, event: EventData | None = None) -> bool:
        return bool(self._felt.wagers()) or self._clerk.refuse("no wagers on the table")

    def wagers_valid(self, event: EventData | None = None) -> bool:
        problems = self._felt.problems()
        if problems:
            (position, spot), why = min(problems.items())
            return self._clerk.refuse(f"position {position} {label(spot)}: {why}")
        return True

    def positions_linkable(self, event: EventData) -> bool:
        problem = self._pairs.link_problem(event.kwargs.get("position"), event.kwargs.get("other"))
        return problem is None or self._clerk.refuse(problem)

    def reason_given(self, event: EventData) -> bool:
        return bool(event.kwargs.get("reason")) or self._clerk.refuse("say why (the reason is journaled)")

    def override_valid(self, event: EventData) -> bool:
        """A supervisor's reading of a spot the sensor cannot read: while betting, any bet spot
        (checked against the limits now, not at "No more bets"); while players decide, the Play
        spot of a position still to decide, which must then hold the Ante's amount."""
        position, spot, amount = (event.kwargs.get(k) for k in ("position", "spot", "amount"))
        if not isinstance(position, int) or not self._config.has_position(position):
            return self._clerk.refuse(f"position {position!r} is not a position at this table "
                                      f"(1 to {self._config.positions})")
        spots = BET_SPOTS if self._clerk.state == "betting" else (Spot.PLAY,)
        if spot not in spots:
            return self._clerk.refuse(f"{spot!r} is not a spot a supervisor reads while {self._clerk.state} "
                                      f"({', '.join(spots)})")
        if not isinstance(amount, int) or amount < 0:
            return self._clerk.refuse(f"amount must be whole cents, 0 or more, not {amount!r}")
        if not event.kwargs.get("reason"):
            return self._clerk.refuse("say why the sensor's reading is overridden")
        if self._clerk.state == "betting":
            problem = amount and self._felt.stack_problem(spot, amount, self._jackpots.super6_closed())
            return not problem or self._clerk.refuse(f"position {position} {label(spot)}: {problem}")
        rnd = self._clerk.open_round
        if position not in rnd.undecided:
            return self._clerk.refuse(f"position {position} has no Play to read: it has "
                                      f"{'already decided' if position in rnd.decisions else 'no Ante'}")
        ante = rnd.wagers[position]["ante"]
        return amount in (0, ante) or self._clerk.refuse(
            f"position {position}: the Play must equal the Ante ({money(ante)}), not {money(amount)}")

    def hands_complete(self, event: EventData | None = None) -> bool:
        """Every hand in, and after a restart the shoe's count agreeing with them: the count asked
        for once the hand the shoe kept is in must answer before the deal ends (a count is only
        taken while dealing; skipped, a new hand formed in place of the kept one, three more cards
        gone, went unseen when it was the last hand)."""
        rnd = self._clerk.open_round
        return rnd.hands_received >= rnd.hands_needed and not self._dealing.counting()

    def position_undecided(self, event: EventData) -> bool:
        position, rnd = event.kwargs.get("position"), self._clerk.open_round
        if position not in rnd.deciders:
            return self._clerk.refuse(f"position {position} has no Ante to play or fold")
        if position in rnd.decisions:
            return self._clerk.refuse(f"position {position} has already "
                                      f"{'played' if rnd.decisions[position] else 'folded'}")
        return True

    def play_on_felt(self, event: EventData) -> bool:
        """The felt is the truth: a Play is chips on the Play spot equal to the Ante."""
        position = event.kwargs.get("position")
        if event.kwargs.get("by") == "sensor" or not isinstance(position, int):
            return True                         # the chips themselves (felt.py checked the amount)
        ante = self._clerk.open_round.wagers[position]["ante"]
        reading = self._felt.readings()
        if (position, Spot.PLAY) not in reading:
            return self._clerk.refuse(f"position {position} has no Play chips on the felt: a Play is "
                                      f"{money(ante)} on the Play spot, equal to the Ante")
        value = reading[(position, Spot.PLAY)]
        if value is None:
            return self._clerk.refuse(f"position {position}: the sensor cannot read the Play chips; a supervisor "
                                      "reads them (override)")
        if value != ante:
            return self._clerk.refuse(f"position {position}: the Play must equal the Ante ({money(ante)}), "
                                      f"not {money(value)}")
        return True

    def no_play_chips(self, event: EventData) -> bool:
        """A fold leaves the Play spot empty: chips on it are a Play, or the wrong amount for one."""
        position = event.kwargs.get("position")
        return (position, Spot.PLAY) not in self._felt.readings() or self._clerk.refuse(
            f"position {position} has chips on the Play spot: take them back to fold")

    def decisions_complete(self, event: EventData | None = None) -> bool:
        return not self._clerk.open_round.undecided

    def position_next_to_pay(self, event: EventData) -> bool:
        position, expected = event.kwargs.get("position"), self._clerk.open_round.next_to_pay
        hits = self._jackpots.pending_hits()
        if hits:
            return self._clerk.refuse(f"Super 6 {hits[0]['jackpot'].upper()} jackpot at position {hits[0]['seat']}: "
                                      "a supervisor verifies the six cards before anything is paid")
        waiting = self._clerk.open_round.floor_waiting
        if position in waiting or (position == expected and expected in waiting):
            return self._clerk.refuse(f"position {position}'s Super 6 jackpot waits for the floor's final amount; "
                                      + (f"settle position {expected} first" if expected not in waiting else
                                         "it is paid once every table of the group took the lock"))
        if position != expected:
            rnd = self._clerk.open_round
            if position in rnd.paid:        # a second touch, or a fold collected before the reveal
                return self._clerk.refuse(f"position {position} is already settled; settle position {expected} next")
            if position not in rnd.settlement_order:
                return self._clerk.refuse(f"position {position} has nothing to settle; settle position {expected} next")
            return self._clerk.refuse(f"settle position {expected} first (from the dealer's right)")
        return True

    def jackpot_unverified(self, event: EventData) -> bool:
        return bool(self._jackpots.pending_hits()) or self._clerk.refuse("no jackpot hit waits for verification")

    def jackpot_refused(self, event: EventData) -> bool:
        """A linked hit of this round the floor refused for good (controller/round/floor_desk.py)."""
        problem = self._jackpots.refer_problem()
        return problem is None or self._clerk.refuse(problem)

    def everything_paid(self, event: EventData | None = None) -> bool:
        rnd = self._clerk.open_round
        return rnd.settlement is not None and rnd.next_to_pay is None

    def nothing_paid(self, event: EventData | None = None) -> bool:
        clerk = self._clerk
        return not clerk.open_round.paid or clerk.refuse("payments have been made; the round cannot be voided")

    def something_holding(self, event: EventData | None = None) -> bool:
        return bool(self._holds)

    def nothing_holding(self, event: EventData | None = None) -> bool:
        return not self._holds

    def held_from_here(self, event: EventData) -> bool:
        """A held round resumes in the state the hold interrupted: this transition's destination."""
        return self._clerk.open_round.held_from == (event.transition.dest if event.transition else None)

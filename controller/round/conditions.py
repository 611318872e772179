"""The conditions of the round's triggers: each says True, or False with the dealer's reason.

Owns what must hold before the machine (controller/round/machine.py) takes a
transition or an action: devices answering, a deck ready, wagers within the
limits, a decision that agrees with the felt, the next position to pay. A
failing condition leaves ``refusal`` in the dealer's words
(``TableCore.refuse``); the engine returns it as the action's verdict.
"""

from __future__ import annotations

from transitions import EventData

from controller.round.facts import Round
from controller.round.links import REQUIRED_DEVICES, DeviceLinks
from controller.rules.spots import BET_SPOTS, Spot, label
from controller.rules.words import money


class Conditions(DeviceLinks):
    recovered: Round | None                 # the open round found in the journal at start-up
    replay_problem: str | None              # what does not hold in it, when something does not
    links: list[tuple[int, int]]            # positions played by one player (betting)
    counting_after_recovery: bool           # the shoe's count after a restart asked for, not yet agreed

    def devices_answering(self, event: EventData | None = None) -> bool:
        lost = [r for r in REQUIRED_DEVICES if not self.online.get(r)]
        return not lost or self.refuse(f"waiting for the {' and '.join(lost)} to answer")

    def no_open_round(self, event: EventData | None = None) -> bool:
        return self.recovered is None or self.refuse("a round is being recovered")

    def recovering_into(self, event: EventData) -> bool:
        """The journal's open round was in this transition's destination (or held from it)."""
        rnd, dest = self.recovered, event.transition.dest if event.transition else None
        if rnd is None:
            return False
        return (rnd.held_from if rnd.state == "held" else rnd.state) == dest

    def replay_invalid(self, event: EventData | None = None) -> bool:
        return self.recovered is not None and self.replay_problem is not None

    def sensors_online(self, event: EventData | None = None) -> bool:
        return self.online.get("sensors") or self.refuse("the bet-spot sensors are not answering")

    def deck_ready(self, event: EventData | None = None) -> bool:
        rnd = self.open_round
        problem = self.shoe_problem()               # a jam, the door, a lost shoe, a shuffle past its limit
        if problem:
            return self.refuse(problem)
        if not rnd.shuffled:
            return self.refuse("the shoe has not finished shuffling")
        if rnd.shoe_count != 52:
            return self.refuse(f"the shoe counted {rnd.shoe_count} cards after the shuffle, not 52")
        if not rnd.deck_checked:
            return self.refuse("the shoe has not yet checked the deck (52 cards, all of the deck in play)")
        return True

    def has_wagers(self, event: EventData | None = None) -> bool:
        return bool(self.felt_wagers()) or self.refuse("no wagers on the table")

    def wagers_valid(self, event: EventData | None = None) -> bool:
        problems = self.wager_problems()
        if problems:
            (position, spot), why = min(problems.items())
            return self.refuse(f"position {position} {label(spot)}: {why}")
        return True

    def positions_linkable(self, event: EventData) -> bool:
        position, other = event.kwargs.get("position"), event.kwargs.get("other")
        if not isinstance(position, int) or not isinstance(other, int):
            return self.refuse("name the two positions to link (position and other)")
        a, b = sorted((position, other))
        if not self.config.two_positions_allowed:
            return self.refuse("one player on two positions is not allowed at this table "
                               "(table.one_player_two_positions = \"refused\")")
        if not (1 <= a and b <= self.config.positions and b - a == 1):
            return self.refuse(f"positions {a} and {b} are not two adjacent positions")
        if any(a in pair or b in pair for pair in self.links):
            return self.refuse(f"position {a} or {b} is already linked")
        return True

    def reason_given(self, event: EventData) -> bool:
        return bool(event.kwargs.get("reason")) or self.refuse("say why (the reason is journaled)")

    def override_valid(self, event: EventData) -> bool:
        """A supervisor's reading of a spot the sensor cannot read: while betting, any bet spot
        (checked against the limits now, not at "No more bets"); while players decide, the Play
        spot of a position still to decide, which must then hold the Ante's amount."""
        position, spot, amount = (event.kwargs.get(k) for k in ("position", "spot", "amount"))
        if not isinstance(position, int) or not self.config.has_position(position):
            return self.refuse(f"position {position!r} is not a position at this table "
                               f"(1 to {self.config.positions})")
        spots = BET_SPOTS if self.state == "betting" else (Spot.PLAY,)
        if spot not in spots:
            return self.refuse(f"{spot!r} is not a spot a supervisor reads while {self.state} "
                               f"({', '.join(spots)})")
        if not isinstance(amount, int) or amount < 0:
            return self.refuse(f"amount must be whole cents, 0 or more, not {amount!r}")
        if not event.kwargs.get("reason"):
            return self.refuse("say why the sensor's reading is overridden")
        if self.state == "betting":
            problem = amount and self.stack_problem(spot, amount, self.jackpot.super6_closed())
            return not problem or self.refuse(f"position {position} {label(spot)}: {problem}")
        rnd = self.open_round
        if position not in rnd.undecided:
            return self.refuse(f"position {position} has no Play to read: it has "
                               f"{'already decided' if position in rnd.decisions else 'no Ante'}")
        ante = rnd.wagers[position]["ante"]
        return amount in (0, ante) or self.refuse(
            f"position {position}: the Play must equal the Ante ({money(ante)}), not {money(amount)}")

    def hands_complete(self, event: EventData | None = None) -> bool:
        """Every hand in, and after a restart the shoe's count agreeing with them: the count asked
        for once the hand the shoe kept is in must answer before the deal ends (a count is only
        taken while dealing; skipped, a new hand formed in place of the kept one, three more cards
        gone, went unseen when it was the last hand)."""
        rnd = self.open_round
        return rnd.hands_received >= rnd.hands_needed and not self.counting_after_recovery

    def position_undecided(self, event: EventData) -> bool:
        position, rnd = event.kwargs.get("position"), self.open_round
        if position not in rnd.deciders:
            return self.refuse(f"position {position} has no Ante to play or fold")
        if position in rnd.decisions:
            return self.refuse(f"position {position} has already "
                               f"{'played' if rnd.decisions[position] else 'folded'}")
        return True

    def play_on_felt(self, event: EventData) -> bool:
        """The felt is the truth: a Play is chips on the Play spot equal to the Ante."""
        position = event.kwargs.get("position")
        if event.kwargs.get("by") == "sensor" or not isinstance(position, int):
            return True                         # the chips themselves (felt.py checked the amount)
        ante = self.open_round.wagers[position]["ante"]
        reading = self.readings()
        if (position, Spot.PLAY) not in reading:
            return self.refuse(f"position {position} has no Play chips on the felt: a Play is "
                               f"{money(ante)} on the Play spot, equal to the Ante")
        value = reading[(position, Spot.PLAY)]
        if value is None:
            return self.refuse(f"position {position}: the sensor cannot read the Play chips; a supervisor "
                               "reads them (override)")
        if value != ante:
            return self.refuse(f"position {position}: the Play must equal the Ante ({money(ante)}), "
                               f"not {money(value)}")
        return True

    def no_play_chips(self, event: EventData) -> bool:
        """A fold leaves the Play spot empty: chips on it are a Play, or the wrong amount for one."""
        position = event.kwargs.get("position")
        return (position, Spot.PLAY) not in self.readings() or self.refuse(
            f"position {position} has chips on the Play spot: take them back to fold")

    def decisions_complete(self, event: EventData | None = None) -> bool:
        return not self.open_round.undecided

    def position_next_to_pay(self, event: EventData) -> bool:
        position, expected = event.kwargs.get("position"), self.open_round.next_to_pay
        hits = self.pending_hits()
        if hits:
            return self.refuse(f"Super 6 {hits[0]['jackpot'].upper()} jackpot at position {hits[0]['seat']}: "
                               "a supervisor verifies the six cards before anything is paid")
        waiting = self.open_round.floor_waiting
        if position in waiting or (position == expected and expected in waiting):
            return self.refuse(f"position {position}'s Super 6 jackpot waits for the floor's final amount; "
                               + (f"settle position {expected} first" if expected not in waiting else
                                  "it is paid once every table of the group took the lock"))
        if position != expected:
            return self.refuse(f"settle position {expected} first (from the dealer's right)")
        return True

    def everything_paid(self, event: EventData | None = None) -> bool:
        rnd = self.open_round
        return rnd.settlement is not None and rnd.next_to_pay is None

    def nothing_paid(self, event: EventData | None = None) -> bool:
        return not self.open_round.paid or self.refuse("payments have been made; the round cannot be voided")

    def something_holding(self, event: EventData | None = None) -> bool:
        return bool(self.holds)

    def nothing_holding(self, event: EventData | None = None) -> bool:
        return not self.holds

    def held_from_here(self, event: EventData) -> bool:
        """A held round resumes in the state the hold interrupted: this transition's destination."""
        return self.open_round.held_from == (event.transition.dest if event.transition else None)

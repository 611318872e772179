"""What each transition journals: the data of every record ``machine.JOURNALS`` names, and of the actions in a state.

Owns the making of a transition's records: ``record_state`` (``transitions``'
``before_state_change``) writes the records a transition brings before the
``state`` record and those after it, each made here by ``journal_<kind>``;
the actions inside a state (a decision, a payment, an override, a link, a
jackpot verified or referred) journal theirs in ``record_<action>``. Each asks
the part that knows for the data (the felt for the wagers, the jackpot desk
for its hits, the rules for the settlement) and writes through the clerk; no
other code decides what a transition journals (controller/round/facts.py
lists the kinds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from controller.round import machine as procedure
from controller.round.clerk import Clerk
from controller.round.facts import DEALER, Round
from controller.round.felt import Felt
from controller.round.jackpot_desk import JackpotDesk
from controller.round.pairs import PositionPairs
from controller.round.recovery import Recovery
from controller.round.shift import DealerShift
from controller.rules.roundio import settlement_json
from controller.rules.settlement import SeatHand, SettlementError, Wagers, settle_round
from controller.rules.spots import Spot
from controller.rules.words import dealer_announcement

if TYPE_CHECKING:
    from controller.app.config import TableConfig


class Records:
    def __init__(self, clerk: Clerk, config: TableConfig, *, felt: Felt, jackpots: JackpotDesk,
                 pairs: PositionPairs, recovery: Recovery, shift: DealerShift) -> None:
        self._clerk = clerk
        self._config = config
        self._preset = config.preset
        self._felt = felt
        self._jackpots = jackpots
        self._pairs = pairs
        self._recovery = recovery
        self._shift = shift

    def record_state(self, event: EventData) -> None:
        """Journal the facts a transition brings, then the state entered, before acting."""
        transition, clerk = event.transition, self._clerk
        if transition is None or transition.dest is None:
            return
        dest, name = transition.dest, event.event.name if event.event else ""
        before, after = procedure.JOURNALS.get(name, ((), ()))
        for kind in before:
            getattr(self, f"journal_{kind}")(event)
        if clerk.round is None:
            clerk.log.info("table.state", state=dest, source=transition.source, trigger=name, round=None)
            return
        clerk.fact("state", state=dest, **({"from": transition.source} if dest == "held" else {}))
        for kind in after:
            getattr(self, f"journal_{kind}")(event)

    # --- what a transition journals (machine.JOURNALS) --------------------------------------

    def journal_recovery(self, event: EventData) -> None:
        self._clerk.alert("recovery", f"Recovered after a restart: round {self._clerk.open_round.id} continues in "
                          f"{event.transition.dest if event.transition else '?'}")

    def journal_opened(self, event: EventData) -> None:
        """A new round: its number and the record of everything it is played under, and who deals it."""
        clerk, decks = self._clerk, self._preset.decks
        round_id = clerk.journal.open_round(self._preset.name)
        clerk.round = Round(round_id)
        self._pairs.clear()
        clerk.fact("opened", preset=self._preset.name, deck=1 if decks == 1 else 1 + round_id % decks,
                   config_digest=self._config.digest, play_digest=self._config.play_digest,
                   **self._jackpots.opening(), **self._shift.opening())

    def journal_wagers(self, event: EventData) -> None:
        self._clerk.fact("wagers", positions=self._felt.accepted_wagers(), linked=self._pairs.as_record(),
                         **self._felt.story())

    def journal_settlement(self, event: EventData) -> None:
        rnd, preset = self._clerk.open_round, self._preset
        seats = [SeatHand(p, rnd.hands[p], Wagers(**rnd.wagers[p]), bool(rnd.decisions.get(p)))
                 for p in rnd.active]
        try:
            result = settle_round(preset, rnd.hands[DEALER], seats, rnd.jackpots)
        except SettlementError as err:             # wagers were checked at "No more bets"; never expected
            self._clerk.alert("settlement", f"Settlement refused: {err}")
            raise
        doc = settlement_json(rnd.id, preset, result)
        for seat in doc["seats"]:
            seat["wagers"] = rnd.wagers[seat["seat"]]
            seat["play"] = bool(rnd.decisions.get(seat["seat"]))
        doc["announcement"] = dealer_announcement(result.dealer_score, result.dealer_qualifies)
        doc["returns"] = self._felt.refused_chips()     # what lies on the felt and was not accepted
        self._clerk.fact("settlement", **doc)

    def journal_jackpot_pending(self, event: EventData) -> None:
        self._jackpots.claim_hits()

    def journal_void(self, event: EventData) -> None:
        clerk = self._clerk
        name = event.event.name if event.event else ""
        by = event.kwargs.get("by", "controller" if name in ("misdeal", "replay_failed", "deck_failed")
                              else "supervisor")
        reason = event.kwargs.get("reason") or (self._recovery.problem() if name == "replay_failed" else None) \
            or "misdeal declared"
        if name == "replay_failed":
            clerk.alert("misdeal", f"Round voided after a restart: {reason}. Return all wagers.")
        if by != "controller":                  # the controller's own misdeals alert as found
            clerk.alert("misdeal" if name == "misdeal" else "void",
                        f"{'Misdeal declared' if name == 'misdeal' else 'Round voided'} by the {by}: "
                        f"{reason}. Return all wagers.")
        clerk.fact("void", reason=reason, by=by)

    def journal_folds_collected(self, event: EventData) -> None:
        """The dealer collected the folded hands with their forfeited wagers before the reveal: a
        fold with no wager left standing (6 Card Bonus and Super 6 stay where the rules say so) is
        settled there and then, and is not part of the settlement the dealer works through."""
        rnd = self._clerk.open_round
        stays = self._preset.side_bets_stay_after_fold
        for seat in (rnd.settlement or {}).get("seats", []):
            wagers = seat["wagers"]
            if seat["play"] or not wagers.get(Spot.ANTE):
                continue
            if stays and (wagers.get(Spot.SIX_CARD_BONUS) or wagers.get(Spot.SUPER6)):
                continue
            if any(result > 0 for result in seat["results"].values()):
                continue                # a house whose folds keep the Pair Plus: paid in settlement
            self._clerk.fact("paid", position=seat["seat"], net=seat["net"], by=event.kwargs.get("by", "dealer"),
                             folded=True)

    def journal_complete(self, event: EventData) -> None:
        self._clerk.fact("complete")

    # --- the actions inside a state ---------------------------------------------------------

    def record_play(self, event: EventData) -> None:
        self._clerk.fact("decision", position=event.kwargs["position"], play=True,
                         by=event.kwargs.get("by", "dealer"))

    def record_fold(self, event: EventData) -> None:
        self._clerk.fact("decision", position=event.kwargs["position"], play=False,
                         by=event.kwargs.get("by", "dealer"))

    def record_paid(self, event: EventData) -> None:
        position, rnd = event.kwargs["position"], self._clerk.open_round
        seat = next(s for s in (rnd.settlement or {})["seats"] if s["seat"] == position)
        self._clerk.fact("paid", position=position, net=seat["net"], by=event.kwargs.get("by", "dealer"))

    def record_override(self, event: EventData) -> None:
        k = event.kwargs
        self._clerk.fact("override", position=k["position"], spot=k["spot"], amount=k["amount"],
                         by=k.get("by", "supervisor"), reason=k["reason"])
        self._felt.show_flags()

    def record_link(self, event: EventData) -> None:
        clerk = self._clerk
        pair = self._pairs.link(event.kwargs["position"], event.kwargs["other"])
        clerk.log.info("dealer.link_positions", round=clerk.open_round.id, state=clerk.state, position=pair[0],
                       other=pair[1])

    def record_unlink(self, event: EventData) -> None:
        self._pairs.unlink(event.kwargs.get("position"))

    def record_jackpot_verified(self, event: EventData) -> None:
        self._jackpots.verify(event.kwargs.get("by", "supervisor"), event.kwargs.get("reason", ""))

    def record_jackpot_referred(self, event: EventData) -> None:
        self._jackpots.refer(event.kwargs.get("by", "supervisor"), event.kwargs.get("reason", ""))

"""The table's Super 6 jackpot duties: the sign, the Super 6 spots, hits and new values.

Owns how the table reacts to the jackpot's facts (the rules themselves are in
controller/store/jackpot.py): the sign confirming or failing, Super 6 spots locked
and flagged while the jackpot cannot be seen or was just won, a hit holding
every payment until a supervisor has verified the six cards, and the
supervisor posting new values. A part of ``Table`` (its shared state is
declared in controller/round/core.py; the felt's lamps are its own base) and, like it, driven only by the
engine's thread; what it asks of the sign and the sensors it returns as
commands.
"""

from __future__ import annotations

from typing import Any

from transitions import EventData

from controller.round import machine as procedure
from controller.round.felt import FeltDuties
from controller.round.ports import ShowJackpots, ShowMessage
from controller.rules.paytable import JACKPOTS
from controller.rules.spots import Spot
from controller.rules.words import money
from controller.store.jackpot import posting_changes, win_message


class JackpotDesk(FeltDuties):                  # the felt's lamps flag Super 6 stacks when it closes
    super6_alerted: bool                        # a "Super 6 closed" alert is standing

    # --- the sign ---------------------------------------------------------------------

    def show_jackpots_on_sign(self) -> None:
        """The posted values, a jackpot won since its last posting shown as won."""
        if self.jackpot.progressive:
            values = self.jackpot.values
            won = tuple(name for name in JACKPOTS if name in self.jackpot.won_since_posting)
            pending = tuple(name for name in JACKPOTS if name in self.jackpot.locks)     # a linked level won
            self.emit(ShowJackpots(values["mega"], values["major"], values["minor"], won, pending))

    def on_sign_showing(self, values: dict[str, int]) -> None:
        before = self.jackpot.super6_closed()
        self.jackpot.sign_shows(values)
        self._super6_maybe_changed(before)

    def on_sign_failed(self, reason: str) -> None:
        before = self.jackpot.super6_closed()
        self.jackpot.sign_failed(reason)
        self._super6_maybe_changed(before)

    def on_floor_link(self, up: bool, reason: str) -> None:
        """The floor's link came up or went down (a linked jackpot closes Super 6 while it is down)."""
        before = self.jackpot.super6_closed()
        self.jackpot.floor_link(up, reason)
        self._super6_maybe_changed(before)

    def _super6_maybe_changed(self, before: str | None) -> None:
        now = self.jackpot.super6_closed()
        if bool(now) == bool(before):
            return
        if now:
            self.alert("super6_closed", f"Super 6 closed: {now}. No new Super 6 wagers.")
            self.super6_alerted = True
        elif self.super6_alerted:               # not at start-up, when it was never announced shut
            self.alert("super6_open", "Super 6 open again: the sign shows the posted jackpot values")
            self.super6_alerted = False
        if self.state == "betting":
            self.lock_for_betting()
            self.show_flags()

    def lock_for_betting(self) -> None:
        """Betting open: every spot unlocked, but the Super 6 spots while Super 6 is closed."""
        closed = self.jackpot.progressive and self.jackpot.super6_closed()
        self.lock_spots(frozenset((p, Spot.SUPER6.value) for p in range(1, self.config.positions + 1))
                        if closed else frozenset())

    # --- hits -------------------------------------------------------------------------------

    def pending_hits(self) -> list[dict[str, Any]]:
        """The round's jackpot hits still waiting for a supervisor, with the six cards."""
        rnd = self.round
        if rnd is None or not rnd.settlement or rnd.jackpot_verified_by:
            return []
        seats = {s["seat"]: s for s in rnd.settlement["seats"]}
        return [dict(hit, cards=f"{seats[hit['seat']]['cards']} + {rnd.settlement['dealer']}")
                for hit in rnd.settlement.get("jackpot_hits", [])]

    def announce_hits(self) -> None:
        for hit in self.pending_hits():
            amount = "claimed on the floor, which states the amount" if hit.get("linked") else money(hit["amount"])
            self.alert("jackpot_hit", f"Super 6 {hit['jackpot'].upper()} jackpot at position {hit['seat']} "
                       f"({hit['cards']}): {amount}. A supervisor verifies the six cards "
                       "before anything is paid.", hit["seat"])

    def jackpot_unverified(self, event: EventData) -> bool:
        return bool(self.pending_hits()) or self.refuse("no jackpot hit waits for verification")

    def record_jackpot_verified(self, event: EventData) -> None:
        hits = self.pending_hits()
        by = event.kwargs.get("by", "supervisor")
        self.fact("jackpot_verified", hits=hits, by=by, reason=event.kwargs.get("reason", ""))
        rnd = self.open_round
        self.jackpot.verified(rnd.id, hits, by, rnd.times.get("jackpot_verified", ""))
        self.show_jackpots_on_sign()                 # the won jackpot: WON until its new value is posted
        self.emit(ShowMessage(win_message(hits[0])))
        for hit in hits:
            pay = "paid once the floor's split is final" if hit["amount"] is None else f"pay {money(hit['amount'])}"
            self.alert("jackpot_verified", f"{hit['jackpot'].upper()} jackpot at position {hit['seat']} "
                       f"verified by the {by}: {pay}", hit["seat"])

    # --- new values --------------------------------------------------------------------------

    def set_jackpots(self, by: str = "supervisor", reason: str = "", **values: int) -> bool:
        asked: dict[str, object] = {name: values.get(name) for name in JACKPOTS}
        problem = self.jackpot.change_problem(asked, round_in_play=self.state not in procedure.BETWEEN_ROUNDS)
        if problem:
            return self.refuse(problem)
        new = {name: values[name] for name in JACKPOTS}       # whole cents above 0: checked just now
        if not reason:
            return self.refuse("say why the jackpot values change")
        before = self.jackpot.super6_closed()
        doc = self.jackpot.post(new, by=by, reason=reason)
        self.log.info("jackpot.posted", by=by, reason=reason, old=doc["old"], new=doc["values"],
                      state=self.state, round=self.round.id if self.round else None)
        self.alert("jackpot_posted", "Jackpot values posted by the " + by + ": " + ", ".join(posting_changes(doc)))
        self.show_jackpots_on_sign()
        self.emit(ShowMessage(""))                   # the win message, if one was showing
        self._super6_maybe_changed(before)
        return True

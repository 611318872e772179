"""The table: the model the round machine drives, its conditions and what each transition does.

Owns the round's life: the start-up self-check and recovery of an open round
from the journal, the conditions of every trigger (each refuses with the
reason in the dealer's words), the records a transition journals (which
ones is ``machine.JOURNALS``; their data is made here by ``journal_<kind>``),
what entering a state asks of the devices, the device links, and the table
actions outside the round. Its parts: the felt (felt.py), dealing
(dealing.py), the jackpot desk (jackpot_desk.py; a linked jackpot's: floor_desk.py), the device links
(links.py), on the shared state of core.py. It does no I/O: facts go to the journal first, device requests are
returned as commands (controller/round/ports.py) for the engine to send.
It is driven by exactly one thread, the engine's (controller/engine.py).

The procedure follows rule sheet 000's Dealing Procedures: betting, "No more
bets" with the positions without Pair Plus named, hands from the dealer's
left to right then the dealer's, play or fold, the dealer's announcement,
settlement from the dealer's right in the house pay order. Misdeals void
the round; past posting is alerted and not accepted; a lost, jammed or open
device holds the round until it is back.
"""

from __future__ import annotations

from typing import Any

import structlog
from transitions import EventData

from controller.app.config import TableConfig
from controller.errors import InputError
from controller.round import machine as procedure
from controller.round.conditions import Conditions
from controller.round.dealing import HAND_TIMER
from controller.round.facts import DEAD_HAND, DEALER, UNREADABLE, Round
from controller.round.felt import REMOVED_TIMER
from controller.round.ports import CheckDeck, Shuffle
from controller.rules.roundio import settlement_json
from controller.rules.settlement import SeatHand, SettlementError, Wagers, settle_round
from controller.rules.spots import Spot
from controller.rules.words import dealer_announcement, positions_list
from controller.store.jackpot import JackpotBoard
from controller.store.journal import Journal
from controller.store.recall import record_meter_reset


class RecoveryRefused(InputError):
    """The open round in the journal cannot be finished under this configuration, and may not be
    voided (it is being paid): the table does not start, and says what to put back."""


class Table(Conditions):
    def __init__(self, config: TableConfig, journal: Journal, *, schedule: Any, cancel: Any):
        super().__init__()
        self.config = config
        self.preset = config.preset
        self.journal = journal
        self.schedule, self.cancel = schedule, cancel
        self.log = structlog.get_logger("table").bind(table=config.table_id)
        self.felt = {}
        self.lamps = {}
        self.locks = None
        self.faults = {}
        self.online = {role: False for role in config.devices}
        self.device_detail = {role: "not connected yet" for role in config.devices}
        self.links: list[tuple[int, int]] = []
        self.outstanding_hand = None
        self.counting_after_recovery = False
        self.hand_before_count = False          # the one hand a restart may find formed, not yet taken
        self.recount_after_hand = False         # a count one hand short: counted again after that hand
        self.recovered: Round | None = None
        self.replay_problem: str | None = None
        self.super6_alerted = False
        self.machine = procedure.build(self)
        self._self_check()
        self.jackpot = JackpotBoard(journal, self.preset, config.jackpots,
                                    group=config.floor.jackpot_group if config.floor is not None else None)
        self._recover_from_journal()

    def _self_check(self) -> None:
        """Journal integrity (raises: no round opens on a journal that cannot be trusted) and the
        configuration against the last run's; devices answering is a condition of leaving
        ``starting``."""
        checked = self.journal.check_at_start()
        previous = self.journal.meta("config_digest")
        digest = self.config.digest
        if previous is not None and previous != digest:
            self.journal.table_event("config_changed", {"old": previous, "new": digest,
                                                        "source": self.config.source})
            self.alerts.append({"kind": "config_changed", "position": None,
                                "message": f"The configuration changed since the last run "
                                           f"({previous[:12]} -> {digest[:12]}); check it before play"})
            self.log.warning("table.config_changed", old=previous, new=digest, state="starting", round=None)
        self.journal.set_meta("config_digest", digest)
        self.log.info("table.self_check", journal_records_checked=checked, config_digest=digest,
                      state="starting", round=None)

    def _recover_from_journal(self) -> None:
        last = self.journal.last_round()
        if last is None or last[1] != "open":
            return
        rnd = Round.from_records(last[0], self.journal.records(last[0]))
        if rnd.settlement is not None and rnd.floor_waiting and not self.jackpot.linked:
            # being paid, so never voided; its linked jackpot is paid once the floor's split is final,
            # and without [floor] no claim is sent and no answer comes: the round could never end
            raise RecoveryRefused(
                f"round {rnd.id} is being paid and its linked jackpot at position "
                f"{positions_list(sorted(rnd.floor_waiting))} waits for the floor's final amount, but this "
                "configuration has no [floor] jackpot group: put the [floor] section back to finish the round")
        self.round = self.recovered = rnd
        self.replay_problem = self._replayed_problem(rnd)

    def _replayed_problem(self, rnd: Round) -> str | None:
        """Recovery re-checks what it replays, the cards first: a hand that is a misdeal (whatever
        stopped the process before it voided the round) or a wager the table could not accept
        voids the round instead of carrying it on. A round whose settlement is journaled is paid as
        the reveal announced it, whatever the configuration says now: its amounts are in the journal,
        and positions may have been paid already (voided, they would have their wagers back too)."""
        unsettled = rnd.settlement is None
        if unsettled and rnd.preset and rnd.preset != self.preset.name:
            return f"on recovery: the round opened under preset {rnd.preset}, not {self.preset.name}"
        # what it was played under: a device moved to another port is not another game (a round
        # opened by an earlier release has only the whole file's digest)
        opened_under, now = ((rnd.play_digest, self.config.play_digest) if rnd.play_digest
                             else (rnd.config_digest, self.config.digest))
        if unsettled and opened_under and opened_under != now:
            return "on recovery: the round opened under another configuration; it is not settled under this one"
        seen: set[int] = set()
        for record in self.journal.records(rnd.id):
            if record.kind != "hand":
                continue
            cards = tuple((None if c == UNREADABLE else c, deck) for c, deck in record.data["cards"])
            if record.data["target"] != DEAD_HAND:      # as dealt live: a dead hand's cards count as seen
                problem = self.card_problem(cards, record.data["target"], seen, rnd.deck)
                if problem:
                    return f"on recovery: {problem}"
            seen.update(c for c, _ in cards if c is not None)
        for position, wagers in rnd.wagers.items() if unsettled else ():
            for spot, amount in wagers.items():
                problem = self.stack_problem(spot, amount, None) if amount else None
                if problem or not self.config.has_position(position):
                    return f"on recovery: position {position} {spot}: {problem or 'no such position'}"
        return None

    # --- what a transition journals (machine.JOURNALS) --------------------------------------

    def record_state(self, event: EventData) -> None:
        """Journal the facts a transition brings, then the state entered, before acting."""
        transition = event.transition
        if transition is None or transition.dest is None:
            return
        dest, name = transition.dest, event.event.name if event.event else ""
        before, after = procedure.JOURNALS.get(name, ((), ()))
        for kind in before:
            getattr(self, f"journal_{kind}")(event)
        if self.round is None:
            self.log.info("table.state", state=dest, source=transition.source, trigger=name, round=None)
            return
        self.fact("state", state=dest, **({"from": transition.source} if dest == "held" else {}))
        for kind in after:
            getattr(self, f"journal_{kind}")(event)

    def journal_recovery(self, event: EventData) -> None:
        self.alert("recovery", f"Recovered after a restart: round {self.open_round.id} continues in "
                   f"{event.transition.dest if event.transition else '?'}")

    def journal_opened(self, event: EventData) -> None:
        """A new round: its number and the record of everything it is played under."""
        round_id = self.journal.open_round(self.preset.name)
        decks = self.preset.decks
        self.round = Round(round_id)
        self.links = []
        self.fact("opened", preset=self.preset.name, deck=1 if decks == 1 else 1 + round_id % decks,
                  config_digest=self.config.digest, play_digest=self.config.play_digest, jackpots=self.jackpot.values,
                  # a linked jackpot: the generation of each level the round is dealt under (its claim's)
                  **({"generations": dict(self.jackpot.generations)} if self.jackpot.linked else {}))

    def journal_wagers(self, event: EventData) -> None:
        self.fact("wagers", positions=self.accepted_wagers(), linked=[list(p) for p in self.links])

    def journal_settlement(self, event: EventData) -> None:
        rnd = self.open_round
        seats = [SeatHand(p, rnd.hands[p], Wagers(**rnd.wagers[p]), bool(rnd.decisions.get(p)))
                 for p in rnd.active]
        try:
            result = settle_round(self.preset, rnd.hands[DEALER], seats, rnd.jackpots)
        except SettlementError as err:             # wagers were checked at "No more bets"; never expected
            self.alert("settlement", f"Settlement refused: {err}")
            raise
        doc = settlement_json(rnd.id, self.preset, result)
        for seat in doc["seats"]:
            seat["wagers"] = rnd.wagers[seat["seat"]]
            seat["play"] = bool(rnd.decisions.get(seat["seat"]))
        doc["announcement"] = dealer_announcement(result.dealer_score, result.dealer_qualifies)
        self.fact("settlement", **doc)

    def journal_void(self, event: EventData) -> None:
        name = event.event.name if event.event else ""
        by = event.kwargs.get("by", "controller" if name in ("misdeal", "replay_failed", "deck_failed")
                              else "supervisor")
        reason = event.kwargs.get("reason") or (self.replay_problem if name == "replay_failed" else None) \
            or "misdeal declared"
        if name == "replay_failed":
            self.alert("misdeal", f"Round voided after a restart: {reason}. Return all wagers.")
        if by != "controller":                  # the controller's own misdeals alert as found
            self.alert("misdeal" if name == "misdeal" else "void",
                       f"{'Misdeal declared' if name == 'misdeal' else 'Round voided'} by the {by}: "
                       f"{reason}. Return all wagers.")
        self.fact("void", reason=reason, by=by)

    def journal_folds_collected(self, event: EventData) -> None:
        """The dealer collected the folded hands with their forfeited wagers before the reveal: a
        fold with no wager left standing (6 Card Bonus and Super 6 stay where the rules say so) is
        settled there and then, and is not part of the settlement the dealer works through."""
        rnd = self.open_round
        stays = self.preset.side_bets_stay_after_fold
        for seat in (rnd.settlement or {}).get("seats", []):
            wagers = seat["wagers"]
            if seat["play"] or not wagers.get(Spot.ANTE):
                continue
            if stays and (wagers.get(Spot.SIX_CARD_BONUS) or wagers.get(Spot.SUPER6)):
                continue
            if any(result > 0 for result in seat["results"].values()):
                continue                # a house whose folds keep the Pair Plus: paid in settlement
            self.fact("paid", position=seat["seat"], net=seat["net"], by=event.kwargs.get("by", "dealer"),
                      folded=True)

    def journal_complete(self, event: EventData) -> None:
        self.fact("complete")

    # --- internal actions --------------------------------------------------------------

    def record_play(self, event: EventData) -> None:
        self.fact("decision", position=event.kwargs["position"], play=True, by=event.kwargs.get("by", "dealer"))

    def record_fold(self, event: EventData) -> None:
        self.fact("decision", position=event.kwargs["position"], play=False, by=event.kwargs.get("by", "dealer"))

    def record_paid(self, event: EventData) -> None:
        position, rnd = event.kwargs["position"], self.open_round
        seat = next(s for s in (rnd.settlement or {})["seats"] if s["seat"] == position)
        self.fact("paid", position=position, net=seat["net"], by=event.kwargs.get("by", "dealer"))

    def record_override(self, event: EventData) -> None:
        k = event.kwargs
        self.fact("override", position=k["position"], spot=k["spot"], amount=k["amount"],
                  by=k.get("by", "supervisor"), reason=k["reason"])
        self.show_flags()

    def record_link(self, event: EventData) -> None:
        pair = (min(event.kwargs["position"], event.kwargs["other"]),
                max(event.kwargs["position"], event.kwargs["other"]))
        self.links.append(pair)
        self.log.info("dealer.link_positions", round=self.open_round.id, state=self.state, position=pair[0],
                      other=pair[1])

    def record_unlink(self, event: EventData) -> None:
        position = event.kwargs.get("position")
        self.links = [p for p in self.links if position not in p]

    # --- entering states: device commands (repeatable after a recovery) ---------------

    def on_exit_starting(self, event: EventData) -> None:
        self.recovered = None                        # recovery is over once the table leaves starting

    def on_enter_betting(self, event: EventData) -> None:
        rnd = self.open_round
        self.lock_for_betting()
        if not rnd.shuffled or (event.event and event.event.name == "recover"):
            # After a restart the shoe may have restarted too: shuffle again; no card is out yet.
            self.fact("shuffle", deck=rnd.deck)
            self.set_hold("shoe-shuffle", None)     # a new shuffle: its own time limit
            self.emit(Shuffle(rnd.deck))
        self.show_flags()

    def on_enter_closed(self, event: EventData) -> None:
        self.lock_all()                             # "No more bets": every spot locked
        if event.event and event.event.name == "recover" and not self.open_round.deck_checked:
            self.emit(CheckDeck())                  # the check was lost with the restart: ask again

    def on_enter_dealing(self, event: EventData) -> None:
        self.lock_for_decisions()
        if event.event and event.event.name == "recover":
            # Cards may have left the shoe while no one was recording: count them before dealing on.
            # The hand asked for just before the restart may be formed: it alone may come first.
            self.counting_after_recovery = self.hand_before_count = True
            self.ask_count()
            return
        if self.counting_after_recovery:        # a hold came before the count: the count asks for a hand
            self.ask_count()
            return
        self.request_next_hand()

    def on_enter_decisions(self, event: EventData) -> None:
        self.lock_for_decisions()
        for position in list(self.open_round.undecided):      # Play chips put out while others were dealt
            key = (position, Spot.PLAY.value)
            self.play_chips(position, self.felt.get(key), key in self.felt)

    def on_enter_collecting(self, event: EventData) -> None:
        self.lock_all()                             # every Play made or not: the felt is closed

    def on_enter_settling(self, event: EventData) -> None:
        self.lock_all()
        if not event.event or event.event.name != "recover":
            self.announce_hits()

    def on_enter_void(self, event: EventData) -> None:
        self.stop_dealing()
        self.counting_after_recovery = self.hand_before_count = self.recount_after_hand = False
        self.lock_all()
        self.emit(Shuffle(self.open_round.deck))     # the voided cards go back and are reshuffled

    def on_enter_held(self, event: EventData) -> None:
        self.cancel(HAND_TIMER)

    # --- timers, delivered by the engine ------------------------------------------------------

    def on_timer(self, name: str) -> None:
        if name.startswith(REMOVED_TIMER + " "):
            _, position, spot = name.split()
            self.on_stack_gone(int(position), spot)
        elif name == HAND_TIMER:
            self.on_hand_late()

    # --- table actions (machine.TABLE_ACTIONS): outside the round's procedure -------------

    def call_supervisor(self, by: str = "dealer", reason: str = "") -> bool:
        self.alert("supervisor_called", f"Supervisor called to the table by the {by}"
                   + (f": {reason}" if reason else ""))
        return True

    def reset_meters(self, by: str = "supervisor", reason: str = "") -> bool:
        """A new baseline for ``meters``: rounds up to the last closed one are behind it."""
        if self.state not in procedure.BETWEEN_ROUNDS:
            return self.refuse(f"meters are reset between rounds, not while {self.state}")
        if not reason:
            return self.refuse("say why the meters are reset")
        record_meter_reset(self.journal, by=by, reason=reason)
        self.log.info("table.meters_reset", by=by, reason=reason, state=self.state,
                      round=self.round.id if self.round else None)
        return True

"""The table: the model the round machine drives, and the game's reaction to device facts.

Owns the live picture of one table (what lies on the felt, which devices are
answering, what holds the round) and the current ``Round``. It is driven by
exactly one thread, the engine's (controller/engine.py); nothing else calls
it. Every fact is journaled (``fact``) before the table acts on it: before a
device is commanded, before a payment is shown as done. Conditions return
False with ``refusal`` saying why, in words for the dealer.

The procedure follows rule sheet 000's Dealing Procedures: betting, "No more
bets" with the positions without Pair Plus named, hands from the dealer's
left to right then the dealer's, play or fold, the dealer's announcement,
settlement from the dealer's right in the house pay order. Misdeals void
the round; past posting is alerted and not accepted; a lost, jammed or open
device holds the round until it is back.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import structlog

from drivers.wire import sensor_protocol as sensor_proto
from drivers.wire import shoe_protocol as shoe_proto

from controller.round import machine as procedure
from controller.rules.cards import card_text
from controller.app.config import TableConfig
from controller.store.jackpot import JackpotBoard
from controller.store.journal import Journal
from controller.store.recall import record_meter_reset
from controller.rules.spots import BET_SPOTS, label
from controller.rules.words import dealer_announcement, money, no_pair_plus
from controller.round.facts import DEAD_HAND, DEALER, Round
from controller.rules.roundio import settlement_json
from controller.rules.settlement import SeatHand, SettlementError, Wagers, settle_round
from controller.round.jackpot_desk import JackpotDuties

PLAY_SPOT = 1 << sensor_proto.SPOTS.index("play")
LAMP_OFF, LAMP_FLASH = 0, 2
SENSOR_DEBOUNCE = 0.5                           # seconds a stack may vanish before it counts as removed
REQUIRED_DEVICES = ("shoe", "sensors")          # the sign failing never stops a round


class Table(JackpotDuties):
    def __init__(self, config: TableConfig, journal: Journal, devices, *, schedule, cancel):
        self.config = config
        self.preset = config.preset
        self.journal = journal
        self.devices = devices
        self.schedule, self.cancel = schedule, cancel
        self.log = structlog.get_logger("table").bind(table=config.table_id)
        self.round: Round | None = None
        self.felt: dict[tuple[int, str], int | None] = {}
        self.online: dict[str, bool] = {role: False for role in config.devices}
        self.device_detail: dict[str, str] = {role: "not connected yet" for role in config.devices}
        self.holds: dict[str, str] = {}
        self.links: list[tuple[int, int]] = []
        self.lamps: dict[tuple[int, str], int] = {}
        self.alerts: deque[dict] = deque(maxlen=20)
        self.refusal = ""
        self.outstanding_hand: int | None = None
        self.counting_after_recovery = False
        self.recovered: Round | None = None
        self.super6_alerted = False                  # a "Super 6 closed" alert is standing
        self.machine = procedure.build(self)
        self._self_check()
        self.jackpot = JackpotBoard(journal, self.preset, config.jackpots)
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

    # --- journaling -----------------------------------------------------------------

    def fact(self, kind: str, /, **data: Any) -> None:
        record = self.journal.append(self.round.id, kind, data)
        self.round.apply(kind, data, record.at)
        self.log.info(f"round.{kind}", round=self.round.id, state=self.state,
                      position=data.get("position"), record=data)

    def alert(self, kind: str, message: str, position: int | None = None) -> None:
        """Tell the dealer, and put it in the journal when a round is open."""
        entry = {"kind": kind, "message": message, "position": position}
        self.alerts.append(entry)
        if self.round is not None and not self.round.complete and self.round.void_reason is None:
            self.fact("alert", **entry)
        else:
            self.journal.table_event("alert", entry)
            self.log.warning("table.alert", round=self.round.id if self.round else None,
                             state=self.state, **entry)

    def _recover_from_journal(self) -> None:
        last = self.journal.last_round()
        if last is None or last[1] != "open":
            return
        rnd = Round.from_records(last[0], self.journal.records(last[0]))
        self.round = self.recovered = rnd

    # --- the machine's hooks ------------------------------------------------------------

    def record_state(self, event) -> None:
        """Journal the facts a transition brings, then the state entered, before acting."""
        dest = event.transition.dest
        if dest is None:
            return
        name = event.event.name
        if name == "recover":
            self.alert("recovery", f"Recovered after a restart: round {self.round.id} continues in {dest}")
            self.fact("state", state=dest)
            return
        if dest == "betting":
            self._open_round()
        elif self.round is None or dest == "ready":
            self.log.info("table.state", state=dest, source=event.transition.source, trigger=name,
                          round=None)
            return
        if dest == "dealing" and name == "no_more_bets":
            self.fact("wagers", positions=self._accepted_wagers(), linked=[list(p) for p in self.links])
        elif dest == "settling":
            self._settle()
        elif dest == "void":
            by = event.kwargs.get("by", "controller" if name == "misdeal" else "supervisor")
            reason = event.kwargs.get("reason") or "misdeal declared"
            if by != "controller":                  # the controller's own misdeals alert as found
                self.alert("misdeal" if name == "misdeal" else "void",
                           f"{'Misdeal declared' if name == 'misdeal' else 'Round voided'} by the {by}: "
                           f"{reason}. Return all wagers.")
            self.fact("void", reason=reason, by=by)
        self.fact("state", state=dest, **({"from": event.transition.source} if dest == "held" else {}))
        if dest == "complete":
            self.fact("complete")

    def _open_round(self) -> None:
        round_id = self.journal.open_round(self.preset.name)
        decks = self.preset.decks
        self.round = Round(round_id)
        self.links = []
        self.fact("opened", preset=self.preset.name, deck=1 if decks == 1 else 1 + round_id % decks,
                  config_digest=self.config.digest, jackpots=self.jackpot.values)

    # --- conditions (each says why when it fails) -------------------------------------

    def _refuse(self, why: str) -> bool:
        self.refusal = why
        return False

    def devices_answering(self, event=None) -> bool:
        lost = [r for r in REQUIRED_DEVICES if not self.online.get(r)]
        return not lost or self._refuse(f"waiting for the {' and '.join(lost)} to answer")

    def no_open_round(self, event=None) -> bool:
        return self.recovered is None or self._refuse("a round is being recovered")

    def _recovering(self, state: str) -> bool:
        rnd = self.recovered
        if rnd is None:
            return False
        return (rnd.held_from if rnd.state == "held" else rnd.state) == state

    def recovering_betting(self, event=None) -> bool:
        return self._recovering("betting")

    def recovering_dealing(self, event=None) -> bool:
        return self._recovering("dealing")

    def recovering_decisions(self, event=None) -> bool:
        return self._recovering("decisions")

    def recovering_settling(self, event=None) -> bool:
        return self._recovering("settling")

    def sensors_online(self, event=None) -> bool:
        return self.online.get("sensors") or self._refuse("the bet-spot sensors are not answering")

    def deck_ready(self, event=None) -> bool:
        if not self.round.shuffled:
            return self._refuse("the shoe has not finished shuffling")
        if self.round.shoe_count != 52:
            return self._refuse(f"the shoe counted {self.round.shoe_count} cards after the shuffle, not 52")
        problem = self._shoe_problem()
        return not problem or self._refuse(problem)

    def has_wagers(self, event=None) -> bool:
        return bool(self._felt_wagers()) or self._refuse("no wagers on the table")

    def wagers_valid(self, event=None) -> bool:
        problems = self.wager_problems()
        if problems:
            (position, spot), why = next(iter(sorted(problems.items())))
            return self._refuse(f"position {position} {label(spot)}: {why}")
        return True

    def positions_linkable(self, event) -> bool:
        a, b = sorted((event.kwargs.get("position"), event.kwargs.get("other")))
        if not self.config.two_positions_allowed:
            return self._refuse("one player on two positions is not allowed at this table "
                                "(table.one_player_two_positions = \"refused\")")
        if not (1 <= a and b <= self.config.positions and b - a == 1):
            return self._refuse(f"positions {a} and {b} are not two adjacent positions")
        if any(a in pair or b in pair for pair in self.links):
            return self._refuse(f"position {a} or {b} is already linked")
        return True

    def reason_given(self, event) -> bool:
        return bool(event.kwargs.get("reason")) or self._refuse("say why (the reason is journaled)")

    def override_valid(self, event) -> bool:
        position, spot, amount = (event.kwargs.get(k) for k in ("position", "spot", "amount"))
        if not isinstance(position, int) or not 1 <= position <= self.config.positions:
            return self._refuse(f"position {position!r} is not a position at this table "
                                f"(1 to {self.config.positions})")
        if spot not in BET_SPOTS or spot == "play":
            return self._refuse(f"{spot!r} is not a spot a wager can be read on "
                                f"({', '.join(s for s in BET_SPOTS if s != 'play')})")
        if not isinstance(amount, int) or amount < 0:
            return self._refuse(f"amount must be whole cents, 0 or more, not {amount!r}")
        if not event.kwargs.get("reason"):
            return self._refuse("say why the sensor's reading is overridden")
        return True

    def hands_complete(self, event=None) -> bool:
        return self.round.hands_received >= self.round.hands_needed

    def position_undecided(self, event) -> bool:
        position = event.kwargs.get("position")
        if position not in self.round.deciders:
            return self._refuse(f"position {position} has no Ante to play or fold")
        if position in self.round.decisions:
            return self._refuse(f"position {position} has already "
                                f"{'played' if self.round.decisions[position] else 'folded'}")
        return True

    def decisions_complete(self, event=None) -> bool:
        return not self.round.undecided

    def position_next_to_pay(self, event) -> bool:
        position, expected = event.kwargs.get("position"), self.round.next_to_pay
        hits = self.pending_hits()
        if hits:
            return self._refuse(f"Super 6 {hits[0]['jackpot'].upper()} jackpot at position {hits[0]['seat']}: "
                                "a supervisor verifies the six cards before anything is paid")
        if position != expected:
            return self._refuse(f"settle position {expected} first (from the dealer's right)")
        return True

    def everything_paid(self, event=None) -> bool:
        return self.round.settlement is not None and self.round.next_to_pay is None

    def nothing_paid(self, event=None) -> bool:
        return not self.round.paid or self._refuse("payments have been made; the round cannot be voided")

    def something_holding(self, event=None) -> bool:
        return bool(self.holds)

    def nothing_holding(self, event=None) -> bool:
        return not self.holds

    def held_from_dealing(self, event=None) -> bool:
        return self.round.held_from == "dealing"

    def held_from_decisions(self, event=None) -> bool:
        return self.round.held_from == "decisions"

    # --- internal actions --------------------------------------------------------------

    def record_play(self, event) -> None:
        self.fact("decision", position=event.kwargs["position"], play=True,
                  by=event.kwargs.get("by", "dealer"))

    def record_fold(self, event) -> None:
        self.fact("decision", position=event.kwargs["position"], play=False,
                  by=event.kwargs.get("by", "dealer"))

    def record_paid(self, event) -> None:
        position = event.kwargs["position"]
        seat = next(s for s in self.round.settlement["seats"] if s["seat"] == position)
        self.fact("paid", position=position, net=seat["net"], by=event.kwargs.get("by", "dealer"))

    def record_override(self, event) -> None:
        k = event.kwargs
        self.fact("override", position=k["position"], spot=k["spot"], amount=k["amount"],
                  by=k.get("by", "supervisor"), reason=k["reason"])
        self._show_flags()

    def record_link(self, event) -> None:
        pair = tuple(sorted((event.kwargs["position"], event.kwargs["other"])))
        self.links.append(pair)
        self.log.info("dealer.link_positions", round=self.round.id, state=self.state, position=pair[0],
                      other=pair[1])

    def record_unlink(self, event) -> None:
        position = event.kwargs.get("position")
        self.links = [p for p in self.links if position not in p]

    # --- entering states: device commands (repeatable after a recovery) ---------------

    def on_exit_starting(self, event) -> None:
        self.recovered = None                        # recovery is over once the table leaves starting

    def on_enter_betting(self, event) -> None:
        self.devices.sensors.lock(locked=False)
        self.lock_super6_if_closed()
        if not self.round.shuffled or event.event.name == "recover":
            # After a restart the shoe may have restarted too: shuffle again; no card is out yet.
            self.fact("shuffle", deck=self.round.deck)
            self.devices.shoe.shuffle(self.round.deck)
        self._show_flags()

    def on_enter_dealing(self, event) -> None:
        self._lock_for_decisions()
        if event.event.name == "recover":
            # Cards may have left the shoe while no one was recording: count them before dealing on.
            self.counting_after_recovery = True
            self.devices.shoe.request_status()
            return
        self._request_next_hand()

    def on_enter_decisions(self, event) -> None:
        self._lock_for_decisions()
        for position in list(self.round.undecided):      # Play chips put out while others were dealt
            self._play_spot(position, self.felt.get((position, "play")), (position, "play") in self.felt)

    def on_enter_settling(self, event) -> None:
        self.devices.sensors.lock()
        if event.event.name != "recover":
            self.announce_hits()

    def on_enter_void(self, event) -> None:
        self.cancel("hand")
        self.outstanding_hand = None
        self.devices.sensors.lock()
        self.devices.shoe.shuffle(self.round.deck)       # the voided cards go back and are reshuffled

    def on_enter_held(self, event) -> None:
        self.cancel("hand")

    def _lock_for_decisions(self) -> None:
        sensors = self.devices.sensors
        sensors.lock()
        for position in self.round.deciders:
            sensors.lock(position, PLAY_SPOT, locked=False)

    # --- wagers on the felt -----------------------------------------------------------

    def readings(self) -> dict[tuple[int, str], int | None]:
        """What lies on each spot: the sensors' readings, with a supervisor's override in place
        of the sensor's for this round (0 = no wager there)."""
        reading = dict(self.felt)
        if self.round is not None and self.state == "betting":
            for key, amount in self.round.overrides.items():
                if amount:
                    reading[key] = amount
                else:
                    reading.pop(key, None)
        return reading

    def _felt_wagers(self) -> dict[int, dict[str, int]]:
        wagers: dict[int, dict[str, int]] = {}
        for (position, spot), value in self.readings().items():
            if spot in BET_SPOTS and value:
                wagers.setdefault(position, {})[spot] = value
        return wagers

    def _accepted_wagers(self) -> dict[str, dict[str, int]]:
        return {str(p): {s: w.get(s, 0) for s in BET_SPOTS} for p, w in sorted(self._felt_wagers().items())}

    def wager_problems(self) -> dict[tuple[int, str], str]:
        """Spots whose chips cannot be accepted as they lie, with the reason."""
        problems = {}
        super6_closed = self.jackpot.super6_closed()
        for (position, spot), value in self.readings().items():
            if spot == "play":
                problems[(position, spot)] = "the Play spot stays empty until the cards are seen"
                continue
            if value is None:
                problems[(position, spot)] = "chips seen but the sensor cannot read their value"
                continue
            if not self.preset.offers(spot):
                problems[(position, spot)] = f"{label(spot)} is not offered at this table"
                continue
            limit = self.preset.limits[spot]
            if value < limit.min:
                problems[(position, spot)] = f"{money(value)} is below the {money(limit.min)} minimum"
            elif value > limit.max:
                problems[(position, spot)] = f"{money(value)} is above the {money(limit.max)} maximum"
            elif spot == "super6" and super6_closed:
                problems[(position, spot)] = f"Super 6 closed: {super6_closed}"
            elif spot == "super6" and value not in self.preset.super6:
                sizes = " or ".join(money(b) for b in sorted(self.preset.super6))
                problems[(position, spot)] = f"{money(value)} is not a Super 6 bet size ({sizes})"
        return problems

    def _show_flags(self) -> None:
        problems = self.wager_problems()
        for key in set(problems) | set(self.lamps):
            self._lamp(*key, LAMP_FLASH if key in problems else LAMP_OFF)

    def _lamp(self, position: int, spot: str, mode: int) -> None:
        """Only changes go to the sensors: every command waits for its ACK on the link."""
        if self.lamps.get((position, spot), LAMP_OFF) != mode:
            self.devices.sensors.lamp(position, spot, mode)
        if mode == LAMP_OFF:
            self.lamps.pop((position, spot), None)
        else:
            self.lamps[(position, spot)] = mode

    # --- device facts, delivered by the engine ---------------------------------------------

    def on_spot(self, e) -> None:
        key = (e.position, e.spot)
        if e.change == "removed":
            self.felt.pop(key, None)
        else:
            self.felt[key] = e.value
        self.log.info("device.spot", round=self.round.id if self.round else None, state=self.state,
                      position=e.position, spot=e.spot, change=e.change, value=e.value)
        state = self.state if self.state != "held" else self.round.held_from
        if state == "betting":
            self._lamp(e.position, e.spot, LAMP_FLASH if key in self.wager_problems() else LAMP_OFF)
        elif state in ("dealing", "decisions"):
            if e.spot == "play":
                self._play_spot_changed(e)
            else:
                self._past_posting(e)

    def _past_posting(self, e) -> None:
        accepted = self.round.wagers.get(e.position, {}).get(e.spot, 0)
        timer = f"removed {e.position} {e.spot}"
        if e.change == "removed":
            # A sensor that blinks reports removed-then-placed within milliseconds: only a stack
            # still gone after the debounce time is an alert. Taking back chips that were never
            # accepted (a past post withdrawn) is no offence.
            if accepted:
                self.schedule(timer, SENSOR_DEBOUNCE)
            return
        self.cancel(timer)
        if e.change != "removed" and e.value == accepted:
            return                                      # back as it was: nothing to alert
        what = {"placed": f"placed {money(e.value or 0)}", "changed": f"changed to {money(e.value or 0)}",
                "removed": "removed"}[e.change]
        self.alert("past_posting", f"Past posting: position {e.position} {label(e.spot)} {what} "
                   f"after No more bets; not accepted (the wager stays {money(accepted)})", e.position)

    def _play_spot_changed(self, e) -> None:
        position = e.position
        if position not in self.round.deciders:
            if e.change != "removed":
                self.alert("past_posting", f"Past posting: position {position} Play placed with no Ante; "
                           "not accepted", position)
            return
        if position in self.round.decisions:
            played = self.round.decisions[position]
            if e.change == "removed" or not played:
                self.alert("past_posting", f"Position {position} Play {e.change} after the decision "
                           f"({'played' if played else 'folded'}); not accepted", position)
            return
        if self.state == "decisions":
            self._play_spot(position, e.value, e.change != "removed")

    def _play_spot(self, position: int, value: int | None, present: bool) -> None:
        if not present:
            return
        ante = self.round.wagers[position]["ante"]
        if value is not None and value != ante:
            self.alert("play_amount", f"Position {position}: the Play must equal the Ante ({money(ante)}), "
                       f"not {money(value)}", position)
            self._lamp(position, "play", LAMP_FLASH)
            return
        self._lamp(position, "play", LAMP_OFF)
        self.play(position=position, by="sensor")

    # shoe

    def on_shoe(self, msg) -> None:
        if isinstance(msg, shoe_proto.ShuffleComplete):
            self._shuffled(msg)
        elif isinstance(msg, shoe_proto.HandDelivered):
            self._hand(msg)
        elif isinstance(msg, shoe_proto.Status):
            self._shoe_status(msg)
        elif isinstance(msg, shoe_proto.Jam):
            if msg.code != shoe_proto.JAM_CLEARED:
                self.journal.table_event("jam", {"code": msg.code, "description": msg.description})
            self._set_hold("shoe-jam", None if msg.code == shoe_proto.JAM_CLEARED
                           else f"Shoe jammed: {msg.description}")
        elif isinstance(msg, shoe_proto.Door):
            if msg.open:
                self.journal.table_event("door", {"open": True})
            self._set_hold("shoe-door", "Shoe door open" if msg.open else None)
        elif isinstance(msg, shoe_proto.ShoeError):
            self.alert("shoe_error", f"Shoe error {msg.code}: {msg.text}")
        elif isinstance(msg, shoe_proto.DeckCheckResult):
            if not msg.ok:
                self.alert("deck_check", f"Deck check failed: count {msg.count}, missing "
                           f"{len(msg.missing)}, duplicated {len(msg.duplicates)}, foreign {len(msg.foreign)}")

    def _shuffled(self, msg) -> None:
        if self.round is None or self.state != "betting" or self.round.shuffled or msg.deck != self.round.deck:
            return                                   # the reshuffle after a void, or the other deck
        self.fact("shuffled", deck=msg.deck, count=msg.count)
        if msg.count != 52:
            self.alert("deck_count", f"The shoe counted {msg.count} cards after the shuffle, not 52; "
                       "check the deck before dealing")

    def _shoe_problem(self) -> str | None:
        for key in ("shoe-jam", "shoe-door", "shoe"):
            if key in self.holds:
                return self.holds[key]
        return None

    def _request_next_hand(self) -> None:
        if self.holds or self.round.hands_received >= self.round.hands_needed:
            return
        self.outstanding_hand = self.round.hands_received + 1
        self.devices.shoe.deliver_hand(self.outstanding_hand)
        self.schedule("hand", self.config.hand_timeout)

    def _hand(self, msg) -> None:
        cards = [list(c) for c in msg.cards]
        if self.state != "dealing" or msg.hand_no != self.outstanding_hand:
            if self.round is not None and self.state in ("dealing", "decisions", "held"):
                self.fact("hand", hand_no=msg.hand_no, target=DEAD_HAND, cards=cards)
            self.alert("dead_hand", f"A hand came from the shoe for no position (hand {msg.hand_no}): "
                       "collect it unseen as a dead hand")
            return
        self.cancel("hand")
        self.outstanding_hand = None
        target = self.round.target_of(self.round.hands_received)
        problem = self._card_problem(msg.cards, target, set(self.round.dealt_cards()))
        self.fact("hand", hand_no=msg.hand_no, target=target, cards=cards)   # the evidence, even of a misdeal
        if problem:
            self.alert("misdeal", f"Misdeal: {problem}. All hands are void; return the wagers.")
            self.misdeal(reason=problem)
            return
        self._request_next_hand()

    def _card_problem(self, cards, target: int, seen: set[int]) -> str | None:
        who = "the dealer" if target == DEALER else f"position {target}"
        if len(cards) != 3:
            return f"{who} was dealt {len(cards)} cards"
        in_hand: set[int] = set()
        for card, deck in cards:
            if card == shoe_proto.UNREADABLE:
                return f"the shoe could not read a card of {who}'s hand"
            if deck != self.round.deck:
                return f"{card_text(card)} in {who}'s hand is from deck {deck}, not the deck in play ({self.round.deck})"
            if card in seen or card in in_hand:
                return f"{card_text(card)} was read twice ({who}'s hand)"
            in_hand.add(card)
        return None

    def _shoe_status(self, msg) -> None:
        if not self.counting_after_recovery or self.state != "dealing":
            return
        self.counting_after_recovery = False
        expected = self.round.shoe_count - self.round.cards_dealt
        if msg.remaining != expected:
            reason = (f"cards left the shoe while the controller was down (the shoe holds "
                      f"{msg.remaining}, the journal expects {expected})")
            self.alert("misdeal", f"Misdeal: {reason}. All hands are void; return the wagers.")
            self.misdeal(reason=reason)
            return
        self._request_next_hand()

    def on_timer(self, name: str) -> None:
        if name.startswith("removed "):
            _, position, spot = name.split()
            accepted = self.round.wagers.get(int(position), {}).get(spot, 0) if self.round else 0
            if (int(position), spot) not in self.felt and self.state in ("dealing", "decisions", "held"):
                self.alert("past_posting", f"Past posting: position {position} {label(spot)} removed "
                           f"after No more bets; not accepted (the wager stays {money(accepted)})",
                           int(position))
            return
        if name == "hand" and self.state == "dealing" and self.outstanding_hand:
            self.alert("shoe_slow", f"The shoe has not delivered hand {self.outstanding_hand} within "
                       f"{self.config.hand_timeout:g} s; asking again")
            self.devices.shoe.deliver_hand(self.outstanding_hand)
            self.schedule("hand", self.config.hand_timeout)

    # links

    def on_online(self, role: str, info: dict) -> None:
        self.online[role] = True
        self.device_detail[role] = "online"
        self.log.info("device.online", device=role, state=self.state,
                      round=self.round.id if self.round else None)
        self._set_hold(role, None)
        if role == "sensors" and self.round is not None:
            if self.state == "betting":
                self.devices.sensors.lock(locked=False)
                self.lock_super6_if_closed()
            elif self.state in ("dealing", "decisions", "held"):
                self._lock_for_decisions()
        if role == "shoe" and self.state == "betting" and self.round and not self.round.shuffled:
            self.devices.shoe.shuffle(self.round.deck)
        if role == "sign":
            self.show_jackpots_on_sign()              # rewritten from the journal's posted values

    def on_offline(self, role: str, reason: str) -> None:
        self.online[role] = False
        self.device_detail[role] = reason
        self.alert("device_offline", f"The {role} is not answering: {reason}")
        if role == "sign":
            self.on_sign_failed(f"sign offline: {reason}")
        if role in REQUIRED_DEVICES:
            self._set_hold(role, f"{role.capitalize()} offline")

    def _set_hold(self, key: str, reason: str | None) -> None:
        if reason is None:
            if self.holds.pop(key, None) and self.state == "held":
                self.log.info("table.hold_cleared", round=self.round.id, state=self.state, hold=key)
            return
        if key not in self.holds:
            self.holds[key] = reason
            if self.state in procedure.HOLDABLE or self.state == "held":
                self.alert("hold", f"Round held: {reason}")

    # --- settlement -------------------------------------------------------------------------

    def _settle(self) -> None:
        rnd = self.round
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

    # --- table actions (machine.TABLE_ACTIONS): outside the round's procedure -------------

    def call_supervisor(self, by: str = "dealer", reason: str = "") -> bool:
        self.alert("supervisor_called", f"Supervisor called to the table by the {by}"
                   + (f": {reason}" if reason else ""))
        return True

    def reset_meters(self, by: str = "supervisor", reason: str = "") -> bool:
        """A new baseline for ``meters``: rounds up to the last closed one are behind it."""
        if self.state not in procedure.BETWEEN_ROUNDS:
            return self._refuse(f"meters are reset between rounds, not while {self.state}")
        if not reason:
            return self._refuse("say why the meters are reset")
        record_meter_reset(self.journal, by=by, reason=reason)
        self.log.info("table.meters_reset", by=by, reason=reason, state=self.state,
                      round=self.round.id if self.round else None)
        return True

    # --- what the dealer is told -------------------------------------------------------------

    def prompt(self) -> list[str]:
        state, rnd = self.state, self.round
        if state == "starting":
            return ["Starting: " + (self.refusal or "checking the devices")]
        if state == "ready":
            return ["Open betting"]
        if state == "betting":
            lines = ["Place your bets"]
            problems = self.wager_problems()
            lines += [f"Position {p} {label(s)}: {why}" for (p, s), why in sorted(problems.items())]
            if not rnd.shuffled:
                lines.append("Shoe shuffling")
            return lines
        if state == "dealing":
            lines = ["No more bets"]
            without = [p for p in rnd.active if not rnd.wagers[p].get("pair_plus")]
            if no_pair_plus(without):
                lines.append(no_pair_plus(without))
            return lines
        if state == "decisions":
            return [f"Position {p}: play or fold" for p in rnd.undecided] or ["Reveal the dealer's hand"]
        if state == "settling":
            lines = [rnd.settlement["announcement"]]
            for hit in self.pending_hits():
                lines.append(f"JACKPOT: {hit['jackpot'].upper()} at position {hit['seat']}; "
                             "supervisor to verify the six cards")
            nxt = rnd.next_to_pay
            if nxt is not None:
                lines.append(f"Settle position {nxt}")
            return lines
        if state == "complete":
            return ["Round complete", "Open betting"]
        if state == "void":
            return [f"Round void: {rnd.void_reason}", "Return all wagers", "Open betting"]
        if state == "held":
            return ["Round held"] + list(self.holds.values())
        return []

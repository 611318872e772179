"""What readers may see of the table: one plain, JSON-ready dict per published moment.

Owns the view the dealer's page, the autoplay dealer and tests read, put together from what the
parts of the table say (controller/round/table.py): the prompt (controller/round/prompts.py's words),
the settlement's pay lines, the positions, the dealer's hand, the devices, holds, jackpots and the
alerts standing at each position. It is built on the engine's thread when a reader asks for the moment
(controller/publisher.py) and never changed once published: what did not change since the last
moment (a position's entry, the prompt, the actions, the devices, the holds, the alerts, the dealer's
hand, the settlement's order) is the very object of the snapshot before (``DrawMemo``), so snapshots
share them; readers never change what they read.
Player hands stay hidden until the dealer's hand is revealed (the dealer must not see what the
players hold while they decide).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from controller.round import machine as procedure
from controller.round.facts import DEALER, Round
from controller.round.locks import by_position
from controller.round.prompts import betting_prompt, prompt, returns, set_aside
from controller.round.table import Table
from controller.rules.cards import card_text
from controller.rules.hand3 import score3
from controller.rules.spots import SPOT_NAMES, Spot
from controller.rules.words import (
    hand_words,
    settlement_lines,
    settlement_money,
    settlement_total,
    six_card_words,
)

# --- the snapshot ------------------------------------------------------------------------------

FLOOR_STATES = "Super 6: the floor states the amount"


class SettlementLines:
    """A settlement's words by position (its pay lines, what is left to pay and take), worked out once
    per settlement: the snapshot is drawn about 35 times a round, and a settlement is never changed
    once journaled (a later settlement record is a new dict). One per engine: each table's thread
    has its own."""

    def __init__(self) -> None:
        self._settlement: dict | None = None
        self._words: dict[int, dict[str, Any]] = {}

    def __call__(self, settlement: dict, seat: dict, side_bets_stay: bool = True) -> dict[str, Any]:
        if settlement is not self._settlement:
            self._settlement, self._words = settlement, {}
        words = self._words.get(seat["seat"])
        if words is None:
            words = self._words[seat["seat"]] = seat_words(seat, side_bets_stay)
        return dict(words, lines=list(words["lines"]))     # each entry drawn its own: it puts its lines together


def seat_words(seat: dict, side_bets_stay: bool = True) -> dict[str, Any]:
    """A settled position as the dealer reads it: the lines in the sheet's order, and what is left to
    pay and take (a fold's forfeited wagers went with its cards)."""
    to_pay, to_take, collected = settlement_money(seat, side_bets_stay)
    return {"lines": settlement_lines(seat, side_bets_stay), "total": settlement_total(seat, side_bets_stay),
            "to_pay": to_pay, "to_take": to_take, "collected": collected}


class DrawMemo:
    """What the snapshot keeps from one drawing to the next; one per engine (tests/round/test_view_memo.py
    and tests/sim/test_view_memo_sim.py draw every moment both ways and compare them). A snapshot is
    drawn at every event, about 45 a round, and most events change the felt at one position and nothing
    else. So:

    - each position's entry is kept with everything it is made of (the round, its void reason, its
      settlement and the dealer's hand, whether hands are shown; and the position's own readings,
      problems, alerts, pairing, and its share of the round: wagers, cards, decision, payment,
      overrides, chips to hand back, hand set aside, linked hit waiting for the floor), and drawn again
      when one of them changed (the readings alone: only they are drawn again);
    - the table's own parts of the snapshot are kept with what they read, the change counters of the
      parts that own it included: the round's (``Round.changes``, one more at each record applied),
      the alerts (``Clerk.alerted``), the holds (``Holds.changes``), the devices (``DeviceLinks.changes``).
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[tuple, dict[str, Any]]] = {}
        self._parts: dict[str, tuple[tuple, Any]] = {}

    def get(self, position: int, key: tuple) -> dict[str, Any] | None:
        """The position's entry drawn from ``key``: the one kept; or, where only the readings (the key's
        second term) changed, as in most of betting, the one kept with the readings drawn anew; or None."""
        kept = self._entries.get(position)
        if kept is None:
            return None
        before, entry = kept
        if before == key:
            return entry
        if before[0] == key[0] and before[2:] == key[2:]:
            entry = dict(entry, felt=_felt_entry(key[1]))
            self._entries[position] = (key, entry)
            return entry
        return None

    def put(self, position: int, key: tuple, entry: dict[str, Any]) -> None:
        self._entries[position] = (key, entry)

    def part(self, name: str, key: tuple, draw: Callable[[], Any]) -> Any:
        kept = self._parts.get(name)
        if kept is None or kept[0] != key:
            kept = self._parts[name] = (key, draw())
        return kept[1]


def _anew(name: str, key: tuple, draw: Callable[[], Any]) -> Any:
    return draw()


def _round_part(table: Table, rnd: Round | None, state: str) -> dict[str, Any]:
    """What the snapshot reads of the round (and the state) alone, once per change of either."""
    void = rnd is not None and rnd.void_reason is not None
    revealed = state in ("settling", "complete") or void
    overrides_at = by_position(rnd.overrides) if rnd and state == "betting" else {}
    wagers, hands, decisions, paid = (rnd.wagers, rnd.hands, rnd.decisions, rnd.paid) if rnd else ({}, {}, {}, {})
    aside, to_return, waiting = set_aside(table), returns(rnd), rnd.floor_waiting if rnd else set()
    # a round recovered under a smaller layout still shows the positions it owes (its settlement)
    seats = sorted({*range(1, table.config.positions + 1), *wagers})
    return {
        "void": void, "revealed": revealed, "aside": aside, "to_return": to_return, "waiting": waiting,
        "overrides_at": overrides_at, "seats": seats,
        # what each position's entry is made of of the round, for its key
        "rows": {p: (p in aside, to_return.get(p), p in waiting,
                     (wagers.get(p), hands.get(p), decisions.get(p), paid.get(p), overrides_at.get(p, ()))
                     if rnd else None) for p in seats},
        # what a position's entry is made of besides its own data. The state counts only as whether
        # hands are shown: betting to collecting draws no entry anew
        "inputs": (revealed, rnd.id if rnd else None, rnd.void_reason if rnd else None,
                   rnd.settlement if rnd else None, rnd.hands.get(DEALER) if rnd else None),
        "dealer": {
            "dealt": bool(rnd and DEALER in rnd.hands),
            # arranged from the highest card to the lowest, as the dealer lays it out (sheet 000)
            "cards": _show(rnd.hands[DEALER] if void else sorted(rnd.hands[DEALER], reverse=True))
            if rnd and DEALER in rnd.hands and revealed else None,
            "hand": _hand(rnd.hands[DEALER]) if rnd and DEALER in rnd.hands and revealed and not void else None,
            "announcement": rnd.settlement["announcement"] if rnd and rnd.settlement else None,
            "qualifies": rnd.settlement.get("dealer_qualifies") if rnd and rnd.settlement else None,
        },
        "settlement_order": rnd.settlement_order if rnd else [],
        "next_to_pay": rnd.next_to_pay if rnd and state == "settling" else None,
    }


CORRECTED = ("play_amount", "unread_spot")      # a Play's problem that ends when the Play is made


def still_standing(alert: dict, rnd: Round | None) -> bool:
    """Whether an alert at a position still shows there: a Play of the wrong amount, or unread,
    made right (the position played) is no longer a problem."""
    return not (rnd and alert["kind"] in CORRECTED and rnd.decisions.get(alert["position"]) is True)


def _alerts_part(table: Table, rnd: Round | None) -> tuple[list[dict[str, Any]], dict[int, list[str]]]:
    """The alerts standing, and those of each position, once per alert or round record. A jackpot hit is
    a position's problem while it waits for the supervisor; verified, neither it nor its verification is
    (the position's red box said "a supervisor verifies the six cards" beside its pay lines)."""
    standing = table.clerk.standing_alerts()
    waiting = {hit["seat"] for hit in table.jackpots.pending_hits()}
    at: dict[int, list[str]] = {}
    for a in standing:
        resolved = a["kind"] == "jackpot_verified" or (a["kind"] == "jackpot_hit" and a.get("position") not in waiting)
        if a.get("position") is not None and still_standing(a, rnd) and not resolved:
            at.setdefault(a["position"], []).append(a["message"])
    return standing, at


def build_snapshot(table: Table, lines_of: SettlementLines, memo: DrawMemo | None = None) -> dict[str, Any]:
    """``lines_of`` keeps each settlement's pay lines, ``memo`` what the last snapshot was drawn from
    (one per engine; without it everything is drawn anew)."""
    rnd = table.round
    state = table.state
    part = memo.part if memo is not None else _anew
    changes = rnd.changes if rnd is not None else 0
    of_round = part("round", (rnd, changes, state), lambda: _round_part(table, rnd, state))
    void, revealed, aside = of_round["void"], of_round["revealed"], of_round["aside"]
    to_return, waiting, inputs = of_round["to_return"], of_round["waiting"], of_round["inputs"]
    overrides_at = of_round["overrides_at"]
    standing, alerts_at = part("alerts", (table.clerk.alerted, rnd, changes), lambda: _alerts_part(table, rnd))
    problems = table.felt.problems() if state == "betting" else {}
    holds = table.holds.changes
    said = part("prompt", (state, rnd, changes, problems, holds, table.shift.name,
                           table.refusal if state == "starting" else None),
                lambda: betting_prompt(table, problems) if state == "betting" else prompt(table))
    felt_at = table.felt.by_position()
    positions = []
    stays = table.config.preset.side_bets_stay_after_fold
    flags_at = part("flags", (problems,), lambda: by_position(problems))
    partner, rows = table.pairs.partner, of_round["rows"]
    for p in of_round["seats"]:
        felt, flags = felt_at.get(p, ()), flags_at.get(p, ())
        key = (inputs, felt, flags, partner(p), alerts_at.get(p), rows[p])      # the readings second: see get
        kept = memo.get(p, key) if memo is not None else None
        if kept is not None:
            positions.append(kept)
            continue
        overrides = overrides_at.get(p, ())
        entry = {
            "position": p,
            "felt": _felt_entry(felt),
            "overrides": dict(overrides),
            "flags": dict(flags),
            "wagers": rnd.wagers.get(p, {}) if rnd else {},
            "dealt": bool(rnd and p in rnd.hands),
            # a folded hand is collected face down (sheet 000, step 5), but for one whose 6 Card Bonus or
            # Super 6 stays in action: set aside, then turned up to settle those; a voided round shows all
            "cards": _show(rnd.hands[p]) if rnd and p in rnd.hands and revealed
            and (void or rnd.decisions.get(p) is not False or (p in rnd.folds and _side_bets(rnd, p) and stays))
            else None,
            "set_aside": p in aside,
            "problems": list(alerts_at.get(p, ())),
            "returns": to_return.get(p, []),
            "decision": None if not rnd or p not in rnd.decisions else
            ("play" if rnd.decisions[p] else "fold"),
            "linked": partner(p),
        }
        if rnd and rnd.settlement:
            seat = next((s for s in rnd.settlement["seats"] if s["seat"] == p), None)
            if seat:
                words, net = lines_of(rnd.settlement, seat, stays), seat["net"]
                if p in waiting:
                    # the table's own arithmetic for a linked hit is not what will be paid: the floor's
                    # final amount is (a split may be smaller); the rest of the position stands
                    results = {k: v for k, v in seat["results"].items() if k != Spot.SUPER6.value}
                    words = seat_words(dict(seat, results=results), stays)
                    words["lines"].append(FLOOR_STATES)
                    net -= seat["results"].get(Spot.SUPER6.value, 0)
                words["lines"] = to_return.get(p, []) + words["lines"]
                entry["settlement"] = {"results": seat["results"], "net": net,
                                       "cap_reduction": seat["cap_reduction"],
                                       "hand": seat["hand"] if seat["play"] or not seat["wagers"].get("ante") else None,
                                       **words, "paid": p in rnd.paid}
        entry.update(_hands(rnd, p, shown=bool(entry["cards"]) and not void))
        positions.append(entry)
        if memo is not None:
            memo.put(p, key, entry)
    return {
        "table": table.config.table_id,
        "preset": table.config.preset.name,
        "state": state,
        "round": rnd.id if rnd else None,
        "prompt": said,
        # what is offered beyond the state's actions changes with who is signed in (the rest is the table's)
        "actions": part("actions", (state, table.shift.name),
                        lambda: [a for a in procedure.ACTIONS[state] if _offered(table, a)]),
        "positions": positions,
        "dealer": of_round["dealer"],
        "settlement_order": of_round["settlement_order"],
        "next_to_pay": of_round["next_to_pay"],
        "void_reason": rnd.void_reason if rnd else None,
        "devices": part("devices", (table.links.changes, holds), table.links.view),
        "holds": part("holds", (holds,), table.holds.reasons),
        "jackpots": table.jackpots.values(),
        "jackpot": table.jackpots.view(),
        "jackpot_pending": table.jackpots.pending_hits(),
        "jackpot_claims": table.jackpots.floor_claims(),
        "alerts": standing,
        "shift": table.shift.view(),
    }


def _felt_entry(felt: tuple[tuple[str, int | None], ...]) -> dict[str, int | None]:
    """A position's readings as the snapshot shows them: by spot, in the layout's order."""
    read = dict(felt)
    return {name: read[name] for _, name in SPOT_NAMES if name in read}


def _offered(table: Table, action: str) -> bool:
    """An action the table offers now beyond the state's: a linked jackpot is posted on the floor; a
    dealer signs in where dealers have PINs, and out when one is signed in."""
    if action == "set_jackpots":
        return table.jackpots.offers_posting()
    if action == "sign_in_dealer":
        return table.shift.required
    if action == "sign_out_dealer":
        return table.shift.name is not None
    return True


def _hands(rnd: Round | None, p: int, shown: bool) -> dict[str, str | None]:
    """A position's hand as the dealer announces it, once its cards are shown; with a 6 Card Bonus or
    Super 6 once settled, its six cards (its three, then the dealer's) and their hand (rule sheet 004)."""
    out: dict[str, str | None] = {"hand": None, "six_cards": None, "six_card_hand": None}
    if rnd is None:
        return out
    out["hand"] = _hand(rnd.hands[p]) if shown else None
    seat = next((s for s in rnd.settlement["seats"] if s["seat"] == p), None) if rnd.settlement else None
    if seat is not None and _side_bets(rnd, p) and DEALER in rnd.hands:
        out["six_cards"] = _show((*rnd.hands[p], *rnd.hands[DEALER]))
        out["six_card_hand"] = six_card_words(seat.get("six_card"), seat.get("super6_hand"))
    return out


def _side_bets(rnd: Round, p: int) -> bool:
    wagers = rnd.wagers.get(p, {})
    return bool(wagers.get(Spot.SIX_CARD_BONUS) or wagers.get(Spot.SUPER6))


def _hand(cards: Iterable[int]) -> str | None:
    """A three-card hand's name as the dealer announces it; None where a card could not be read."""
    return _named(tuple(cards))


def _show(cards: Iterable[int]) -> str:
    """A hand as text; "??" for a card the shoe could not read (shown after a misdeal)."""
    return _shown(tuple(cards))


# Kept per hand: a revealed hand is named and shown again in each of the round's later snapshots
@lru_cache(maxsize=4096)
def _named(cards: tuple[int, ...]) -> str | None:
    # a card read twice (a shoe fault: the round is void) makes no hand to name, and no lookup to fail
    return hand_words(score3(cards)) if len(set(cards)) == 3 == len(cards) and all(0 <= c < 52 for c in cards) \
        else None


@lru_cache(maxsize=4096)
def _shown(cards: tuple[int, ...]) -> str:
    return " ".join(card_text(c) if 0 <= c < 52 else "??" for c in cards)

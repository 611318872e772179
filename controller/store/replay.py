"""One round replayed step by step from the journal: what happened, in order, and how the felt and the
cards stood after each step; then the round settled again from its recalled cards and wagers and compared.

Owns the timeline of ``table-controller replay`` (and any page that shows it). Each step is one fact
of the round's, or a fact of the table's journaled while the round was open (an alert, a device, a
supervisor's posting), in the order of the table's chain. The round's own state after each step is
rebuilt by ``Round.apply``, the very code recovery and recall use: a replay cannot tell another story
than the table acted on. The check settles the recalled cards and wagers again with the rules engine
(what ``recall --json | settle`` does) and compares every position's net with the journaled settlement.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from controller.round.facts import DEAD_HAND, DEALER, Round
from controller.rules.cards import cards_text
from controller.rules.paytable import PayTableError, Preset, load_preset
from controller.rules.roundio import settle_json
from controller.rules.spots import LABELS
from controller.rules.words import money
from controller.store.journal import Journal
from controller.store.recall import recall_round

# The table's own facts while the round was open: by time, and, since a millisecond holds several
# facts, by the chain (the order they were journaled in) at either end: a jackpot posted in the very
# millisecond the round completed, after it, is not the round's (a journal older than the chain has
# only the times to go by)
FACTS_OF_ROUND = ("SELECT chain, at, kind, data, 1 FROM records WHERE round_id = :round "
                  "UNION ALL SELECT chain, at, kind, data, 0 FROM table_events "
                  "WHERE at >= :opened AND (:closed IS NULL OR at <= :closed) AND (chain IS NULL "
                  "OR (SELECT MIN(chain) FROM records WHERE round_id = :round) IS NULL "
                  "OR (chain > (SELECT MIN(chain) FROM records WHERE round_id = :round) AND (:closed IS NULL "
                  "OR chain < (SELECT MAX(chain) FROM records WHERE round_id = :round)))) ORDER BY 1")


def _hand(d: dict[str, Any]) -> str:
    cards = cards_text(c for c, _ in d["cards"] if c < 52) or "(unread)"
    if d["target"] == DEALER:
        return f"Hand {d['hand_no']} to the dealer: {cards}"
    if d["target"] == DEAD_HAND:
        return f"Hand {d['hand_no']}, a dead hand: {cards}"
    return f"Hand {d['hand_no']} to position {d['target']}: {cards}"


def _spot(name: str) -> str:
    return LABELS.get(name, name)


# what each kind of fact says, in a dealer's or supervisor's words: each text is a message id of
# controller/page/messages.py (REPLAY), so that the page shows it in the reader's language
WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "opened": lambda d: (f"Round opened: {d.get('preset', '')}, deck {d.get('deck', 1)}"
                         + (f", dealt by {d['dealer']}" if d.get("dealer") else "")),
    "dealer_signed_in": lambda d: (f"Dealer {d.get('name')} signed in, relieving {d['replaces']}"
                                   if d.get("replaces") else f"Dealer {d.get('name')} signed in"),
    "dealer_signed_out": lambda d: f"Dealer {d.get('name')} signed out",
    "state": lambda d: (f"The table: {d['state']} (held from {d['from']})" if d.get("from")
                        else f"The table: {d['state']}"),
    "shuffle": lambda d: "Shuffle asked for",
    "shuffled": lambda d: f"Shuffled, {d.get('count')} cards",
    "deck_check": lambda d: "Deck checked: complete" if d.get("ok") else "Deck checked: NOT complete",
    "override": lambda d: (f"{d.get('by')} read position {d['position']}'s {_spot(d['spot'])} as "
                           f"{money(d['amount'])}: {d.get('reason', '')}"),
    "wagers": lambda d: "No more bets: the wagers on the felt are accepted",
    "hand": _hand,
    "decision": lambda d: (f"Position {d['position']} plays (by the {d['by']})" if d["play"]
                           else f"Position {d['position']} folds (by the {d['by']})"),
    "settlement": lambda d: (f"Dealer's hand revealed: {d.get('dealer', '')}, {d.get('dealer_hand', '')}"
                             + ("" if d.get("dealer_qualifies", True) else ", does not qualify")),
    "paid": lambda d: (f"Position {d['position']} settled: net {money(d['net'])} (collected with the folds), "
                       f"by {d.get('by')}" if d.get("folded") else
                       f"Position {d['position']} settled: net {money(d['net'])}, by {d.get('by')}"),
    "alert": lambda d: f"Alert: {d.get('message', d.get('kind', ''))}",
    "void": lambda d: f"Round void: {d.get('reason')} (by {d.get('by')})",
    "complete": lambda d: "Round complete",
    "jackpot_verified": lambda d: f"Jackpot hit verified by {d.get('by')}: {d.get('reason', '')}",
}


def words_of(kind: str, data: dict[str, Any]) -> str:
    try:
        return WORDS[kind](data)
    except KeyError:
        return kind.replace("_", " ").capitalize() + (f": {json.dumps(data, sort_keys=True)}" if data else "")


def _standing(rnd: Round) -> dict[str, Any]:
    """The round as it stood: the felt (the wagers the table holds, and supervisor readings), the
    cards out of the shoe by where they went, decisions and payments."""
    felt = {str(p): {spot: cents for spot, cents in w.items() if cents} for p, w in rnd.wagers.items()}
    for (position, spot), amount in rnd.overrides.items():
        felt.setdefault(str(position), {})[spot] = amount
    return {"state": rnd.state, "felt": felt,
            "cards": {("dealer" if p == DEALER else str(p)): cards_text(c for c in h if c < 52)
                      for p, h in rnd.hands.items()},
            "dead_hands": [cards_text(c for c in h if c < 52) for h in rnd.dead_hands],
            "decisions": {str(p): ("play" if v else "fold") for p, v in rnd.decisions.items()},
            "paid": {str(p): net for p, net in rnd.paid.items()}}


def replay(journal: Journal, round_id: int) -> dict[str, Any]:
    """The round's timeline and its independent check; LookupError when there is no such round."""
    row = journal.db.execute("SELECT opened_at, closed_at, status FROM rounds WHERE id = ?", (round_id,)).fetchone()
    if row is None:
        raise LookupError(f"{journal.path}: no round {round_id}")
    opened, closed, status = row
    rnd = Round(round_id)
    steps: list[dict[str, Any]] = []
    rows = journal.db.execute(FACTS_OF_ROUND, {"round": round_id, "opened": opened, "closed": closed}).fetchall()
    for chain, at, kind, text, of_round in rows:
        data = json.loads(text)
        if kind == "wagers" and data.get("felt"):
            steps += _betting(rnd, data["felt"], chain)
            if data.get("felt_cut"):
                steps[-1]["words"] += f" (and {data['felt_cut']} later changes not kept: the story keeps 400)"
        if of_round:
            rnd.apply(kind, data, at)
        steps.append({"fact": chain, "at": at, "kind": kind, "of": "round" if of_round else "table",
                      "words": words_of(kind, data), "data": data, **_standing(rnd)})
    return {"round": round_id, "status": status, "opened_at": opened, "closed_at": closed,
            "dealt_by": rnd.dealer, "steps": steps, "check": check(journal, round_id, rnd)}


def _betting(rnd: Round, story: list[list[Any]], chain: int) -> list[dict[str, Any]]:
    """The betting as it happened, from the wagers record's story: a step for each change of a bet
    spot, each with the felt as it then lay (not yet accepted: "No more bets" is the next step)."""
    opened = datetime.fromisoformat(rnd.times.get("opened", "1970-01-01T00:00:00+00:00"))
    lying: dict[str, dict[str, int]] = {}
    steps = []
    for ms, position, spot, cents in story:
        spots = lying.setdefault(str(position), {})
        if cents is None:
            spots[spot] = spots.get(spot, 0)    # chips seen, the amount not read: the spot is taken
        elif cents:
            spots[spot] = cents
        else:
            spots.pop(spot, None)
        at = (opened + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")
        words = (f"Position {position} {_spot(spot)}: {money(cents)} on the spot" if cents else
                 f"Position {position} {_spot(spot)}: chips seen, the amount not read" if cents is None else
                 f"Position {position} {_spot(spot)}: chips taken away")
        steps.append({"fact": chain, "at": at, "kind": "felt", "of": "betting", "words": words,
                      "data": {"position": position, "spot": spot, "cents": cents},
                      **_standing(rnd), "felt": {p: dict(s) for p, s in lying.items() if s}})
    return steps


@cache
def _preset(name: str) -> Preset:
    return load_preset(name)


def check(journal: Journal, round_id: int, rnd: Round) -> dict[str, Any]:
    """The round settled again by the rules engine from its recalled cards and wagers (what ``recall
    --json | settle`` does), against the settlement and payments the table journaled. It catches a
    journaled settlement or payment that does not follow from the journaled cards and wagers; it is
    the same rules engine, so a fault in the rules themselves agrees with itself (the rules' own
    tests, against brute force and the par sheets, are that check)."""
    if rnd.settlement is None:
        return {"settled_again": None, "why": "the round was never settled" +
                (f" (void: {rnd.void_reason})" if rnd.void_reason else "")}
    try:
        _preset(rnd.preset)
    except PayTableError:                  # a table's own pay table file (table.paytable): not shipped
        return {"settled_again": None, "why": f"the pay table in force ({rnd.preset}) is not one this program "
                "ships: settle it again with the table's own file (table-controller settle)"}
    again = settle_json(recall_round(journal, round_id), _preset, None)
    if "error" in again:
        return {"settled_again": False, "differences": [f"cannot settle it again: {again['error']}"]}
    journaled = {s["seat"]: s["net"] for s in rnd.settlement.get("seats", [])}
    independent = {s["seat"]: s["net"] for s in again.get("seats", [])}
    differences = [f"position {p}: journaled {money(journaled.get(p, 0))}, settled again "
                   f"{money(independent.get(p, 0))}" for p in sorted(set(journaled) | set(independent))
                   if journaled.get(p) != independent.get(p)]
    paid = [f"position {p}: paid {money(net)}, settled {money(journaled.get(p, 0))}"
            for p, net in sorted(rnd.paid.items()) if net != journaled.get(p)]
    return {"settled_again": not differences and not paid, "differences": differences + paid,
            "net": {str(p): n for p, n in sorted(independent.items())}}

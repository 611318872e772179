"""Game recall and meters, read from the journal (never from memory).

Owns two read-only views of the journal:

- ``recall``: each round as the JSON ``table-controller settle`` reads (id,
  preset, dealer, jackpots, seats with cards, play and wagers), plus a
  ``table`` object with what the table recorded and did: status, who dealt it, times, the
  wagers accepted, hands, decisions, the results it paid per position, the
  positions confirmed paid, void reason and alerts. Piping a recalled round
  into ``settle`` settles it again independently; ``table.results`` is what
  to compare with. ``as_the_table_shows`` hides from a round still in play
  what the table does not show (the page's recall).
- ``meters``: per wager type the number of wagers, the amount wagered, paid
  to players and taken by the house, and the hold; rounds complete and void,
  jackpot hits and device events (door, jam, offline). By default they
  count from the last meter reset: a reset writes a baseline (a
  ``meters_reset`` table event naming who, why and the last round behind
  it); nothing is deleted, and ``lifetime=True`` counts everything.

Writes one thing: ``record_meter_reset``, the baseline.
"""

from __future__ import annotations

import json

from controller.round.facts import DEALER, Round
from controller.rules.cap import paid_after_cap
from controller.rules.cards import cards_text
from controller.rules.hand3 import score3
from controller.rules.spots import PAY_ORDER
from controller.rules.words import hand_words, six_card_words
from controller.store.journal import Journal


def rebuild(journal: Journal, round_id: int) -> tuple[Round, dict]:
    records = journal.records(round_id)
    rnd = Round.from_records(round_id, records)
    row = journal.db.execute("SELECT status, opened_at, closed_at FROM rounds WHERE id = ?",
                             (round_id,)).fetchone()
    return rnd, {"status": row[0], "opened_at": row[1], "closed_at": row[2], "records": len(records)}


def recall_round(journal: Journal, round_id: int) -> dict:
    rnd, meta = rebuild(journal, round_id)
    doc: dict = {"id": round_id, "preset": rnd.preset}
    if DEALER in rnd.hands:
        doc["dealer"] = cards_text(c for c in rnd.hands[DEALER] if c < 52)
    if rnd.jackpots:
        doc["jackpots"] = rnd.jackpots
    finals = {level: hit["claim"] for level, hit in rnd.floor_hits.items() if (hit["claim"] or {}).get("final")}
    if finals:      # a linked hit is paid the floor's split: settle needs it to settle the round again
        doc["linked"] = {level: {"referred": True} if c.get("referred") else
                         {"value": c["value"], "winners": c["winners"], "order": c["claim_order"]}
                         for level, c in finals.items()}
    seats = []
    for position in rnd.active:
        seat = {"seat": position, "wagers": rnd.wagers[position]}
        if position in rnd.hands:
            seat["cards"] = cards_text(c for c in rnd.hands[position] if c < 52)
        if rnd.wagers[position].get("ante") and position in rnd.decisions:
            seat["play"] = rnd.decisions[position]
        seats.append(seat)
    doc["seats"] = seats
    settlement = rnd.settlement or {}
    doc["table"] = {
        **meta,
        "state": rnd.state,
        "dealt_by": rnd.dealer,         # the dealer signed in when it opened (None: not recorded)
        "deck": rnd.deck,
        "void_reason": rnd.void_reason,
        "announcement": settlement.get("announcement"),
        "results": [{"seat": s["seat"], "results": s["results"], "cap_reduction": s["cap_reduction"],
                     "net": s["net"]} for s in settlement.get("seats", [])],
        "paid": {str(p): net for p, net in rnd.paid.items()},
        "decided_by": {str(p): by for p, by in rnd.decided_by.items()},
        "dead_hands": [cards_text(c for c in h if c < 52) for h in rnd.dead_hands],
        "hands": hand_names(rnd),
        "six_card_hands": {str(s["seat"]): six for s in settlement.get("seats", [])
                           if (six := six_card_words(s.get("six_card"), s.get("super6_hand")))},
        "alerts": rnd.alerts,
        "times": rnd.times,
    }
    return doc


def hand_names(rnd: Round) -> dict[str, str]:
    """Each hand's name as the dealer announces it ("dealer" and each position), where every card
    was read and no card came twice (a shoe fault the round was voided for: no hand to name)."""
    return {("dealer" if p == DEALER else str(p)): hand_words(score3(h)) for p, h in rnd.hands.items()
            if len(set(h)) == 3 == len(h) and all(0 <= c < 52 for c in h)}


def recall(journal: Journal, last: int = 10, round_id: int | None = None, before: int | None = None) -> list[dict]:
    """Round ``round_id``, or the ``last`` rounds (those before round ``before``), oldest first."""
    if round_id is not None:
        ids = [round_id]
    elif before is not None:
        ids = [r for (r,) in reversed(journal.db.execute(
            "SELECT id FROM rounds WHERE id < ? ORDER BY id DESC LIMIT ?", (before, last)).fetchall())]
    else:
        ids = journal.round_ids(last)
    known = {r for (r,) in journal.db.execute(
        f"SELECT id FROM rounds WHERE id IN ({','.join('?' * len(ids))})", ids)} if ids else set()
    missing = [i for i in ids if i not in known]
    if missing:
        raise LookupError(f"{journal.path}: no round {missing[0]}")
    return [recall_round(journal, i) for i in ids]


def record_meter_reset(journal: Journal, *, by: str, reason: str) -> dict:
    """Journal a new meter baseline after the last round (callers make sure none is open)."""
    last = journal.last_round()
    if last is not None and last[1] == "open":
        raise ValueError(f"round {last[0]} is still open; meters are reset between rounds")
    baseline = {"after_round": last[0] if last else 0, "by": by, "reason": reason}
    journal.table_event("meters_reset", baseline)
    return baseline


# Each completed round's settlement, once: the last settlement record of each round whose status is
# complete. Open rounds (settled but not yet paid, or left open by a crash) are not counted yet, and
# a round can never count twice, whatever records a crash left behind.
SETTLED_ROUNDS = ("SELECT r.data FROM records r JOIN rounds ON rounds.id = r.round_id "
                  "WHERE rounds.status = 'complete' AND r.seq = (SELECT MAX(seq) FROM records "
                  "WHERE round_id = r.round_id AND kind = 'settlement') ")


def last_meter_reset(journal: Journal) -> dict | None:
    row = journal.db.execute("SELECT seq, at, data FROM table_events WHERE kind = 'meters_reset' "
                             "ORDER BY seq DESC LIMIT 1").fetchone()
    return dict(json.loads(row[2]), seq=row[0], at=row[1]) if row else None


def meters(journal: Journal, *, lifetime: bool = False) -> dict:
    reset = None if lifetime else last_meter_reset(journal)
    after_round, after_event = (reset["after_round"], reset["seq"]) if reset else (0, 0)
    per = {w: {"wagers": 0, "wagered": 0, "paid": 0, "taken": 0} for w in PAY_ORDER}
    caps = hits = 0
    for (data,) in journal.db.execute(SETTLED_ROUNDS + "AND r.round_id > ?", (after_round,)):
        settlement = json.loads(data)
        hits += len(settlement.get("jackpot_hits", []))
        for seat in settlement["seats"]:
            caps += seat["cap_reduction"]
            stakes = dict(seat["wagers"], play=seat["wagers"]["ante"] if seat["play"] else 0)
            for spot, result in paid_after_cap(seat["results"], seat["cap_reduction"]).items():   # as paid
                m = per[spot]
                if stakes.get(spot):
                    m["wagers"] += 1
                    m["wagered"] += stakes[spot]
                m["paid" if result > 0 else "taken"] += abs(result)
    for m in per.values():
        m["hold"] = m["taken"] - m["paid"]
    status = dict(journal.db.execute("SELECT status, COUNT(*) FROM rounds WHERE id > ? GROUP BY status",
                                     (after_round,)).fetchall())
    events: dict[str, int] = {}
    for (data,) in journal.db.execute(
            "SELECT data FROM records WHERE kind = 'alert' AND round_id > ? UNION ALL "
            "SELECT data FROM table_events WHERE kind = 'alert' AND seq > ?", (after_round, after_event)):
        kind = json.loads(data)["kind"]
        events[kind] = events.get(kind, 0) + 1
    for kind, count in journal.db.execute("SELECT kind, COUNT(*) FROM table_events "
                                          "WHERE kind IN ('jam', 'door') AND seq > ? GROUP BY kind",
                                          (after_event,)):
        events[kind] = count
    since = {k: reset[k] for k in ("at", "by", "reason", "after_round")} if reset else None
    return {"rounds": {s: status.get(s, 0) for s in ("complete", "void", "open")},
            "wagers": per, "cap_reductions": caps, "jackpot_hits": hits, "events": events,
            "since_reset": since}


def rounds_summary(journal: Journal, first_round: int) -> dict:
    """Rounds from ``first_round`` on: played, voided, still open, wagered and paid (cents)."""
    db = journal.db
    # counted by SQLite: a list of every round's row was 16 MB at the end of a 100,000-round run
    counts = dict(db.execute("SELECT status, COUNT(*) FROM rounds WHERE id >= ? GROUP BY status", (first_round,)))
    wagered = paid = 0
    for (data,) in db.execute(SETTLED_ROUNDS + "AND r.round_id >= ?", (first_round,)):
        for seat in json.loads(data)["seats"]:
            wagered += sum(seat["wagers"].values()) + (seat["wagers"]["ante"] if seat["play"] else 0)
            paid += sum(v for v in seat["results"].values() if v > 0) - seat["cap_reduction"]
    return {"rounds_played": counts.get("complete", 0), "rounds_voided": counts.get("void", 0),
            "rounds_open": counts.get("open", 0),
            "wagered_cents": wagered, "paid_cents": paid}


def as_the_table_shows(doc: dict) -> dict:
    """A recalled round as the page may show it. A round still in play shows no card the table
    does not show (controller/round/view.py): none before the dealer's hand is revealed, and a
    folded hand stays face down until the round is over. A finished round shows everything."""
    table = doc["table"]
    if table["status"] != "open":
        return doc
    revealed = table["announcement"] is not None
    shown = {k: v for k, v in doc.items() if k != "dealer" or revealed}
    shown["seats"] = [{k: v for k, v in seat.items()
                       if k != "cards" or (revealed and seat.get("play") is not False)}
                      for seat in doc["seats"]]
    seen = {str(seat["seat"]) for seat in shown["seats"] if "cards" in seat} | ({"dealer"} if revealed else set())
    shown["table"] = dict(table, dead_hands=[], hands={p: h for p, h in table["hands"].items() if p in seen},
                          six_card_hands={p: h for p, h in table["six_card_hands"].items() if p in seen})
    shown["hidden"] = ("cards are shown once the dealer's hand is revealed; folded hands once the round is over"
                       if not revealed else "folded hands are shown once the round is over")
    return shown

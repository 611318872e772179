"""The Super 6 jackpot: posted values, their changes, the hits, and whether Super 6 is open.

Owns the jackpot's rules outside the settlement arithmetic (which stays in
controller/rules/settlement.py):

- The posted MEGA / MAJOR / MINOR values live in the journal as
  ``jackpot_posted`` table events ({values, old, changed, by, reason}); the
  configuration's opening values are posted once, by "configuration", when the
  journal has none.
- A change needs a supervisor (the engine checks the role), is refused while a
  round is in play, and is refused within 24 hours of the last change unless a
  jackpot was won since then.
- A hit is verified by a supervisor before anything in the round is paid; the
  verification is the round's ``jackpot_verified`` record, which carries the
  hits, so the hit history is read from the journal (the last 25 are kept in
  memory for the page).
- Super 6 is open only while the sign is showing exactly the posted values and
  no won jackpot is waiting for its new value: players never wager on a
  jackpot they cannot see or that is no longer worth what it shows.

Only the engine's thread calls the methods that change anything.
"""

from __future__ import annotations

import json
import time
from collections import deque
from datetime import datetime

from controller.rules.paytable import JACKPOTS, Preset
from controller.rules.words import money
from controller.store.journal import Journal

CHANGE_INTERVAL = 24 * 3600      # seconds between two postings without a win in between
HISTORY = 25


class JackpotBoard:
    def __init__(self, journal: Journal, preset: Preset, opening: dict[str, int], *, clock=time.time,
                 linked: bool = False):
        self.journal = journal
        self.clock = clock
        self.progressive = preset.super6 is not None and any(
            isinstance(a, str) for bet in preset.super6.values() for a in bet.awards.values())
        self.values: dict[str, int] = {}
        self.changed_at: dict[str, str] = {}
        self.last_posting: tuple[float, str] | None = None     # (epoch, by) of the last change
        self.won_since_posting: set[str] = set()
        self.sign_showing: dict[str, int] | None = None
        self.sign_problem = "the jackpot sign has not confirmed the values yet"
        self.hits: deque[dict] = deque(maxlen=HISTORY)
        # a linked jackpot (the floor's, docs/floor.md): no Super 6 wager while the floor is out of reach
        self.linked = linked
        self.floor_problem: str | None = "the floor has not been reached yet" if linked else None
        if self.progressive:
            self._load(opening)

    # --- reading the journal ------------------------------------------------------------

    def _load(self, opening: dict[str, int]) -> None:
        rows = self.journal.db.execute(
            "SELECT at, data FROM table_events WHERE kind = 'jackpot_posted' ORDER BY seq").fetchall()
        if not rows:
            self.post(dict(opening), by="configuration", reason="opening values from the configuration")
            return
        for at, data in rows:
            self._apply_posting(at, json.loads(data))
        self.hits.extend(hit_history(self.journal, HISTORY))          # newest first
        last_posting_at = rows[-1][0]
        self.won_since_posting = {h["jackpot"] for h in self.hits if h["verified_at"] > last_posting_at}

    def _apply_posting(self, at: str, doc: dict) -> None:
        for name in doc["changed"]:
            self.changed_at[name] = at
        self.values = {name: doc["values"][name] for name in JACKPOTS}
        if doc["by"] != "configuration":
            self.last_posting = (datetime.fromisoformat(at).timestamp(), doc["by"])

    # --- changes ---------------------------------------------------------------------------

    def change_problem(self, new: dict[str, object], round_in_play: bool) -> str | None:
        if not self.progressive:
            return "this table's rules have no posted jackpot"
        if round_in_play:
            return "jackpot values are changed between rounds, not while a round is in play"
        cents: dict[str, int] = {}
        for name in JACKPOTS:
            value = new.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                return f"{name.upper()} must be a whole number of cents above 0, not {value!r}"
            cents[name] = value
        if not cents["mega"] >= cents["major"] >= cents["minor"]:
            return "values must be MEGA >= MAJOR >= MINOR"
        if new == self.values:
            return "these are the values already posted"
        if self.last_posting and not self.won_since_posting:
            since = self.clock() - self.last_posting[0]
            if since < CHANGE_INTERVAL:
                wait = CHANGE_INTERVAL - since
                return (f"the jackpot was last changed {_hours(since)} ago by {self.last_posting[1]}; "
                        f"without a win in between it may change again in {_hours(wait)}")
        return None

    def post(self, new: dict[str, int], *, by: str, reason: str) -> dict:
        changed = [n for n in JACKPOTS if self.values.get(n) != new[n]]
        doc = {"values": {n: new[n] for n in JACKPOTS}, "old": dict(self.values), "changed": changed,
               "by": by, "reason": reason}
        self._apply_posting(self.journal.table_event("jackpot_posted", doc), doc)
        if by != "configuration":
            self.last_posting = (self.clock(), by)      # the injected clock runs the 24-hour rule
        self.won_since_posting = set()
        self.sign_problem = "the sign has not yet confirmed the new values"
        return doc

    def verified(self, round_id: int, hits: list[dict], by: str, at: str) -> None:
        for hit in hits:
            self.hits.appendleft(dict(hit, round=round_id, verified_at=at, verified_by=by))
            self.won_since_posting.add(hit["jackpot"])

    # --- the sign and whether Super 6 is open ------------------------------------------------

    def sign_shows(self, values: dict[str, int]) -> None:
        self.sign_showing = dict(values)

    def sign_failed(self, reason: str) -> None:
        self.sign_showing = None
        self.sign_problem = reason

    def floor_link(self, up: bool, reason: str) -> None:
        if self.linked:
            self.floor_problem = None if up else reason

    def super6_closed(self) -> str | None:
        """Why Super 6 takes no wagers now (None while it is open)."""
        if not self.progressive:
            return None
        if self.floor_problem:
            return f"the floor link is down ({self.floor_problem}): a linked jackpot takes no wagers while cut off"
        if self.won_since_posting:
            names = " and ".join(n.upper() for n in JACKPOTS if n in self.won_since_posting)
            return f"{names} was won; Super 6 reopens when the supervisor posts the new value"
        if self.sign_showing != self.values:
            return f"the jackpot sign is not showing the posted values ({self.sign_problem})"
        return None

    def view(self) -> dict:
        """For the snapshot (whose ``jackpots`` key already carries the values)."""
        return {"changed_at": dict(self.changed_at), "super6_closed": self.super6_closed(),
                "hits": list(self.hits)}


def hit_history(journal: Journal, last: int = HISTORY) -> list[dict]:
    """The last hits, newest first, from the journal's verification records."""
    rows = journal.db.execute(
        "SELECT round_id, at, data FROM records WHERE kind = 'jackpot_verified' "
        "ORDER BY seq DESC LIMIT ?", (last,)).fetchall()
    hits = []
    for round_id, at, data in rows:
        doc = json.loads(data)
        for hit in doc["hits"]:
            hits.append(dict(hit, round=round_id, verified_at=at, verified_by=doc["by"]))
    return hits[:last]


def report(journal: Journal) -> dict:
    """``table-controller jackpot``: posted values, when and by whom each last changed, the last
    hits. Read-only."""
    posted: dict[str, dict] = {}
    for at, data in journal.db.execute(
            "SELECT at, data FROM table_events WHERE kind = 'jackpot_posted' ORDER BY seq"):
        doc = json.loads(data)
        for name in JACKPOTS:
            entry = posted.setdefault(name, {})
            entry["value"] = doc["values"][name]
            if name in doc["changed"]:
                entry.update(changed_at=at, changed_by=doc["by"], reason=doc["reason"])
    return {"posted": posted, "hits": hit_history(journal, HISTORY)}


def win_message(hit: dict) -> str:
    """What the sign shows for a verified hit."""
    return f"{hit['jackpot'].upper()} JACKPOT POSITION {hit['seat']} {money(hit['amount'])}"


def _hours(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours} h {rest // 60:02d} min"

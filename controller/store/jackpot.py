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
- A linked jackpot (``[floor] jackpot_group``, docs/floor-jackpot.md) takes its values from the floor:
  each level's generation is carried by the ``jackpot_posted`` that took it; a level won
  anywhere in the group is locked (``jackpot_locked`` table events: JACKPOT PENDING) until the
  table takes the floor's next generation, which it does between rounds only; the table tells
  the floor it took a lock with a ``jackpot_lock_taken`` table event (the forwarder acks it).
  Local postings are refused: the floor posts.

Only the engine's thread calls the methods that change anything.
"""

from __future__ import annotations

import json
import time
from collections import deque
from datetime import datetime

from controller.rules.paytable import ABSOLUTE_CENTS, JACKPOTS, Preset
from controller.rules.words import SIGN_NEW_UNCONFIRMED, SIGN_UNCONFIRMED, money
from controller.store.journal import Journal

CHANGE_INTERVAL = 24 * 3600      # seconds between two postings without a win in between
HISTORY = 25


class JackpotBoard:
    def __init__(self, journal: Journal, preset: Preset, opening: dict[str, int], *, clock=time.time,
                 group: str | None = None):
        self.journal = journal
        self.clock = clock
        self.progressive = preset.super6 is not None and any(
            isinstance(a, str) for bet in preset.super6.values() for a in bet.awards.values())
        self.values: dict[str, int] = {}
        self.changed_at: dict[str, str] = {}
        self.last_posting: tuple[float, str] | None = None     # (epoch, by) of the last change
        self.won_since_posting: set[str] = set()
        self.sign_showing: dict[str, int] | None = None
        self.sign_problem = SIGN_UNCONFIRMED
        self.hits: deque[dict] = deque(maxlen=HISTORY)
        # a linked jackpot (the floor's, docs/floor-jackpot.md): no Super 6 wager while the floor is out of reach
        self.group = group
        self.linked = group is not None
        self.floor_problem: str | None = "the floor has not been reached yet" if self.linked else None
        self.generations: dict[str, int] = {}       # linked: each level's generation taken from the floor
        self.locks: dict[str, int] = {}             # linked: level -> generation won on the floor (PENDING)
        self.locks_taken: set[tuple[str, int]] = set()      # locks the floor was told this table took
        self.offer: dict[str, dict] | None = None   # linked: the floor's newest levels, not yet taken
        self.floor_values_problem: str | None = None    # linked: why the floor's values cannot be taken
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
        if self.linked:                 # the floor's locks, not the table's own wins, close a linked level
            for kind, data in self.journal.db.execute(
                    "SELECT kind, data FROM table_events WHERE kind IN ('jackpot_locked', 'jackpot_lock_taken') "
                    "ORDER BY seq"):
                doc = json.loads(data)
                if kind == "jackpot_locked":
                    self.locks[doc["level"]] = doc["generation"]
                else:
                    self.locks_taken.add((doc["level"], doc["generation"]))
            self._drop_lifted_locks()
            return
        self.won_since_posting = {h["jackpot"] for h in self.hits if h["verified_at"] > last_posting_at}

    def _apply_posting(self, at: str, doc: dict) -> None:
        for name in renewed(doc):
            self.changed_at[name] = at
        self.values = {name: doc["values"][name] for name in JACKPOTS}
        self.generations = dict(doc.get("generations", {}))
        if doc["by"] != "configuration":
            self.last_posting = (datetime.fromisoformat(at).timestamp(), doc["by"])

    # --- changes ---------------------------------------------------------------------------

    def change_problem(self, new: dict[str, object], round_in_play: bool) -> str | None:
        if not self.progressive:
            return "this table's rules have no posted jackpot"
        if self.linked:
            return (f"this table's jackpot is linked (group {self.group}): its values are posted on the floor "
                    "by a supervisor (the pit's page), and the table takes them between rounds")
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
        if new == self.values and not self.won_since_posting:
            # after a win the same values are the reseed (sheet 004: "the values may be updated
            # following the payout of the win"; prize amounts are the operator's, not grown by wagers)
            return "these are the values already posted"
        if self.last_posting and not self.won_since_posting:
            since = self.clock() - self.last_posting[0]
            if since < CHANGE_INTERVAL:
                wait = CHANGE_INTERVAL - since
                return (f"the jackpot was last changed {_hours(since)} ago by {self.last_posting[1]}; "
                        f"without a win in between it may change again in {_hours(wait)}")
        return None

    def post(self, new: dict[str, int], *, by: str, reason: str, generations: dict[str, int] | None = None) -> dict:
        changed = [n for n in JACKPOTS if self.values.get(n) != new[n]]
        # a won level posted again at its old value is new all the same: the reseed after the payout
        # (a linked level's reseed is its next generation on the floor at the same value)
        reseeded = [n for n in JACKPOTS if n not in changed and (
            n in self.won_since_posting or
            (generations is not None and n in self.generations and generations.get(n) != self.generations[n]))]
        doc: dict = {"values": {n: new[n] for n in JACKPOTS}, "old": dict(self.values), "changed": changed,
                     "by": by, "reason": reason}
        if reseeded:
            doc["reseeded"] = reseeded
        if generations is not None:
            doc["generations"] = dict(generations)
        self._apply_posting(self.journal.table_event("jackpot_posted", doc), doc)
        if by != "configuration":
            self.last_posting = (self.clock(), by)      # the injected clock runs the 24-hour rule
        self.won_since_posting = set()
        self.sign_problem = SIGN_NEW_UNCONFIRMED
        self._drop_lifted_locks()
        return doc

    def verified(self, round_id: int, hits: list[dict], by: str, at: str) -> None:
        for hit in hits:
            self.hits.appendleft(dict(hit, round=round_id, verified_at=at, verified_by=by))
            if not self.linked:             # a linked level is closed by the floor's lock instead
                self.won_since_posting.add(hit["jackpot"])

    def reread_hits(self) -> None:
        """The hit history again from the journal (a linked hit's amount is known once the floor's split is final)."""
        self.hits = deque(hit_history(self.journal, HISTORY), maxlen=HISTORY)

    # --- the floor's levels (a linked jackpot) ---------------------------------------------------

    def floor_levels(self, levels: dict[str, dict]) -> list[tuple[str, int]]:
        """The group's levels as the floor holds them now ({level: {generation, value, state, posted_by,
        reason}}); returns the levels newly won on the floor, to lock. A generation or value the table
        does not play under yet waits in ``offer`` until it is taken between rounds."""
        if not self.linked or set(levels) != set(JACKPOTS):
            return []
        new_locks = [(lv, d["generation"]) for lv, d in levels.items()
                     if d["state"] == "pending" and self.locks.get(lv, 0) < d["generation"]
                     and d["generation"] >= self.generations.get(lv, 0)]
        differs = any(d["generation"] != self.generations.get(lv) or d["value"] != self.values.get(lv)
                      for lv, d in levels.items())
        # the table's own rules for values, as for its own postings: a floor edited by hand (the floor's
        # functions refuse such values) must not have this table pay them; Super 6 stays closed meanwhile
        self.floor_values_problem = floor_values_problem(levels)
        self.offer = dict(levels) if differs and self.floor_values_problem is None else None
        return new_locks

    def lock(self, level: str, generation: int) -> None:
        self.locks[level] = max(generation, self.locks.get(level, 0))

    def take_offer(self) -> dict | None:
        """Post the floor's newest levels at the table (the caller makes sure no round is in play)."""
        offer, self.offer = self.offer, None
        if offer is None:
            return None
        newest = max(offer.values(), key=lambda d: d.get("posted_at", ""))
        return self.post({lv: d["value"] for lv, d in offer.items()},
                         by=f"floor ({newest.get('posted_by') or 'posted'})",
                         reason=newest.get("reason") or "the floor's values",
                         generations={lv: d["generation"] for lv, d in offer.items()})

    def _drop_lifted_locks(self) -> None:
        """A lock ends when the table takes a later generation of its level."""
        self.locks = {lv: g for lv, g in self.locks.items() if g >= self.generations.get(lv, 0)}

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
        if self.linked:
            if self.floor_values_problem:
                return (f"the floor's jackpot values cannot be taken ({self.floor_values_problem}): call the floor's "
                        "administrator")
            if self.locks:
                names = " and ".join(n.upper() for n in JACKPOTS if n in self.locks)
                return (f"JACKPOT PENDING: {names} won on the floor; Super 6 reopens when the new value is "
                        "posted and shown")
            if self.offer is not None or not self.generations:
                return "the floor's jackpot values are taken between rounds; Super 6 reopens once they are shown"
        if self.won_since_posting:
            names = " and ".join(n.upper() for n in JACKPOTS if n in self.won_since_posting)
            return f"{names} was won; Super 6 reopens when the supervisor posts the new value"
        if self.sign_showing != self.values:
            return f"the jackpot sign is not showing the posted values ({self.sign_problem})"
        return None

    def view(self) -> dict:
        """For the snapshot (whose ``jackpots`` key already carries the values)."""
        view: dict = {"changed_at": dict(self.changed_at), "super6_closed": self.super6_closed(),
                      "hits": list(self.hits), "won": [n for n in JACKPOTS if n in self.won_since_posting]}
        if self.linked:
            view.update(group=self.group, generations=dict(self.generations), locked=sorted(self.locks))
        return view


def hit_history(journal: Journal, last: int = HISTORY) -> list[dict]:
    """The last hits, newest first, from the journal's verification records."""
    rows = journal.db.execute(
        "SELECT round_id, at, data FROM records WHERE kind = 'jackpot_verified' "
        "ORDER BY seq DESC LIMIT ?", (last,)).fetchall()
    hits = []
    for round_id, at, data in rows:
        doc = json.loads(data)
        # a linked hit is paid the floor's amount: the round's last settlement states it once final
        settled = journal.db.execute("SELECT data FROM records WHERE round_id = ? AND kind = 'settlement' "
                                     "ORDER BY seq DESC LIMIT 1", (round_id,)).fetchone()
        final = {h["seat"]: h for h in json.loads(settled[0]).get("jackpot_hits", [])} if settled else {}
        for hit in doc["hits"]:
            stated = final.get(hit["seat"], {})
            amount = stated["amount"] if hit.get("linked") and stated.get("final") else hit["amount"]
            hits.append(dict(hit, amount=amount, round=round_id, verified_at=at, verified_by=doc["by"]))
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
            if name in renewed(doc):
                entry.update(changed_at=at, changed_by=doc["by"], reason=doc["reason"])
    return {"posted": posted, "hits": hit_history(journal, HISTORY)}


def renewed(posting: dict) -> list[str]:
    """The levels a ``jackpot_posted`` made new: those whose value changed and those reseeded at
    their old value after a win (postings before the reseed was recorded have no ``reseeded``)."""
    return posting["changed"] + posting.get("reseeded", [])


def posting_changes(posting: dict) -> list[str]:
    """A posting's new values in words, as the alert says them: "MINOR $500.00 -> $750.00",
    "MEGA reseeded at $100,000.00"."""
    values, old = posting["values"], posting["old"]
    return ([f"{n.upper()} {money(old.get(n, 0))} -> {money(values[n])}" for n in posting["changed"]] +
            [f"{n.upper()} reseeded at {money(values[n])}" for n in posting.get("reseeded", [])])


def win_message(hit: dict) -> str:
    """What the sign shows for a verified hit."""
    amount = "PENDING" if hit["amount"] is None else money(hit["amount"])     # a linked split not final yet
    return f"{hit['jackpot'].upper()} JACKPOT POSITION {hit['seat']} {amount}"


def _hours(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours} h {rest // 60:02d} min"


def floor_values_problem(levels: dict[str, dict]) -> str | None:
    """Why the floor's values for the levels cannot be this table's (None: they can): each a whole number
    of cents above 0 and at most the ceiling of any amount, MEGA >= MAJOR >= MINOR."""
    values: dict[str, int] = {}
    for lv in JACKPOTS:
        value = levels[lv].get("value")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= ABSOLUTE_CENTS:
            return f"{lv.upper()} is {value!r}, not a whole number of cents from 1 to {ABSOLUTE_CENTS}"
        values[lv] = value
    if not values["mega"] >= values["major"] >= values["minor"]:
        return f"MEGA {money(values['mega'])}, MAJOR {money(values['major'])}, MINOR {money(values['minor'])} " \
               "are not MEGA >= MAJOR >= MINOR"
    return None

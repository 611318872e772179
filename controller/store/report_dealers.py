"""Who dealt the report's rounds: each dealer's run of rounds, and the sign-ins and sign-outs of the period.

Owns the report's ``dealers`` and ``dealer_sign_ins`` (controller/store/report.py adds them). A round's
dealer is the one its ``opened`` record names (controller/round/shift.py: the dealer signed in when
betting opened; a dealer changes between rounds only). Consecutive rounds of one dealer are one run:
{dealer, first_round, last_round, rounds, complete, void, open, from, to} with local times (the first
round's opening, the last one's close). A round from before dealers signed in, or at a table whose
dealers have no PINs, has ``dealer`` null. Read from the journal only.
"""

from __future__ import annotations

import json
from typing import Any

from controller.rules.gaming import GamingClock
from controller.store.journal import Journal

SHIFT_EVENTS = ("dealer_signed_in", "dealer_signed_out")


def dealer_runs(journal: Journal, clock: GamingClock, rows: list[tuple]) -> list[dict[str, Any]]:
    """``rows``: the period's rounds as report.py reads them (id, status, opened_at, closed_at, ...)."""
    if not rows:
        return []
    ids = [r[0] for r in rows]
    marks = ",".join("?" * len(ids))
    named = {round_id: json.loads(data).get("dealer") for round_id, data in journal.db.execute(
        f"SELECT round_id, data FROM records WHERE kind = 'opened' AND round_id IN ({marks})", ids)}
    runs: list[dict[str, Any]] = []
    for round_id, status, opened_at, closed_at, *_ in rows:
        dealer = named.get(round_id)
        run = runs[-1] if runs and runs[-1]["dealer"] == dealer else None
        if run is None:
            run = {"dealer": dealer, "first_round": round_id, "rounds": 0, "complete": 0, "void": 0, "open": 0,
                   "from": _local(clock, opened_at)}
            runs.append(run)
        run["last_round"] = round_id
        run["rounds"] += 1
        run[status] = run.get(status, 0) + 1
        run["to"] = _local(clock, closed_at or opened_at)
    return runs


def sign_ins(journal: Journal, clock: GamingClock, lo: str, hi: str) -> list[dict[str, Any]]:
    """Every dealer's sign-in and sign-out in the period, in order: {at (local), dealer, action
    ("signed in" | "signed out"), replaces (the dealer relieved, or null)}."""
    out = []
    for at, kind, data in journal.db.execute(
            "SELECT at, kind, data FROM table_events WHERE kind IN (?, ?) AND at >= ? AND at < ? ORDER BY seq",
            (*SHIFT_EVENTS, lo, hi)):
        doc = json.loads(data)
        out.append({"at": _local(clock, at), "dealer": doc.get("name"),
                    "action": "signed in" if kind == SHIFT_EVENTS[0] else "signed out",
                    "replaces": doc.get("replaces")})
    return out


def _local(clock: GamingClock, at: str | None) -> str | None:
    return clock.local(at).isoformat(timespec="seconds") if at else None

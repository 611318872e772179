"""The journal's facts in chain order, for the floor's forwarder (controller/floor/forwarder.py).

Owns the one read the forwarder makes of the table's SQLite journal: every fact of the keyed
chain (round records and table events alike) after a given chain number, in order, each with
the digest of the fact before it; and, for a linked jackpot, the hits still to claim and the
locks taken, which the forwarder tells the floor. It reads through its own read-only connection
(``Journal.read_only``), so the engine's connection and its transactions are never shared or
waited on: WAL lets a reader see every committed fact while the engine writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from controller.store.journal import FACTS, Journal, JournalError

_AFTER = ("SELECT chain, 'records', round_id, at, kind, data, digest FROM records WHERE chain > ? "
          "UNION ALL SELECT chain, 'table_events', NULL, at, kind, data, digest FROM table_events WHERE chain > ? "
          "ORDER BY 1 LIMIT ?")


@dataclass(frozen=True)
class Fact:
    """One fact of the keyed chain as the journal holds it (``text``: its exact JSON)."""
    chain: int
    source: str                 # "records" | "table_events"
    round_id: int | None
    at: str
    kind: str
    text: str
    prev: str                   # the digest of fact chain - 1 (or the chain's start)
    digest: str


def facts_after(journal: Journal, after: int, limit: int) -> list[Fact]:
    """Up to ``limit`` facts numbered after ``after``, in order; raises JournalError naming the
    number when the chain has a hole (the journal is damaged: the floor would refuse it anyway)."""
    rows = journal.db.execute(_AFTER, (after, after, limit)).fetchall()
    if not rows:
        return []
    prev = journal.digest_before(after + 1)
    out = []
    for expected, (chain, source, round_id, at, kind, text, digest) in enumerate(rows, start=after + 1):
        if chain != expected:
            raise JournalError(f"{journal.path}: fact {expected} of the chain is missing")
        out.append(Fact(chain, source, round_id, at, kind, text, prev, digest))
        prev = digest
    return out


def chain_end(journal: Journal) -> int:
    """The number of the journal's last fact (0: none yet), read afresh from the file."""
    row = journal.db.execute(f"SELECT COALESCE(MAX(chain), 0) FROM ({FACTS})").fetchone()
    return int(row[0])


def hits_to_claim(journal: Journal) -> list[dict]:
    """A linked jackpot's hits journaled as ``jackpot_pending`` whose final answer from the floor
    is not in the journal, nor their referral (``jackpot_referred``: settled without the award), each
    with its ``round_id``, oldest first: the forwarder claims them."""
    final = {(round_id, json.loads(data)["jackpot"]) for round_id, kind, data in journal.db.execute(
        "SELECT round_id, kind, data FROM records WHERE kind IN ('jackpot_claimed', 'jackpot_referred')")
        if kind == "jackpot_referred" or json.loads(data).get("final")}
    rows = journal.db.execute("SELECT round_id, data FROM records WHERE kind = 'jackpot_pending' ORDER BY seq")
    hits = [dict(json.loads(data), round_id=round_id) for round_id, data in rows]
    return [h for h in hits if (h["round_id"], h["jackpot"]) not in final]


def locks_taken(journal: Journal) -> dict[str, int]:
    """Each level's last lock the table took (``jackpot_lock_taken``): level -> generation."""
    taken: dict[str, int] = {}
    for (data,) in journal.db.execute("SELECT data FROM table_events WHERE kind = 'jackpot_lock_taken' ORDER BY seq"):
        doc = json.loads(data)
        taken[doc["level"]] = max(doc["generation"], taken.get(doc["level"], 0))
    return taken


def final_claims(journal: Journal, limit: int) -> list[dict]:
    """The newest ``limit`` linked hits whose final answer from the floor the journal holds (and that
    were not settled without the award), oldest first: each the hit as ``jackpot_pending`` journaled
    it, with its ``round_id`` and ``answer`` (the final ``jackpot_claimed``, as paid). The forwarder
    sends them again after each reconnect and compares the floor's answer with the one paid."""
    rows = journal.db.execute("SELECT round_id, kind, data FROM records WHERE kind IN ('jackpot_pending', "
                              "'jackpot_claimed', 'jackpot_referred') ORDER BY seq").fetchall()
    hits: dict[tuple[int, str], dict] = {}
    paid: dict[tuple[int, str], dict] = {}
    for round_id, kind, data in rows:
        doc = json.loads(data)
        key = (round_id, doc["jackpot"])
        if kind == "jackpot_pending":
            hits[key] = dict(doc, round_id=round_id)
        elif kind == "jackpot_referred":
            paid.pop(key, None)
        elif doc.get("final") and key in hits:
            paid[key] = dict(hits[key], answer=doc)
    return list(paid.values())[-limit:] if limit > 0 else []

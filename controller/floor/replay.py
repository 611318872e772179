"""A round replayed from the floor: the pit's step-by-step view of any table's finished round.

Owns the reading of one table's round from ``floor.records`` into a journal of the same form held in
memory, so that controller/store/replay.py (the very code of ``table-controller replay`` and the
dealer page's replay) tells the story and settles the round again: the floor's records are the
table's facts, each checked against the table's floor key on arrival (controller/floor/schema.sql).
Only a round that has ended on the floor (its ``complete`` or ``void`` record arrived) is replayed.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import psycopg

from controller.store.journal import Journal
from controller.store.replay import replay

ROUND = ("SELECT seq, at, kind, body::text, chain_hash FROM floor.records WHERE table_id = %s AND round_id = %s "
         "ORDER BY seq")
BETWEEN = ("SELECT seq, at, kind, body::text, chain_hash FROM floor.records WHERE table_id = %s AND round_id IS NULL "
           "AND at >= %s AND at <= %s ORDER BY seq")


class NotEnded(LookupError):
    """The round is on the floor but has not ended there."""


def floor_round(dsn: str, table_id: str, round_id: int) -> dict[str, Any]:
    """The round's story as controller/store/replay.py tells it; LookupError when the floor holds no
    such round, NotEnded while it is still in play (its dealer's cards may not be shown yet)."""
    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
        facts = conn.execute(ROUND, (table_id, round_id)).fetchall()
        if not facts:
            raise LookupError(f"no round {round_id} of table {table_id} on this floor")
        ends = [f for f in facts if f[2] in ("complete", "void")]
        if not ends:
            raise NotEnded(f"round {round_id} of table {table_id} is still in play: its replay opens when it ends")
        opened, closed = facts[0][1], ends[-1][1]
        around = conn.execute(BETWEEN, (table_id, opened, closed)).fetchall()
    journal = Journal(":memory:", key=secrets.token_bytes(32))     # a scratch copy: never kept, never chained
    try:
        preset = next((json.loads(f[3]).get("preset", "") for f in facts if f[2] == "opened"), "")
        status = "void" if ends[-1][2] == "void" else "complete"
        journal.db.execute("INSERT INTO rounds (id, opened_at, closed_at, status, preset) VALUES (?, ?, ?, ?, ?)",
                           (round_id, opened, closed, status, preset))
        journal.db.executemany("INSERT INTO records (round_id, at, kind, data, digest, chain) "
                               "VALUES (?, ?, ?, ?, ?, ?)",
                               [(round_id, at, kind, body, digest, seq) for seq, at, kind, body, digest in facts])
        journal.db.executemany("INSERT INTO table_events (at, kind, data, digest, chain) VALUES (?, ?, ?, ?, ?)",
                               [(at, kind, body, digest, seq) for seq, at, kind, body, digest in around])
        story = replay(journal, round_id)
    finally:
        journal.close()
    return {"table": table_id, **story}

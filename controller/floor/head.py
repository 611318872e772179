"""Whether this table's journal is the one the floor knows: its chain against the floor's head of it.

Owns the check the forwarder makes at each connect. The floor holds each table's records up to a
last one (its head: a number and a chain digest). A journal that ends before that number, or whose
fact at that number has another digest, is not the journal the floor followed: journal and audit
trail rolled back together to an older copy (nothing inside the table can see that: both agree
with each other), or another table's journal put in its place. The table must not play on it: the
forwarder tells the engine, which refuses to play in these words (controller/engine.py), and
reports it to the floor (``floor.report_behind``), which judges the report against what it holds
and alerts the pit in its own words (controller/floor/schema.sql, controller/floor/pit.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from controller.store.journal import Journal
from controller.store.outbox import chain_end

# the floor's last record of the table (its role sees only its own rows)
FLOOR_HEAD = "SELECT seq, chain_hash FROM floor.records WHERE table_id = %s ORDER BY seq DESC LIMIT 1"
REPORT = "SELECT floor.report_behind(%s, %s)"


@dataclass(frozen=True)
class Behind:
    """This journal against the floor's head of it: where each ends, and the journal's digest at
    the floor's head (None when the journal ends before it)."""
    table_id: str
    floor_seq: int
    journal_end: int
    digest: str | None

    def words(self) -> str:
        """What the table says when it refuses to play (the engine adds what follows a halt)."""
        if self.digest is None:
            return (f"This table's journal is behind the floor: it ends at record {self.journal_end}, the floor "
                    f"holds table {self.table_id}'s records up to {self.floor_seq}. The journal and audit trail "
                    "were rolled back or restored from an older copy; the table will not play on them")
        return (f"This table's journal is not the floor's copy: its record {self.floor_seq} is not the one the "
                f"floor holds for table {self.table_id} (a journal rolled back and played on, or another "
                "table's journal). The table will not play on it")


def floor_head(conn: psycopg.Connection, table_id: str) -> tuple[int, str | None]:
    """The floor's last record of the table: (seq, chain digest), (0, None) when it holds none."""
    row = conn.execute(FLOOR_HEAD, (table_id,)).fetchone()
    return (int(row[0]), str(row[1])) if row else (0, None)


def compare(journal: Journal, table_id: str, floor_seq: int, floor_hash: str | None) -> Behind | None:
    """None when the journal reaches the floor's head with the same digest there (or the floor holds
    nothing of the table); else how it is behind or different."""
    if floor_seq == 0:
        return None
    end = chain_end(journal)
    if end < floor_seq:
        return Behind(table_id, floor_seq, end, None)
    digest = journal.digest_before(floor_seq + 1)
    return None if digest == floor_hash else Behind(table_id, floor_seq, end, digest)


def report(conn: psycopg.Connection, behind: Behind) -> bool:
    """Tell the floor (it records the alarm and shows it on the pit when it agrees); whether it agreed."""
    row = conn.execute(REPORT, (behind.journal_end, behind.digest)).fetchone()
    return bool(row and row[0])

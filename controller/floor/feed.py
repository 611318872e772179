"""The surveillance feed on a floor: one table's facts as the floor holds them, for the pit page's
``GET /api/feed?table=ID`` (docs/feed.md, "On a floor").

Owns the floor's fact source for controller/page/feed.py's streams: each stream its own PostgreSQL
connection, reading ``floor.records`` of one table in the order of its chain. A fact's number on the
floor is its number in the table's journal (the record's ``seq``), so a reader may move between the
table's own feed and the floor's and resume with the same ``Last-Event-ID``. The stream is woken when
the pit page's listener sees new records (controller/floor/pit_page.py) and looks again every second besides.
"""

from __future__ import annotations

from typing import Any

import psycopg

FLOOR_FACTS_AFTER = ("SELECT seq, round_id, at, kind, body::text, chain_hash FROM floor.records "
                     "WHERE table_id = %s AND seq > %s ORDER BY seq LIMIT %s")


class FloorFacts:
    errors: tuple[type[Exception], ...] = (psycopg.Error,)

    def __init__(self, dsn: str, table_id: str):
        self.dsn = dsn
        self.table_id = table_id

    def open(self) -> psycopg.Connection:
        return psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)

    def last(self, connection: psycopg.Connection) -> int:
        row = connection.execute("SELECT coalesce(max(seq), 0) FROM floor.records WHERE table_id = %s",
                                 (self.table_id,)).fetchone()
        return int(row[0]) if row else 0

    def after(self, connection: psycopg.Connection, after: int, most: int) -> list[tuple[Any, ...]]:
        return connection.execute(FLOOR_FACTS_AFTER, (self.table_id, after, most)).fetchall()


def known_table(dsn: str, table_id: str) -> bool:
    """Whether the floor has enrolled ``table_id`` (a feed of no table is refused, not left empty)."""
    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
        return conn.execute("SELECT 1 FROM floor.tables WHERE id = %s", (table_id,)).fetchone() is not None

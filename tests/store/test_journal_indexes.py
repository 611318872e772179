"""The journal answers the questions a table asks at start-up and at each round's end by index, not by
reading every fact it ever kept: a table PC's journal holds years of table events (device identities,
alerts, sign-ins, PIN changes, jackpot postings), and the dealer's shift asks for PIN changes since the
sign-in at every round's end. Checked on SQLite's own plan for the very queries the parts run, on a
new journal and on one that was made before the index existed."""

from __future__ import annotations

import sqlite3

import pytest

from controller.store.journal import Journal

# each as the part sends it (controller/round/shift.py, controller/store/behind.py, jackpot.py, identities.py)
QUERIES = [
    ("SELECT kind, at, data, seq FROM table_events WHERE kind IN (?, ?) ORDER BY seq DESC LIMIT 1",
     ("dealer_signed_in", "dealer_signed_out")),
    ("SELECT data FROM table_events WHERE kind = ? AND seq > ? ORDER BY seq", ("pin_changed", 10)),
    ("SELECT kind, at, data FROM table_events WHERE kind IN (?, ?) ORDER BY seq DESC LIMIT 1",
     ("journal_behind_floor", "journal_behind_cleared")),
    ("SELECT at, data FROM table_events WHERE kind = 'jackpot_posted' ORDER BY seq", ()),
    ("SELECT at, data FROM table_events WHERE kind = 'device_identity' ORDER BY seq", ()),
]


def _plan(db: sqlite3.Connection, sql: str, args: tuple) -> str:
    return " | ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + sql, args))


@pytest.mark.parametrize("made_before_the_index", [False, True])
def test_the_table_events_a_part_asks_for_are_found_by_kind(tmp_path, made_before_the_index):
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    for n in range(50):
        journal.table_event("alert", {"n": n})
    journal.close()
    if made_before_the_index:
        db = sqlite3.connect(path)
        db.execute("DROP INDEX table_events_kind")
        db.commit()
        db.close()
        journal = Journal(path)         # the next start makes it
        journal.close()
    db = sqlite3.connect(path)
    try:
        for sql, args in QUERIES:
            plan = _plan(db, sql, args)
            assert "table_events_kind" in plan and "SCAN table_events" not in plan, (sql, plan)
    finally:
        db.close()

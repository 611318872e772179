"""A table that comes back behind the floor (issue 33 item 9): its journal and audit trail rolled back
together to an older copy agree with each other, so only the floor, which holds each table's chain
head, can see it. The forwarder holds the journal against that head at each connect: a journal that
ends before it, or has another record there, is refused (the engine halts in words, nothing is sent)
and reported to the floor, which judges the report itself and shows it on the pit until records past
that head arrive again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from controller.floor.forwarder import Forwarder
from controller.floor.pit import floor_view, records_marker
from controller.store.journal import Journal
from controller.store.outbox import chain_end
from tests.floor.conftest import Table, make_table, play
from tests.floor.test_forwarder import floor_rows


def copy_journal(journal: Journal, to: Path) -> Path:
    """A copy of the journal as it is now (what a backup of the data folder holds)."""
    to.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(to) as dest:
        journal.db.backup(dest)
    dest.close()
    return to


def forwarded(table: Table, journal: Journal | None = None) -> None:
    journal = journal or table.journal
    fwd = Forwarder(table.settings, journal.path, journal.key).start()
    try:
        assert fwd.wait_confirmed(chain_end(journal), 20), fwd.status()
    finally:
        fwd.stop()


def refused(table: Table, path: Path) -> tuple[Forwarder, list[str]]:
    """A forwarder on the journal at ``path`` that finds it behind: what it told the engine."""
    told: list[str] = []
    fwd = Forwarder(table.settings, path, table.journal.key, on_behind=told.append).start()
    try:
        assert fwd.wait_until(lambda: fwd.behind is not None, 20), fwd.status()
    finally:
        fwd.stop()
    return fwd, told


def pit_alerts(own_floor_conn: psycopg.Connection, table_id: str) -> list[dict]:
    return next(t for t in floor_view(own_floor_conn)["tables"] if t["id"] == table_id)["alerts"]


@pytest.fixture
def floor_table(cluster, own_floor, tmp_path):
    """A table enrolled on a floor of the test's own (the pit's view reads the whole floor)."""
    name, conn = own_floor
    t = make_table(cluster, conn, tmp_path, dbname=name)
    yield t, conn
    t.journal.close()


def test_a_journal_restored_from_an_older_copy_is_refused_on_both_sides(floor_table, tmp_path):
    table, admin = floor_table
    play(table.journal, 3)
    old = copy_journal(table.journal, tmp_path / "backup" / "journal.sqlite")      # facts 1..9
    play(table.journal, 2)
    forwarded(table)                                            # the floor holds 1..15
    marker = records_marker(admin)

    fwd, told = refused(table, old)                             # the table comes back on the older copy
    words = ("This table's journal is behind the floor: it ends at record 9, the floor holds table "
             f"{table.table_id}'s records up to 15. The journal and audit trail were rolled back or restored "
             "from an older copy; the table will not play on them")
    assert told == [words] and fwd.status()["behind"] == words
    assert fwd.status()["sent"] == 0 and fwd.status()["refused"] == words
    assert [r[0] for r in floor_rows(admin, table.table_id)] == list(range(1, 16))      # nothing sent
    alarm = admin.execute("SELECT floor_seq, journal_end, journal_digest, message FROM floor.chain_alarms "
                          "WHERE table_id = %s", (table.table_id,)).fetchall()
    said = (f"Table {table.table_id} came back behind the floor: its journal ends at record 9, the floor holds its "
            "records up to 15. Its journal and audit trail were rolled back or restored from an older copy; the "
            "table refuses to play on it. Find out why before it opens again")
    assert alarm == [(15, 9, "", said)]                          # once, whatever the reconnects
    first = pit_alerts(admin, table.table_id)[0]
    assert first["kind"] == "journal_behind" and first["message"] == said and first["at"]
    assert records_marker(admin) > marker                       # the live pit page looks again


def test_a_rolled_back_journal_played_on_past_the_floors_head_is_not_the_floors_copy(floor_table, tmp_path):
    table, admin = floor_table
    play(table.journal, 3)
    path = copy_journal(table.journal, tmp_path / "backup" / "journal.sqlite")
    play(table.journal, 2)
    forwarded(table)                                            # the floor holds 1..15
    older = Journal(path, key=table.journal.key)
    try:
        play(older, 4)                                          # 21 facts, but its 15th is another
        assert chain_end(older) == 21
    finally:
        older.close()
    fwd, told = refused(table, path)
    assert told == [f"This table's journal is not the floor's copy: its record 15 is not the one the floor holds "
                    f"for table {table.table_id} (a journal rolled back and played on, or another table's journal). "
                    "The table will not play on it"]
    assert fwd.status()["sent"] == 0
    assert [r[0] for r in floor_rows(admin, table.table_id)] == list(range(1, 16))
    assert "came back with a journal that is not the floor's copy: its record 15" in \
        pit_alerts(admin, table.table_id)[0]["message"]


def test_the_pits_alarm_closes_when_the_tables_own_journal_goes_on(floor_table, tmp_path):
    table, admin = floor_table
    play(table.journal, 2)
    old = copy_journal(table.journal, tmp_path / "backup" / "journal.sqlite")
    play(table.journal, 1)
    forwarded(table)
    refused(table, old)
    assert pit_alerts(admin, table.table_id)[0]["kind"] == "journal_behind"
    play(table.journal, 1)                  # the right journal put back: it follows the floor's head
    forwarded(table)
    assert all(a["kind"] != "journal_behind" for a in pit_alerts(admin, table.table_id))
    assert admin.execute("SELECT count(*) FROM floor.chain_alarms WHERE table_id = %s",
                         (table.table_id,)).fetchone() == (1,)      # the record of it stays


def test_the_floor_judges_a_report_itself_and_takes_it_only_from_the_table(floor_table):
    table, admin = floor_table
    play(table.journal, 2)
    forwarded(table)
    head = table.journal.digest_before(7)
    with table.connect() as conn:
        # a report that does not hold (the journal reaches the head with its digest): nothing recorded
        assert conn.execute("SELECT floor.report_behind(6, %s)", (head,)).fetchone() == (False,)
        assert conn.execute("SELECT floor.report_behind(9, %s)", (head,)).fetchone() == (False,)
    assert admin.execute("SELECT count(*) FROM floor.chain_alarms").fetchone() == (0,)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="only a table's own role"):
        admin.execute("SELECT floor.report_behind(1, NULL)")       # the administrator is no table

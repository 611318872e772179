"""The forwarder against a real PostgreSQL: every journal fact on the floor in order, once,
through an outage of the database; resent, forged and out-of-order records refused by the
floor itself, naming the table and seq; each table fenced to its own rows."""

from __future__ import annotations

import time

import psycopg
import pytest
from psycopg import sql

from controller.floor.forwarder import Forwarder
from controller.floor.link import INSERT_RECORD, record_row
from controller.store.outbox import chain_end, facts_after
from tests.floor.conftest import make_table, play


def floor_rows(admin, table_id):
    return admin.execute("SELECT seq, source, round_id, at, kind, body::text, prev_hash, chain_hash "
                         "FROM floor.records WHERE table_id = %s ORDER BY seq", (table_id,)).fetchall()


def journal_rows(journal):
    return [(f.chain, f.source, f.round_id, f.at, f.kind, f.text, f.prev, f.digest)
            for f in facts_after(journal, 0, 10_000)]


def test_every_fact_reaches_the_floor_in_order_and_once(admin, table):
    play(table.journal, 20)
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        end = chain_end(table.journal)
        assert end == 60
        assert fwd.wait_confirmed(end, 20), fwd.status()
        play(table.journal, 5)                          # facts written while it runs follow
        fwd.wake()
        assert fwd.wait_confirmed(chain_end(table.journal), 20), fwd.status()
    finally:
        fwd.stop()
    assert floor_rows(admin, table.table_id) == journal_rows(table.journal)
    assert fwd.status()["forwarded"] == 75 and fwd.status()["duplicates"] == 0


def test_the_floor_stopped_and_started_again_loses_and_duplicates_nothing(cluster, admin, table):
    play(table.journal, 5)
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        assert fwd.wait_confirmed(15, 20), fwd.status()
        cluster.stop()                                   # the floor goes away mid-run
        play(table.journal, 10)                          # the table keeps playing
        fwd.wake()
        cluster.start()
        assert fwd.wait_confirmed(chain_end(table.journal), 30), fwd.status()
    finally:
        if not cluster.running():
            cluster.start()
        fwd.stop()
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        assert floor_rows(conn, table.table_id) == journal_rows(table.journal)
    assert fwd.status()["confirmed"] == 45 and fwd.status()["duplicates"] == 0
    assert fwd.status()["link_failures"] >= 1                # it did meet the outage


def test_a_forwarder_started_again_goes_on_from_the_floors_last_record(admin, table):
    play(table.journal, 3)
    first = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    assert first.wait_confirmed(9, 20)
    first.stop()
    play(table.journal, 3)
    second = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        assert second.wait_confirmed(18, 20), second.status()
    finally:
        second.stop(drain=5)
    assert second.status()["sent"] == 9            # asked the floor, sent only what it lacked
    assert floor_rows(admin, table.table_id) == journal_rows(table.journal)


def send(table, rows):
    with table.connect() as conn, conn.cursor() as cur:
        cur.executemany(INSERT_RECORD, rows)
        return cur.rowcount


def rows_of(table, facts):
    from controller.floor.link import floor_key
    key = floor_key(table.journal.key, table.table_id)
    return [record_row(key, table.table_id, f) for f in facts]


def test_a_resent_record_is_a_no_op_and_a_different_one_is_refused_naming_table_and_seq(admin, table):
    play(table.journal, 2)
    facts = facts_after(table.journal, 0, 100)
    assert send(table, rows_of(table, facts)) == len(facts)
    assert send(table, rows_of(table, facts[:3])) == 0          # resent: nothing added, no error
    altered = facts[2].__class__(**{**facts[2].__dict__, "text": '{"n":99}'})
    with pytest.raises(psycopg.IntegrityError, match=f"table {table.table_id}: record 3 was resent with different"):
        send(table, rows_of(table, [altered]))
    assert floor_rows(admin, table.table_id) == journal_rows(table.journal)


def test_a_forged_record_a_gap_and_a_reordering_are_refused_on_arrival(admin, table):
    play(table.journal, 3)
    facts = facts_after(table.journal, 0, 100)
    send(table, rows_of(table, facts[:4]))
    forged = list(rows_of(table, [facts[4]])[0])
    forged[6] = '{"positions":{"1":{"ante":1000000}}}'           # content changed, MAC left as it was
    with pytest.raises(psycopg.IntegrityError, match=f"table {table.table_id}: record 5 is forged"):
        send(table, [tuple(forged)])
    with pytest.raises(psycopg.IntegrityError, match=f"table {table.table_id}: record 6 arrived out of order"
                                                     ".* up to 4, so 5 is missing"):
        send(table, rows_of(table, [facts[5]]))
    # a fact of the right seq and a valid MAC but not following the floor's record 4
    wrong_link = facts[4].__class__(**{**facts[4].__dict__, "prev": facts[2].digest})
    with pytest.raises(psycopg.IntegrityError, match=f"table {table.table_id}: record 5 does not follow record 4"):
        send(table, rows_of(table, [wrong_link]))
    assert [r[0] for r in floor_rows(admin, table.table_id)] == [1, 2, 3, 4]


def test_a_forwarder_refused_by_the_floor_says_so_and_sends_nothing_past_it(admin, table):
    play(table.journal, 1)
    # a forwarder with the wrong key: the floor refuses record 1 on arrival (its MAC) and keeps nothing
    told: list[tuple[bool, str]] = []
    fwd = Forwarder(table.settings, table.journal.path, b"k" * 32,
                    on_link=lambda up, why: told.append((up, why))).start()
    try:
        assert fwd.wait_until(lambda: fwd.refused is not None, 10)
        assert f"table {table.table_id}: record 1 is forged or damaged" in fwd.status()["refused"]
        assert fwd.status()["confirmed"] == 0 and fwd.status()["behind"] is None
        # nothing is forwarded while the floor refuses: the table is told the link is down (a linked Super 6
        # closes), as for any loss of it; it was told nothing and stayed open
        deadline = time.monotonic() + 5
        while [up for up, _ in told][:2] != [True, False] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [up for up, _ in told][:2] == [True, False], told
        assert told[1][1].startswith(f"the floor refused: table {table.table_id}: record 1 is forged or damaged")
    finally:
        fwd.stop()
    assert floor_rows(admin, table.table_id) == []


def test_a_floor_holding_another_record_at_its_head_is_met_at_connect(admin, table):
    play(table.journal, 1)
    facts = facts_after(table.journal, 0, 1)
    other = facts[0].__class__(**{**facts[0].__dict__, "text": '{"n":"other"}', "digest": "f" * 64})
    send(table, rows_of(table, [other]))                   # the floor holds a different record 1
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        # the floor's head (1) is not this journal's record 1: refused before anything is sent
        # (tests/floor/test_rollback.py has the whole of it)
        assert fwd.wait_until(lambda: fwd.refused is not None, 10)
        assert "its record 1 is not the one the floor holds" in fwd.status()["refused"]
        assert fwd.status()["sent"] == 0
    finally:
        fwd.stop()
    assert [r[0] for r in floor_rows(admin, table.table_id)] == [1]


def test_each_table_writes_and_reads_only_its_own_rows(cluster, admin, table, tmp_path):
    other = make_table(cluster, admin, tmp_path, prefix="U")
    play(other.journal, 1)
    play(table.journal, 1)
    send(other, rows_of(other, facts_after(other.journal, 0, 10)))
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        # the other table's rows, correctly made, sent with this table's role
        with table.connect() as conn, conn.cursor() as cur:
            cur.executemany(INSERT_RECORD, rows_of(other, facts_after(other.journal, 0, 10)))
    with table.connect() as conn:
        assert conn.execute("SELECT count(*) FROM floor.records").fetchone()[0] == 0
        assert conn.execute("SELECT id FROM floor.tables").fetchall() == [(table.table_id,)]
        for statement in ("SELECT * FROM floor.table_keys", "SELECT * FROM floor.chain_alarms",
                          "UPDATE floor.records SET kind = 'x'", "DELETE FROM floor.records"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
    other.journal.close()


def test_a_forwarder_posing_as_another_table_is_refused(cluster, admin, table, tmp_path):
    """Its MAC cannot be the other table's (the check on arrival runs before row-level security, which
    refuses the rows of another table even when their MAC is right: the test above)."""
    other = make_table(cluster, admin, tmp_path, prefix="V")
    play(table.journal, 1)
    from dataclasses import replace
    posing = replace(table.settings, table_id=other.table_id)        # this table's role, the other's id
    fwd = Forwarder(posing, table.journal.path, table.journal.key).start()
    try:
        assert fwd.wait_until(lambda: fwd.refused is not None, 10)
        assert f"table {other.table_id}: record 1 is forged or damaged" in fwd.status()["refused"]
    finally:
        fwd.stop()
    assert floor_rows(admin, other.table_id) == [] and floor_rows(admin, table.table_id) == []
    other.journal.close()


def test_one_tables_link_cut_during_forwarding_catches_up_and_the_others_go_on(cluster, admin, table, tmp_path):
    other = make_table(cluster, admin, tmp_path, prefix="W")
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    fwd_other = Forwarder(other.settings, other.journal.path, other.journal.key).start()
    try:
        play(table.journal, 2)
        assert fwd.wait_confirmed(6, 20)
        # cut this table alone: its role may not log in, its session is ended (as a cut cable would)
        admin.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(table.settings.user)))
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                      (table.settings.user,))
        play(table.journal, 3)                                   # it plays on while cut off
        play(other.journal, 3)
        fwd.wake()
        fwd_other.wake()
        assert fwd.wait_until(lambda: fwd.link_failures >= 1, 10)
        assert fwd_other.wait_confirmed(9, 20)                   # the other table is not held up
        assert fwd.status()["confirmed"] == 6
        admin.execute(sql.SQL("ALTER ROLE {} LOGIN").format(sql.Identifier(table.settings.user)))
        assert fwd.wait_confirmed(15, 30), fwd.status()
    finally:
        admin.execute(sql.SQL("ALTER ROLE {} LOGIN").format(sql.Identifier(table.settings.user)))
        fwd.stop()
        fwd_other.stop()
    assert floor_rows(admin, table.table_id) == journal_rows(table.journal)
    assert floor_rows(admin, other.table_id) == journal_rows(other.journal)
    assert fwd.status()["duplicates"] == 0
    other.journal.close()

"""Each table at a glance (issue 32): the ingest keeps one status row per table (floor.table_status:
last record and when, last state and round, devices as last reported, open alerts), the pit reads
it instead of scanning the records, marks a table stale after N quiet seconds and its link down when
its forwarder has no session, and says alerts in plain words (no libpq error)."""

from __future__ import annotations

import secrets
import time

import psycopg
import pytest

from controller.floor.link import floor_key, record_row
from controller.floor.pit import floor_view, plain_words
from controller.floor.schema import apply_schema
from controller.rules.words import device_says
from controller.store.journal import Journal
from controller.store.outbox import facts_after
from tests.floor.conftest import make_table
from tests.floor.test_forwarder import rows_of, send
from tests.floor.test_schema_upgrade import old_schema

LINK_DOWN = ("Super 6 closed: the floor link is down (connection to server at \"127.0.0.1\", port 5432 failed: "
             "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?): a linked "
             "jackpot takes no wagers while cut off. No new Super 6 wagers.")


def test_the_floor_knows_each_devices_offline_sentence_as_the_tables_say_it(admin):
    words = dict(admin.execute("SELECT role, offline FROM floor.device_words").fetchall())
    assert words == {role: device_says(role, "not answering") for role in ("shoe", "sensors", "sign")}


def journal_a_table(journal: Journal) -> int:
    """A table's facts: devices up, then the sensors lost, a round with an alert, the floor link lost
    and back; returns the round."""
    journal.table_event("device_identity", {"device": "shoe", "model": "S1"})
    journal.table_event("device_online", {"device": "sensors"})
    journal.table_event("device_online", {"device": "sign"})
    journal.table_event("dealer_signed_in", {"name": "Ana", "replaces": None})
    journal.table_event("dealer_signed_in", {"name": "Bo", "replaces": "Ana"})
    journal.table_event("alert", {"kind": "device_offline", "position": None,
                                  "message": device_says("sensors", "not answering: cable")})
    rid = journal.open_round("sheet-004")
    journal.append(rid, "state", {"state": "betting"})
    journal.append(rid, "alert", {"kind": "past_posting", "position": 2, "message": "Late bet at position 2"})
    journal.table_event("alert", {"kind": "super6_closed", "position": None, "message": LINK_DOWN})
    return rid


def status(admin, table_id):
    return admin.execute("SELECT last_seq, state, round_id, devices, alerts FROM floor.table_status "
                         "WHERE table_id = %s", (table_id,)).fetchone()


def dealer(admin, table_id):
    return admin.execute("SELECT dealer FROM floor.table_status WHERE table_id = %s", (table_id,)).fetchone()[0]


def test_the_ingest_keeps_each_tables_status_row_and_the_pit_reads_it(cluster, admin, tmp_path):
    t = make_table(cluster, admin, tmp_path, prefix="S")
    rid = journal_a_table(t.journal)
    sent = facts_after(t.journal, 0, 100)
    send(t, rows_of(t, sent))
    last_seq, state, round_id, devices, alerts = status(admin, t.table_id)
    assert (last_seq, state, round_id) == (len(sent), "betting", rid)
    assert {role: d["online"] for role, d in devices.items()} == {"shoe": True, "sensors": False, "sign": True}
    assert devices["sensors"]["said"] == device_says("sensors", "not answering: cable")
    assert [a["kind"] for a in alerts] == ["super6_closed", "past_posting", "device_offline"]    # newest first
    assert dealer(admin, t.table_id) == "Bo"                # the dealer who relieved Ana
    # the round ends, the sensors and the link come back: their alerts close
    t.journal.append(rid, "complete", {})
    t.journal.table_event("device_online", {"device": "sensors"})
    t.journal.table_event("alert", {"kind": "super6_open", "position": None, "message": "Super 6 open again"})
    send(t, rows_of(t, facts_after(t.journal, len(sent), 100)))
    _, _, _, devices, alerts = status(admin, t.table_id)
    assert devices["sensors"]["online"] and alerts == []
    view = {v["id"]: v for v in floor_view(admin, stale_after=60)["tables"]}
    assert view[t.table_id]["dealer"] == "Bo"               # the pit's view names the dealer
    t.journal.table_event("dealer_signed_out", {"name": "Bo"})
    send(t, rows_of(t, facts_after(t.journal, len(sent) + 3, 100)))
    assert dealer(admin, t.table_id) is None
    t.journal.close()


def test_the_pit_marks_stale_tables_and_links_down_and_says_alerts_in_plain_words(cluster, admin, tmp_path):
    live, quiet = (make_table(cluster, admin, tmp_path, prefix="V") for _ in range(2))
    for t in (live, quiet):
        journal_a_table(t.journal)
        send(t, rows_of(t, facts_after(t.journal, 0, 100)))
    admin.execute("UPDATE floor.table_status SET last_received = now() - interval '5 minutes' WHERE table_id = %s",
                  (quiet.table_id,))
    # a closed connection's backend leaves pg_stat_activity a moment after the client: wait for it (under
    # load the quiet table's last session was still listed, and its link read "up")
    deadline = time.monotonic() + 10
    while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s",
                        (quiet.settings.user,)).fetchone()[0] and time.monotonic() < deadline:
        time.sleep(0.05)
    with live.connect() as session:                     # the live table's forwarder holds a session
        session.execute("SELECT 1")
        view = {t["id"]: t for t in floor_view(admin, stale_after=60)["tables"]}
    a, q = view[live.table_id], view[quiet.table_id]
    assert (a["stale"], a["link"], q["stale"], q["link"]) == (False, "up", True, "down")
    assert 295 < q["heard_ago"] < 400 and a["heard_ago"] < 60
    said = a["alerts"][0]
    assert said["message"] == ("Super 6 closed: the floor link is down: a linked jackpot takes no wagers while cut "
                               "off. No new Super 6 wagers.")
    assert said["said"] == LINK_DOWN                    # the raw words stay for a technician (on hover)
    assert plain_words("The shoe is not answering (could not read: timeout)") == "The shoe is not answering"
    for t in (live, quiet):
        t.journal.close()


@pytest.mark.parametrize("version", [3, 4, 5, 7, 8])
def test_an_upgrade_builds_every_tables_status_row_from_its_records(cluster, admin, tmp_path, version):
    """From 3 (no status rows) they are made; from 4 (kept by the ingest) they are made again, each
    alert once, with the same contents; the records come through every upgrade as they were, the
    floor's time of arrival included (5 -> 6 and 7 -> 8 copy them into a new table)."""
    name = f"old_{secrets.token_hex(4)}"
    admin.execute(f"CREATE DATABASE {name}")
    try:
        journal = Journal(tmp_path / "journal.sqlite")
        rid = journal_a_table(journal)
        with psycopg.connect(cluster.dsn(dbname=name), autocommit=True) as conn:
            with conn.transaction():
                conn.execute(old_schema(version))
            conn.execute("INSERT INTO floor.tables (id, role) VALUES ('U1', 'table_u1')")
            key = floor_key(journal.key, "U1")
            conn.execute("INSERT INTO floor.table_keys VALUES ('U1', %s)", (key,))
            rows = [record_row(key, "U1", f) for f in facts_after(journal, 0, 100)]
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO floor.records (table_id, seq, source, round_id, at, kind, body, "
                                "prev_hash, chain_hash, mac) VALUES (%s, %s, %s, %s, %s, %s, %s::json, %s, %s, %s)",
                                rows)
            before = status(conn, "U1") if version >= 4 else None       # version 3 had no status rows
            held = conn.execute("SELECT * FROM floor.records ORDER BY table_id, seq").fetchall()
            assert apply_schema(conn)
            assert conn.execute("SELECT * FROM floor.records ORDER BY table_id, seq").fetchall() == held
            last_seq, state, round_id, devices, alerts = status(conn, "U1")
            on_duty = dealer(conn, "U1")
            assert before in (None, (last_seq, state, round_id, devices, alerts))
        assert (last_seq, state, round_id, devices["sensors"]["online"]) == (len(rows), "betting", rid, False)
        assert len(alerts) == 3
        assert on_duty == "Bo"                                          # made from the records
        journal.close()
    finally:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")

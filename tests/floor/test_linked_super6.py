"""A table on a linked jackpot (``[floor] jackpot_group``) closes Super 6 while the floor is out of
reach and reopens it when the floor is back: the whole table in the test process on simulated
devices, its forwarder against the session's real PostgreSQL, which is stopped and started."""

from __future__ import annotations

import json
import secrets

import psycopg

from controller.floor.jackpot import create_group
from controller.store.journal import Journal
from tests.floor.conftest import enroll_table, start_table

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}     # as tests/support/rig.py configures


def linked_table(cluster, admin, tmp_path, group: str | None):
    table_id, config = enroll_table(cluster, admin, tmp_path, group)
    if group:                                     # the floor's group, with the configuration's values
        create_group(admin, group, [table_id], VALUES, by="Ana", reason="opening")
    return start_table(config)


def closed(snap) -> str | None:
    return snap["jackpot"]["super6_closed"]


def test_a_linked_table_closes_super6_while_the_floor_is_out_of_reach(cluster, admin, tmp_path):
    rig = linked_table(cluster, admin, tmp_path, f"G-{secrets.token_hex(3)}")
    try:
        rig.wait(lambda s: closed(s) is None, 15, "Super 6 open (the sign and the floor link up)")
        cluster.stop()
        snap = rig.wait(lambda s: closed(s) is not None, 15, "Super 6 closed by the floor's outage")
        assert closed(snap).startswith("the floor link is down (")
        assert any(a["kind"] == "super6_closed" for a in snap["alerts"])
        cluster.start()
        snap = rig.wait(lambda s: closed(s) is None, 20, "Super 6 open again")
        assert any(a["kind"] == "super6_open" for a in snap["alerts"])
        assert rig.run.forwarder is not None and rig.run.forwarder.status()["link_failures"] >= 1
    finally:
        if not cluster.running():
            cluster.start()
        rig.run.stop()
    journal = Journal.read_only(rig.run.journal.path, keyed=False)
    try:                                            # each change was journaled before it was shown
        said = [json.loads(d)["message"] for (d,) in journal.db.execute(
            "SELECT data FROM table_events WHERE kind = 'alert' ORDER BY seq")]
    finally:
        journal.close()
    assert any(m.startswith("Super 6 closed: the floor link is down") for m in said)
    assert any(m.startswith("Super 6 open again") for m in said)


def test_a_table_on_the_floor_without_a_linked_jackpot_keeps_super6_through_an_outage(cluster, admin, tmp_path):
    rig = linked_table(cluster, admin, tmp_path, None)
    try:
        rig.wait(lambda s: closed(s) is None, 15, "Super 6 open")
        forwarder = rig.run.forwarder
        assert forwarder is not None
        cluster.stop()
        assert forwarder.wait_until(lambda: forwarder.link_failures >= 1, 15)
        assert closed(rig.snap) is None            # its jackpot is the table's own: nothing to stop
    finally:
        if not cluster.running():
            cluster.start()
        rig.run.stop()
    with psycopg.connect(cluster.dsn()) as conn:     # what it sent before the outage is on the floor
        assert conn.execute("SELECT count(*) FROM floor.records WHERE table_id = %s",
                            (rig.run.config.table_id,)).fetchone()[0] > 0

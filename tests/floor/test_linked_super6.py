"""A table on a linked jackpot (``[floor] jackpot_group``) closes Super 6 while the floor is out of
reach and reopens it when the floor is back: the whole table in the test process on simulated
devices, its forwarder against the session's real PostgreSQL, which is stopped and started."""

from __future__ import annotations

import json
import secrets

import psycopg

from controller.app.run import RunOptions, TableRun
from controller.floor.link import floor_key
from controller.floor.schema import enroll
from controller.store.chain import load_key
from controller.store.journal import Journal
from tests.support.rig import Rig, config_text


def linked_table(cluster, admin, tmp_path, group: str | None):
    table_id = f"S6-{secrets.token_hex(3)}"
    data = tmp_path / "data"
    key, _ = load_key(data, create=True)          # the journal's key, made first: enrolment needs it
    password = secrets.token_urlsafe(12)
    role = enroll(admin, table_id, password, floor_key(key, table_id))
    (tmp_path / "pw").write_text(password)
    text = config_text().replace('id = "T-TEST"', f'id = "{table_id}"')
    text += (f'\n[floor]\ndsn = "host={cluster.host} port={cluster.port} dbname=floor"\nuser = "{role}"\n'
             f'password_file = "{tmp_path / "pw"}"\npoll = 0.05\nheartbeat = 0.2\ndrain = 2\n')
    if group:
        text += f'jackpot_group = "{group}"\n'
    (tmp_path / "table.toml").write_text(text)
    run = TableRun(RunOptions(config=str(tmp_path / "table.toml"), simulate=True, data_dir=str(data), page=False))
    run.sim.players.paused = True
    return Rig(run.start())


def closed(snap) -> str | None:
    return snap["jackpot"]["super6_closed"]


def test_a_linked_table_closes_super6_while_the_floor_is_out_of_reach(cluster, admin, tmp_path):
    rig = linked_table(cluster, admin, tmp_path, "G-1")
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

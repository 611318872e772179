"""The floor on a primary with a synchronous standby: ``table-floor demo --failover`` kills the
primary mid-run (``pg_ctl stop -m immediate``) and promotes the standby while the tables play on;
read from the promoted database alone, no journal fact and no paid claim is lost or doubled. And
the check that says so does see a loss."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from controller.floor.demo_check import failover_check
from controller.floor.forwarder import Forwarder
from controller.store.outbox import chain_end
from tests.floor.conftest import play
from tests.support import ROOT


def test_a_failover_to_the_synchronous_standby_loses_and_doubles_nothing():
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "3", "--rounds", "24",
                           "--seed", "1", "--hits", "2", "--failover", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    moved = summary["failover"]
    assert moved["replication_before"] == [{"name": "standby1", "state": "streaming", "sync_state": "sync"}]
    assert moved["standby_port"] != moved["primary_port"]
    # killed mid-run: half the rounds on the floor, the linked hit's split final (so paid at its table)
    assert 36 <= moved["rounds_when_killed"] < 72 and moved["final_splits_when_killed"] == 1
    # the run went on: every round of every table reached the promoted floor, and the forwarders met the crash
    assert summary["tables_failed"] == [] and summary["tables_stalled"] == [] and summary["refused"] == []
    assert summary["rounds_played"] == 72 and summary["link_failures"] >= 3
    assert summary["records_in_journals"] > moved["records_when_killed"]
    assert summary["records_confirmed"] == summary["records_in_journals"]
    assert (summary["gaps"], summary["duplicates"], summary["mismatches"]) == (0, 0, 0)
    assert moved["claims_paid_by_tables"] == summary["jackpot"]["hits_paid"] >= 1
    assert (moved["records_lost"], moved["records_doubled"], moved["claims_lost"], moved["claims_doubled"]) \
        == (0, 0, 0, 0)


@dataclass
class Journaled:
    table_id: str
    folder: Path
    summary: dict | None = None
    process: object = None


def test_the_failover_check_counts_facts_the_floor_lacks_and_rows_no_journal_holds(admin, table):
    play(table.journal, 3)
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        assert fwd.wait_confirmed(chain_end(table.journal), 30)
    finally:
        fwd.stop()
    seen = Journaled(table.table_id, Path(table.journal.path).parent)
    assert failover_check(admin, [seen])["records_lost"] == 0
    on_floor = chain_end(table.journal)
    play(table.journal, 1)                          # facts the floor never got: lost, were this a failover
    check = failover_check(admin, [seen])
    assert check["records_lost"] == chain_end(table.journal) - on_floor > 0 and check["records_doubled"] == 0


def test_the_demo_asks_for_one_fault_at_a_time():
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--failover", "1", "--outage", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "--failover and --outage are two different faults" in done.stderr

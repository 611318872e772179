"""``table-floor demo`` end to end: tables in their own processes on simulated devices, each
forwarding its journal through a real PostgreSQL that is stopped and started again while they
play; the floor ends up holding every journal fact once, in order, and the same."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import ROOT


def test_a_floor_of_tables_survives_the_database_stopping_mid_run():
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "2", "--rounds", "3",
                           "--seed", "5", "--outage", "0.5"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["tables"] == 2 and summary["rounds_per_table"] == 3 and summary["outages"] == 1
    assert summary["tables_failed"] == [] and summary["refused"] == []
    assert summary["link_failures"] >= 1                 # the tables' forwarders did meet the outage
    assert summary["rounds_played"] == 6 and summary["rounds_on_floor"] == 6
    assert summary["records_in_journals"] > 6 * 10
    assert summary["records_confirmed"] == summary["records_in_journals"] == summary["records_forwarded"]
    assert (summary["gaps"], summary["duplicates"], summary["mismatches"]) == (0, 0, 0)


def test_the_demo_refuses_a_bad_request_in_words():
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "table-floor: --tables must be 1 to 50, not 0" in done.stderr

"""``table-floor demo`` on a busy machine (issue 32): a table is stopped only when it stops making
progress (its journal not growing for ``--stall`` seconds), never at a fixed deadline; the summary's
counts are the floor's, so a table stopped without a summary of its own is still counted; the
throwaway cluster's port can be chosen."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from controller.floor.cluster import free_port
from controller.floor.demo import DemoTable, _journal_end, _wait_tables
from controller.floor.demo_check import summary as floor_summary
from controller.floor.forwarder import Forwarder
from controller.store.outbox import chain_end
from tests.floor.conftest import make_table, play
from tests.support import ROOT

SLOW_TABLE = """
import sys, time
from controller.store.journal import Journal
journal = Journal(sys.argv[1])
for n in range(12):                     # a fact every 0.25 s for 3 s: slow, but progressing
    journal.table_event("note", {"n": n})
    time.sleep(0.25)
"""


def test_a_table_that_stops_journaling_is_stopped_and_a_slow_one_that_goes_on_is_not(cluster, tmp_path):
    slow_dir, stuck_dir = tmp_path / "slow", tmp_path / "stuck"
    slow_dir.mkdir()
    stuck_dir.mkdir()
    slow = DemoTable("SLOW", slow_dir, None, b"", subprocess.Popen(
        [sys.executable, "-c", SLOW_TABLE, str(slow_dir / "journal.sqlite")], cwd=ROOT, stdout=subprocess.PIPE,
        text=True))
    stuck = DemoTable("STUCK", stuck_dir, None, b"", subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True))
    # watched from its first fact: a Python started on a busy machine may take longer than the stall to
    # make its journal, and a table that has not started is not one that stopped making progress
    deadline = time.monotonic() + 60
    while _journal_end(slow) == 0 and slow.process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    closed, caught, stalled = _wait_tables(cluster, [slow, stuck], stall=1.5, linked=False)
    took = time.monotonic() - started
    assert stalled == ["STUCK"] and (closed, caught) == ([], {})
    assert slow.process is not None and slow.process.returncode == 0      # 3 s of play, twice the stall: kept
    assert stuck.process is not None and stuck.process.returncode != 0
    assert 2.5 < took < 20


def test_the_summary_counts_from_the_floor_a_table_that_left_no_summary(cluster, admin, tmp_path):
    t = make_table(cluster, admin, tmp_path, prefix="D")
    play(t.journal, 4)
    forwarder = Forwarder(t.settings, t.journal.path, t.journal.key).start()
    assert forwarder.wait_confirmed(chain_end(t.journal), 30)
    forwarder.stop()
    demo = DemoTable(t.table_id, t.journal.path.parent, t.settings, t.journal.key)      # killed: no summary
    summary = floor_summary(admin, [demo], 4, 0, 0)
    assert (summary["rounds_played"], summary["rounds_on_floor"], summary["rounds_voided"]) == (4, 4, 0)
    assert summary["records_forwarded"] == summary["records_confirmed"] == summary["records_in_journals"] == 12
    t.journal.close()


def test_the_demo_runs_its_cluster_on_the_port_asked_for():
    port = free_port()
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "1", "--rounds", "2",
                           "--port", str(port)], capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["port"] == port and summary["rounds_played"] == 2 and summary["tables_stalled"] == []
    bad = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--port", "70000"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "table-floor: --port must be 1 to 65535, not 70000" in bad.stderr

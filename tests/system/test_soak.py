"""The soak campaign, short: the real controller killed and restarted under faults, checked after."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import ROOT


def test_a_short_soak_with_kills_and_faults_loses_and_doubles_nothing(tmp_path):
    report, summary = tmp_path / "soak.html", tmp_path / "soak.json"
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", "--rounds", "6", "--seed", "5",
                           "--fault-rate", "0.3", "--kill-rate", "0.2", "--stuck-after", "15",
                           "--work-dir", str(tmp_path / "work"),
                           "--report", str(report), "--summary", str(summary)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(summary.read_text())
    assert doc == json.loads(done.stdout)
    assert doc["rounds_closed"] >= 6 and doc["restarts"] >= 1 and sum(doc["faults_injected"].values()) >= 1
    check = doc["check"]
    assert check["verify"]["ok"] and check["rounds_recalled"] == check["rounds_in_journal"] >= 6
    assert check["coverage_problems"] == []
    assert check["resettlement_discrepancies"] == 0 and check["rounds_settled_again"] >= 1
    assert check["payments_doubled"] == check["payments_lost"] == check["void_rounds_that_paid"] == 0
    assert doc["recovery_s"]["max"] > 0
    page = report.read_text()
    assert page.count("<svg") == 7 and "PASS" in page and "<script" not in page
    # the latency histograms: every life's events merged, none lost on the way
    for key in ("frame_to_snapshot", "snapshot_to_page"):
        whole = doc["latency"][key]
        assert whole["n"] == sum(life[key]["n"] for life in doc["latency_by_life"]) > 0
        assert whole["max_ms"] == max(life[key]["max_ms"] for life in doc["latency_by_life"])
    assert page.count("histogram over every life") == 2


def test_lives_merge_into_one_histogram():
    from simulators.soak_report import merged
    lives = [{"t": {"n": 3, "max_ms": 2.0, "buckets": [[0.1, 2], [2.0, 1]]}},
             {"t": {"n": 100, "max_ms": 9.0, "buckets": [[0.1, 90], [1.0, 9], [9.0, 1]]}}, {}]
    assert merged(lives, "t") == {"n": 103, "p50_ms": 0.1, "p99_ms": 2.0, "max_ms": 9.0,
                                  "buckets": [[0.1, 92], [1.0, 9], [2.0, 1], [9.0, 1]]}


def test_soak_options_are_refused_in_words():
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", "--rounds", "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "'0' is not a whole number of at least 1" in done.stderr
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", "--kill-rate", "2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "'2' is not a chance from 0 to 1" in done.stderr


def test_a_soak_stopped_by_a_signal_still_checks_and_reports_what_was_played(tmp_path):
    """A lab ends a long campaign early (SIGTERM, or Ctrl-C): the rounds played are checked and
    the summary and report written, saying so."""
    import signal
    import sqlite3
    import time
    summary = tmp_path / "soak.json"
    soak = subprocess.Popen([sys.executable, "-m", "simulators.cli", "soak", "--rounds", "100000", "--faults", "none",
                             "--work-dir", str(tmp_path / "work"), "--summary", str(summary)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = tmp_path / "work" / "data" / "journal.sqlite"
    deadline = time.monotonic() + 120
    closed = 0
    while closed < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        if journal.exists():
            try:
                with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
                    closed = db.execute("SELECT count(*) FROM rounds WHERE status = 'complete'").fetchone()[0]
            except sqlite3.Error:
                pass
    assert closed >= 3
    soak.send_signal(signal.SIGTERM)
    out, err = soak.communicate(timeout=300)
    assert soak.returncode == 0, err[-3000:]
    doc = json.loads(summary.read_text())
    assert doc["stopped_by"] == "SIGTERM" and doc["rounds_closed"] >= 3
    assert doc["check"]["rounds_recalled"] == doc["check"]["rounds_in_journal"] >= 3
    assert doc["check"]["resettlement_discrepancies"] == 0 and doc["check"]["verify"]["ok"]


def test_the_simulated_players_never_leave_the_table_empty():
    """Nobody sitting down made a round with no wagers: the scripted dealer had nothing to ask and a
    50,000-round soak waited for ever after round 32,157."""
    from controller.rules.paytable import load_preset
    from simulators.players import Players

    class Shoe:
        listeners: list = []
    class Sensors:
        listeners: list = []
    players = Players(load_preset("sheet-004"), Sensors(), Shoe(), positions=1, seed=3, sit_chance=0.05)
    assert all(players._random_bets() for _ in range(200))

"""``table-floor demo`` end to end: tables in their own processes on simulated devices, each
forwarding its journal through a real PostgreSQL that is stopped and started again while they
play; the floor ends up holding every journal fact once, in order, and the same."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import ROOT

# rounds enough to be still playing when the database stops: with journals in memory (scripts/run-tests)
# two tables played 3 rounds each before the outage began, and no forwarder met it
ROUNDS = 12


def test_a_floor_of_tables_survives_the_database_stopping_mid_run():
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "2", "--rounds", str(ROUNDS),
                           "--seed", "5", "--outage", "0.5"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["tables"] == 2 and summary["rounds_per_table"] == ROUNDS and summary["outages"] == 1
    assert summary["tables_failed"] == [] and summary["refused"] == []
    assert summary["link_failures"] >= 1                 # the tables' forwarders did meet the outage
    assert summary["rounds_played"] == 2 * ROUNDS and summary["rounds_on_floor"] == 2 * ROUNDS
    assert summary["records_in_journals"] > 2 * ROUNDS * 10
    assert summary["records_confirmed"] == summary["records_in_journals"] == summary["records_forwarded"]
    assert (summary["gaps"], summary["duplicates"], summary["mismatches"]) == (0, 0, 0)


def test_the_demo_deals_linked_hits_that_the_floor_claims_in_order_and_the_tables_pay():
    """Two tables dealt a royal flush for position 1 with Super 6 in the same early round: the first
    claim locks MINOR on the floor, a hit dealt before the lock reached its table shares the value
    (a split), one dealt after it had no Super 6 wager to win; every claim is paid at its table."""
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "3", "--rounds", "6",
                           "--seed", "1", "--hits", "2"], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["tables_failed"] == [] and summary["rounds_played"] == 18
    jackpot = summary["jackpot"]
    assert jackpot["royals_dealt"] == 2 and 1 <= jackpot["hits_claimed"] <= 2
    claims = jackpot["claims"]
    assert [c["order"] for c in claims] == list(range(1, len(claims) + 1))
    assert {c["table"] for c in claims} <= {"T1", "T2"} and all(c["round"] == 3 for c in claims)
    for c in claims:          # $10 on Super 6: 100 % of its part of the posted $2,500.00
        assert (c["level"], c["generation"], c["winners"]) == ("minor", 1, len(claims))
        assert c["amount"] * len(claims) == 250_000
    assert jackpot["split"] == (len(claims) if len(claims) > 1 else 0)
    assert jackpot["hits_paid"] == jackpot["hits_claimed"]
    assert (summary["gaps"], summary["duplicates"], summary["mismatches"]) == (0, 0, 0)


def test_the_demo_refuses_a_bad_request_in_words():
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "table-floor: --tables must be 1 to 50, not 0" in done.stderr
    done = subprocess.run([sys.executable, "-m", "controller.floor", "demo", "--tables", "2", "--hits", "3"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "table-floor: --hits must be 0 to the tables (2), not 3" in done.stderr

"""``table-sim soak`` on the simulation (the default): seeds across processes, faults and crashes,
every round settled again, a failing round replayed exactly; the campaign's long run is marked."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simulators.sim.campaign import CampaignOptions, play_seed, replay
from simulators.sim.faults import FaultPlan
from tests.support import ROOT

MIXED = ["--fault-rate", "0.2", "--kill-rate", "0.05", "--disk-full-rate", "0.01"]


def soak(tmp_path, *words: str) -> tuple[subprocess.CompletedProcess, dict]:
    summary = tmp_path / "soak.json"
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", *words, "--work-dir", str(tmp_path / "w"),
                           "--summary", str(summary), "--report", str(tmp_path / "soak.html")],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600)
    return done, json.loads(summary.read_text()) if summary.exists() else {}


# the default suite: 240 rounds on 2 processes (a few seconds); the campaign: 20,000 (issue 30)
@pytest.mark.parametrize("rounds, per_seed", [(240, 60), pytest.param(20000, 1000, marks=pytest.mark.campaign)])
def test_the_simulated_soak_loses_and_doubles_nothing_under_faults_and_crashes(tmp_path, rounds, per_seed):
    done, doc = soak(tmp_path, "--rounds", str(rounds), "--per-seed", str(per_seed), "--jobs", "2", "--seed", "7",
                     *MIXED)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert doc == json.loads(done.stdout) and doc["on"] == "sim" and doc["jobs"] == 2
    assert doc["rounds_closed"] == rounds and len(doc["seeds"]) == rounds // per_seed and doc["failed_seeds"] == []
    assert {s["seed"] for s in doc["seeds"]} == set(range(7, 7 + rounds // per_seed))
    check = doc["check"]
    assert check["verify"]["ok"] and check["coverage_problems"] == [] and check["rounds_in_journal"] == rounds
    assert check["resettlement_discrepancies"] == 0 and check["rounds_settled_again"] >= rounds // 2
    assert check["payments_doubled"] == check["payments_lost"] == check["void_rounds_that_paid"] == 0
    assert doc["restarts"] >= 5 and {"crash", "disk full", "shoe jam", "sign nak"} <= set(doc["faults_injected"])
    assert doc["halts_unexpected"] == []
    assert not list((tmp_path / "w").glob("seed-*"))            # clean seeds leave nothing behind
    assert "PASS" in (tmp_path / "soak.html").read_text()


def test_a_failing_seed_is_named_with_the_command_that_replays_it_to_its_round(tmp_path, monkeypatch):
    """A discrepancy (made here: the check is told a round differs) fails the seed, keeps its folder, and
    names the replay; the replay plays the seed again exactly, stops at that round and gives its facts."""
    import simulators.sim.campaign as campaign
    o = CampaignOptions(rounds=12, seed=4, per_seed=12, plan=FaultPlan(fault_rate=0.2), work_dir=str(tmp_path))

    def found(checked):
        return False
    monkeypatch.setattr(campaign, "passed", found)
    doc = play_seed(o, 4, 12)
    assert not doc["ok"] and doc["folder"] and (tmp_path / "seed-4" / "journal.sqlite").exists()
    assert doc["replay"].startswith("table-sim soak --seed 4 --stop-at-round 12 --per-seed 12")
    played, facts = replay(o, 4, 5)
    assert played["rounds"] == 5
    kinds = [row[3] for row in facts]
    # a round ends complete, or void (its void record, then the state it enters)
    assert kinds[0] == "opened" and (kinds[-1] == "complete" or kinds[-2:] == ["void", "state"])
    assert {row[1] for row in facts} <= {5, None}
    # the same facts as the first run's round 5, at the same times
    import sqlite3
    db = sqlite3.connect(tmp_path / "seed-4" / "journal.sqlite")
    first = db.execute("SELECT chain, round_id, at, kind, data FROM records WHERE round_id = 5 ORDER BY 1").fetchall()
    assert [row for row in facts if row[1] == 5] == first


def test_stop_at_round_prints_the_rounds_facts(tmp_path):
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", "--seed", "3", "--stop-at-round", "2",
                           "--per-seed", "10", "--work-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["seed"] == 3 and lines[0]["rounds"] == 2
    assert lines[1][3] == "opened" and lines[-1][3] in ("complete", "void") and all(len(row) == 5 for row in lines[1:])


def test_simulation_only_options_are_refused_in_words(tmp_path):
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", "--on", "process", "--stop-at-round", "3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--stop-at-round replays a seed of the simulation" in done.stderr
    done = subprocess.run([sys.executable, "-m", "simulators.cli", "soak", "--resume", "--work-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no campaign to go on with" in done.stderr


def test_a_campaign_cut_short_goes_on_where_it_was_and_its_summary_counts_every_seed(tmp_path):
    """A reboot or a kill in the middle of a long campaign: --resume plays only the seeds its ledger does
    not hold (the one cut short again from its start) and sums all of them; the same seeds' figures as an
    uncut run's. Another campaign's ledger is refused in words, and nothing is played."""
    from simulators.sim.campaign import run
    from simulators.sim.ledger import LEDGER_FILE, LedgerError
    o = CampaignOptions(rounds=30, seed=9, per_seed=10, plan=FaultPlan(fault_rate=0.2), work_dir=str(tmp_path / "a"))
    whole = run(o)
    cut = CampaignOptions(**{**o.__dict__, "work_dir": str(tmp_path / "b")})
    seen: list[int] = []
    run(cut, progress=lambda done, total: seen.append(done), stop=lambda: bool(seen))
    ledger = tmp_path / "b" / LEDGER_FILE
    with ledger.open("a") as f:
        f.write('{"seed": 10, "rounds"')             # the next seed's line, cut short by the crash
    resumed = run(cut, resume=True)
    assert resumed["seeds_resumed"] == 1 and [s["seed"] for s in resumed["seeds"]] == [9, 10, 11]
    played = {s["seed"]: (s["rounds"], s["virtual_s"], s["crashes"]) for s in resumed["seeds"]}
    assert played == {s["seed"]: (s["rounds"], s["virtual_s"], s["crashes"]) for s in whole["seeds"]}
    assert resumed["rounds_closed"] == whole["rounds_closed"] == 30 and resumed["check"] == whole["check"]
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]    # the cut line gone, not merged
    assert [d.get("seed") for d in lines] == [None, 9, 10, 11]
    other = CampaignOptions(**{**cut.__dict__, "seed": 12})
    with pytest.raises(LedgerError, match="other options .*seed"):
        run(other, resume=True)


def test_a_campaign_stopped_early_finishes_its_seed_and_says_what_was_played(tmp_path):
    """A lab ends a long campaign (SIGTERM, Ctrl-C): no seed is begun after, the one under way finishes,
    and the summary counts only what was played (its check whole)."""
    from simulators.sim.campaign import run
    o = CampaignOptions(rounds=30, seed=9, per_seed=10, plan=FaultPlan(fault_rate=0.2), work_dir=str(tmp_path))
    seen: list[int] = []
    doc = run(o, progress=lambda done, total: seen.append(done), stop=lambda: bool(seen))
    assert seen == [10] and doc["rounds_closed"] == 10 and [s["seed"] for s in doc["seeds"]] == [9]
    assert doc["check"]["rounds_in_journal"] == 10 and doc["check"]["coverage_problems"] == []

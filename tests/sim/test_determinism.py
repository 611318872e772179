"""The deterministic simulation: one seed, one journal, fact for fact; faults and crashes on the
seed's schedule; every round settled again; nothing of the wall clock or of threads inside a run."""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import pytest

from controller.app.config import ConfigError, parse_config
from controller.store.journal import Journal
from simulators.sim.check import facts, passed, trail_lines
from simulators.sim.faults import FaultPlan
from simulators.sim.play import play
from simulators.sim.world import JOURNAL_FILE, WorldOptions
from tests.support.rig import config_text

FAULTY = FaultPlan(fault_rate=0.3, crash_rate=0.08, disk_full_rate=0.03, space_after=20.0)


def run(tmp_path, name: str, seed: int, rounds: int = 25, plan: FaultPlan = FAULTY):
    folder = tmp_path / name
    played, _ = play(WorldOptions(seed=seed), folder, rounds, plan=plan)
    return played, facts(folder / JOURNAL_FILE), trail_lines(folder / "audit", folder)


def test_one_seed_twice_gives_the_same_facts_in_the_same_order_at_the_same_times(tmp_path):
    first, facts1, trail1 = run(tmp_path, "a", seed=11)
    second, facts2, trail2 = run(tmp_path, "b", seed=11)
    assert first.rounds == second.rounds == 25 and first.crashes >= 1
    assert len(facts1) > 500 and len(trail1) > 500
    for one, two in zip(facts1, facts2, strict=True):     # chain, where, round, at, kind, data, digest
        assert one == two
    assert trail1 == trail2
    assert first.faults == second.faults and first.virtual_s == second.virtual_s


def test_another_seed_plays_other_rounds(tmp_path):
    _, facts1, _ = run(tmp_path, "a", seed=11, rounds=5, plan=FaultPlan())
    _, facts2, _ = run(tmp_path, "b", seed=12, rounds=5, plan=FaultPlan())
    hands = [[f[5] for f in rows if f[4] == "hand"] for rows in (facts1, facts2)]
    assert hands[0] and hands[1] and hands[0] != hands[1]


def test_faults_and_crashes_lose_and_double_nothing_and_every_round_settles_again(tmp_path):
    played, rows, _ = run(tmp_path, "a", seed=3, rounds=60)
    check = played.check
    assert passed(check), check
    assert check["rounds_in_journal"] == 60 and check["rounds_settled_again"] == check["rounds_complete"] >= 30
    assert check["rounds_void"] >= 1                          # misdeals void their rounds
    assert {"crash", "crash at commit", "disk full", "shoe jam", "past posting", "sign nak"} <= set(played.faults)
    assert any(kind.startswith("misdeal") for kind in played.faults)
    assert played.crashes >= 5
    # a round that stalls (the simulated players lost track of it after a crash: they bet on the Antes
    # unlocking, which a restart in betting does not repeat; or the sensors' snapshot after a restart went
    # unacknowledged, so the table never learned the felt) is voided by the simulated supervisor, as the
    # soak does; it stays rare
    assert len(played.stuck) <= 4 and all(s["round"] for s in played.stuck)
    # a full disk halts the table in words, and it plays on once space returns
    assert played.halts and all("database or disk is full" in why and "call a technician" in why
                                for why in played.halts)
    starts = [row for row in rows if row[4] == "device_online" and '"sign"' in row[5]]
    assert len(starts) >= played.crashes                      # each life met its devices again


def test_nothing_in_a_run_reads_the_wall_clock_or_starts_a_thread(tmp_path, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("the wall clock or a thread, inside a simulated run")
    monkeypatch.setattr(time, "time", refused)
    monkeypatch.setattr(time, "monotonic", refused)
    monkeypatch.setattr(time, "sleep", refused)
    monkeypatch.setattr(threading.Thread, "start", refused)
    played, _ = play(WorldOptions(seed=5), tmp_path / "a", 8, plan=FAULTY, checked=False)
    assert played.rounds == 8


def test_only_the_simulation_lowers_the_journals_durability(tmp_path):
    """The real table's journal is synchronous=FULL, and its configuration has no setting to lower it."""
    journal = Journal(tmp_path / "journal.sqlite")
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2       # FULL
    journal.close()
    text = config_text().replace('[log]', '[data]\ndir = "x"\nsynchronous = "OFF"\n\n[log]')
    with pytest.raises(ConfigError, match="synchronous"):
        parse_config(text, "table.toml", tmp_path)
    played, _ = play(WorldOptions(seed=1), tmp_path / "sim", 1, checked=False)
    db = sqlite3.connect(tmp_path / "sim" / JOURNAL_FILE)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_only_the_simulation_writes_its_audit_trail_without_fsync(tmp_path, monkeypatch):
    """A simulated run fsyncs its trail only with ``durable``; a table's trail (built as
    controller/app/run.py builds it) fsyncs what it writes before a commit vouches for it."""
    from controller.store import audit_sync
    from controller.store.audit import AuditTrail
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(audit_sync.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    play(WorldOptions(seed=1), tmp_path / "sim", 2, checked=False)
    assert synced == []
    play(WorldOptions(seed=1, durable=True), tmp_path / "durable", 2, checked=False)
    assert len(synced) >= 20                    # at each commit that follows new lines
    synced.clear()
    trail = AuditTrail(tmp_path / "table-audit")
    trail.write({"event": "x", "level": "info"})
    trail.close()
    assert synced

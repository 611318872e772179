"""A crash at every journal commit of simulated rounds, on every preset (issue 30: the crash campaign on
the simulation).

The real engine, journal, audit trail and drivers with the simulated devices (simulators/sim); at the
journal's commit N the failpoint ``journal.commit=N:fail`` refuses the commit as a full disk or a
SIGKILL just before it would (simulators/sim/faults.py ``crash_at_commit``), the table halts, the
process is dropped and started again on its folder. Whatever the commit:

- nothing lost and nothing half-written: the facts the journal kept are the uncrashed run's, byte for
  byte, through commit N-1, and a crash one commit later keeps more (each commit point is its own);
- the same round comes back: no round is opened twice or skipped, every round asked closes;
- nothing doubled: every round settles again to what the journal says, every settled position is
  paid once, a void round pays nothing, ``verify`` passes (simulators/sim/check.py).

The default suite crashes at every fourth commit of each preset, offset by the preset's place, so the
four presets together still crash at every commit index; ``-m campaign`` (scripts/run-campaigns)
crashes at every commit of every preset. tests/system/test_crash_points.py is the same campaign on the
round with fake ports, where a crashed round's payments are also compared with the uncrashed round's
(in the simulation a player may bet or decide again what the journal never took).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.rules.paytable import preset_names
from simulators.sim.check import facts, passed
from simulators.sim.play import play
from simulators.sim.world import JOURNAL_FILE, World, WorldOptions

SEED, ROUNDS = 11, 2


def commits_of_the_run(tmp_path: Path, options: WorldOptions) -> range:
    """The commits a crash can be put at: those after the first start's own (the failpoint is armed
    once the table has started), to the last of the uncrashed run."""
    world = World(options, tmp_path / "start")
    world.start()
    first = world.journal.commits + 1
    world.close()
    played, world = play(options, tmp_path / "clean", ROUNDS)
    assert played.rounds == ROUNDS and passed(played.check) and played.crashes == 0
    return range(first, world.journal.commits + 1)


def opened_per_round(journal: Path) -> dict[int, int]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return dict(db.execute("SELECT round_id, count(*) FROM records WHERE kind = 'opened' GROUP BY round_id"))
    finally:
        db.close()


def sampled(commits: range, preset: str) -> list[int]:
    presets = preset_names()
    return [commit for i, commit in enumerate(commits) if i % len(presets) == presets.index(preset)]


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.campaign)], ids=["sample", "every"])
@pytest.mark.parametrize("preset", preset_names())
def test_a_crash_at_any_commit_keeps_every_fact_before_it_and_recovers_the_round(tmp_path, preset, every):
    options = WorldOptions(seed=SEED, preset=preset)
    commits = commits_of_the_run(tmp_path, options)
    assert len(commits) >= 2 * 15                   # two rounds of facts: betting, dealing, decisions, payments
    reference = facts(tmp_path / "clean" / JOURNAL_FILE)
    kept_before = -1
    for at in commits if every else sampled(commits, preset):
        folder = tmp_path / f"crash-{at}"
        played, _ = play(options, folder, ROUNDS, crash_at_commit=at)
        where = f"{preset}: crash at commit {at} of {commits.start}..{commits.stop - 1}"
        assert played.crashes == 1 and played.unexpected_halts == [], where
        assert played.rounds == ROUNDS and passed(played.check), (where, played.check)
        kept = played.kept_through[0]
        got = facts(folder / JOURNAL_FILE)
        before = [fact for fact in got if fact[0] <= kept]
        assert before == reference[:len(before)], where          # the uncrashed run's facts, byte for byte
        assert kept > kept_before, where                         # the commits before this one, all of them
        kept_before = kept
        assert opened_per_round(folder / JOURNAL_FILE) == dict.fromkeys(range(1, ROUNDS + 1), 1), where
        assert played.check["rounds_open"] == 0 and played.check["rounds_in_journal"] == ROUNDS, where

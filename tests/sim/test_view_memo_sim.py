"""Every moment of a simulated campaign with faults and crashes, drawn with what the snapshot keeps
(controller/round/view.py: each position's entry, kept while its inputs are the same) and drawn anew,
is the same (simulation tier). tests/round/test_view_memo.py walks chosen rounds by hand; this walks
what the seeded players, dealer and faults do: every preset's side bets, folds, misdeals, voids,
holds, devices lost and back, restarts from the journal."""

from __future__ import annotations

from typing import Any

import pytest

from controller.round.view import SettlementLines, build_snapshot
from simulators.sim.faults import FaultPlan
from simulators.sim.play import play
from simulators.sim.world import World, WorldOptions

PLAN = FaultPlan(fault_rate=0.25, crash_rate=0.03)


@pytest.mark.parametrize("preset, seed", [("sheet-004", 11), ("sheet-000", 12), ("sheet-002", 13),
                                          ("sheet-003", 14)])
def test_every_simulated_moment_is_the_one_drawn_anew(tmp_path, monkeypatch, preset, seed):
    compared: list[str] = []
    made = World.__init__

    def comparing(world: World, *args: Any, **kwargs: Any) -> None:
        made(world, *args, **kwargs)

        def same_as_anew(snap: dict[str, Any]) -> None:
            engine = world.engine
            assert engine is not None
            anew = build_snapshot(engine.table, SettlementLines())
            anew["halted"], anew["version"] = engine.halted, snap["version"]
            assert snap == anew, f"moment {snap['version']} ({snap['state']}) differs from the one drawn anew"
            felt = engine.table.felt
            assert felt.problems() == felt.problems_now(engine.table.jackpots.super6_closed()), snap["version"]
            compared.append(snap["state"])
        world.observers.append(same_as_anew)

    monkeypatch.setattr(World, "__init__", comparing)
    played, _ = play(WorldOptions(seed=seed, preset=preset), tmp_path, 12, plan=PLAN, checked=False)
    assert played.rounds == 12 and played.crashes >= 1
    assert {"betting", "decisions", "settling", "complete"} <= set(compared), sorted(set(compared))

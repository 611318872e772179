"""Simulated players with think times of their own (issue 30): each position's chips and each Play or
fold reach the table after a seeded think time, so stacks and decisions come in varied orders and at
varied times; without think times every player acts the moment the table changes."""

from __future__ import annotations

import json

from simulators.sim.check import facts, passed
from simulators.sim.play import play
from simulators.sim.world import JOURNAL_FILE, WorldOptions


def decisions(tmp_path, name: str, think) -> tuple[list[list[int]], list[set[str]]]:
    """Each round's positions in the order their decisions were journaled, and the times they were."""
    played, _ = play(WorldOptions(seed=21, players_think=think), tmp_path / name, 20)
    assert played.rounds == 20 and passed(played.check)
    order: dict[int, list[int]] = {}
    times: dict[int, set[str]] = {}
    for _, _, round_id, at, kind, data, _ in facts(tmp_path / name / JOURNAL_FILE):
        if kind == "decision" and json.loads(data)["by"] == "sensor":     # a Play's chips, read
            order.setdefault(round_id, []).append(json.loads(data)["position"])
            times.setdefault(round_id, set()).add(at)
    return list(order.values()), list(times.values())


def test_players_with_think_times_decide_in_varied_orders_and_times(tmp_path):
    orders, times = decisions(tmp_path, "think", (0.2, 2.5))
    several = [o for o in orders if len(o) >= 3]
    assert len(several) >= 5
    assert any(o != sorted(o) for o in several)                 # not always from the dealer's left
    assert all(len(t) == len(o) for o, t in zip(orders, times, strict=True))     # each its own moment


def test_players_without_think_times_play_at_once_in_seat_order(tmp_path):
    orders, times = decisions(tmp_path, "at-once", None)
    several = [o for o in orders if len(o) >= 3]
    assert several and all(o == sorted(o) for o in orders)
    assert any(len(t) < len(o) for o, t in zip(orders, times, strict=True))      # read in the same moment

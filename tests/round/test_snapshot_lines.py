"""The snapshot's pay lines (controller/round/view.py ``SettlementLines``): worked out once per
settlement, though the snapshot is drawn about 35 times a round, and never shared between snapshots."""

from __future__ import annotations

from controller.round import view
from controller.round.view import SettlementLines


def test_a_settlements_lines_are_worked_out_once_and_each_snapshot_gets_its_own_list(monkeypatch):
    worked: list[int] = []

    def lines(seat: dict) -> list[str]:
        worked.append(seat["seat"])
        return [f"Pay Ante at {seat['seat']}"]
    monkeypatch.setattr(view, "settlement_lines", lines)
    memo = SettlementLines()
    first = {"seats": [{"seat": 1}, {"seat": 2}]}
    a, b = memo(first, first["seats"][0]), memo(first, first["seats"][0])
    assert a == b == ["Pay Ante at 1"] and a is not b
    a.append("changed by a reader")
    assert memo(first, first["seats"][0]) == ["Pay Ante at 1"]
    assert memo(first, first["seats"][1]) == ["Pay Ante at 2"]
    assert worked == [1, 2]
    later = {"seats": [{"seat": 1}]}          # a later settlement record is a new dict: worked out again
    assert memo(later, later["seats"][0]) == ["Pay Ante at 1"]
    assert worked == [1, 2, 1]

"""The snapshot's pay lines (controller/round/view.py ``SettlementLines``): worked out once per
settlement, though the snapshot is drawn about 35 times a round, and a copy for each entry drawn (the
entry puts its lines together in it: what one entry does to its copy never reaches another)."""

from __future__ import annotations

from controller.round import view
from controller.round.view import SettlementLines


def test_a_settlements_lines_are_worked_out_once_and_each_snapshot_gets_its_own_list(monkeypatch):
    worked: list[int] = []

    def lines(seat: dict, side_bets_stay: bool) -> list[str]:
        worked.append(seat["seat"])
        return [f"Pay Ante at {seat['seat']}"]
    monkeypatch.setattr(view, "settlement_lines", lines)
    memo = SettlementLines()

    def seat(n: int) -> dict:
        return {"seat": n, "results": {"ante": 500}, "wagers": {"ante": 500}, "play": True, "cap_reduction": 0}
    first = {"seats": [seat(1), seat(2)]}
    a, b = memo(first, first["seats"][0]), memo(first, first["seats"][0])
    assert a == b and a["lines"] == ["Pay Ante at 1"] and a["total"] == "Pay $5.00" and a["lines"] is not b["lines"]
    a["lines"].append("changed by a reader")
    assert memo(first, first["seats"][0])["lines"] == ["Pay Ante at 1"]
    assert memo(first, first["seats"][1])["lines"] == ["Pay Ante at 2"]
    assert worked == [1, 2]
    later = {"seats": [seat(1)]}              # a later settlement record is a new dict: worked out again
    assert memo(later, later["seats"][0])["lines"] == ["Pay Ante at 1"]
    assert worked == [1, 2, 1]

"""A round capped by the maximum aggregate payout counts each wager as it was paid, in the table's
report, its meters and the floor's report alike: the cut off the wager the cap was reached on
(controller/rules/cap.py). The table's per-wager figures counted the 6 Card Bonus before the cut
(with the cut as a line of its own) and the floor's counted it and left the cut out altogether."""

from __future__ import annotations

from datetime import UTC, datetime

from controller.rules.cap import over_cap
from controller.rules.gaming import GamingClock
from controller.store.journal import Journal
from controller.store.recall import meters
from controller.store.report import build_report

CAP = 500_000                   # sheet 004: $5,000, the Super 6 outside it
RESULTS = {"play": 1_000, "ante_bonus": 5_000, "ante": 1_000, "pair_plus": 40_000, "six_card_bonus": 1_000_000,
           "super6": 250_000}


def capped_seat() -> dict:
    """A straight flush against a qualifying dealer, $10 on every spot, and a six-card royal."""
    cut = over_cap(RESULTS, CAP)
    return {"seat": 1, "cap_reduction": cut, "play": True, "cards": "", "hand": "", "net": sum(RESULTS.values()) - cut,
            "six_card": None, "super6_hand": None,
            "wagers": {"ante": 1_000, "pair_plus": 1_000, "six_card_bonus": 1_000, "super6": 1_000},
            "results": dict(RESULTS)}


def settle_capped(journal: Journal) -> tuple[int, dict]:
    """The capped round journaled, settled and complete: its id and its seat."""
    seat = capped_seat()
    rid = journal.open_round("sheet-004")
    journal.append(rid, "settlement", {"id": rid, "preset": "sheet-004", "jackpot_hits": [], "seats": [seat]})
    journal.append(rid, "complete", {})
    return rid, seat


def test_the_tables_report_and_meters_count_each_wager_as_paid(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    try:
        _, seat = settle_capped(journal)
        report = build_report(journal, GamingClock(), datetime.now(UTC).date())
        held = meters(journal)
    finally:
        journal.close()
    assert seat["cap_reduction"] == 547_000
    for figures in (report["wagers"], held["wagers"]):
        assert figures["six_card_bonus"]["paid"] == 1_000_000 - 547_000       # $4,530.00, as the dealer paid it
        assert figures["super6"]["paid"] == 250_000                            # outside the cap: never cut
        assert figures["pair_plus"]["paid"] == 40_000
    # two ways to the money: the wagers' figures, and the seat's net as the settlement made it
    assert report["totals"]["paid"] - report["totals"]["taken"] == seat["net"]
    assert sum(w["paid"] - w["taken"] for w in held["wagers"].values()) == seat["net"]
    assert report["cap_reductions"] == held["cap_reductions"] == 547_000
    # paid out, within the cap but the Super 6: exactly $5,000.00
    assert sum(w["paid"] for spot, w in held["wagers"].items() if spot != "super6") == CAP

"""The round core's side of a linked Super 6 jackpot (docs/floor-jackpot.md), without a floor: the
forwarder's events (the link, the floor's levels, the answers to claims) posted to the real engine
by hand on the bench. What a hit journals and when it is paid, locks and when they are taken,
new values taken between rounds only. Every moment is also drawn anew and compared with the one the
snapshot's memo kept."""

from __future__ import annotations

import json
from typing import Any

from controller.app.config import parse_config
from controller.engine import Engine
from controller.engine_events import FloorJackpots, FloorLink, JackpotClaimed, JournalBehindFloor
from controller.page.i18n import Words
from controller.round.view import SettlementLines, build_snapshot
from controller.store.journal import Journal
from drivers.events import SignShowing
from tests.round.bench import Bench, FakeClock, FakePorts
from tests.support.rig import config_text

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
FLOOR = '\n[floor]\ndsn = "host=floor.invalid dbname=floor"\nuser = "table_t"\njackpot_group = "G-1"\n'


class LinkedBench(Bench):
    def __init__(self, tmp_path):               # Bench's, with a [floor] section on a linked jackpot
        self.config = parse_config(config_text("sheet-004") + FLOOR, "bench.toml", tmp_path)
        self.journal = Journal(tmp_path / "journal.sqlite")
        self.ports = FakePorts(self.journal)
        self.clock = FakeClock()
        self.engine = Engine(self.config, self.journal, self.ports, clock=self.clock)
        self.table = self.engine.table
        self.engine.observers.append(self._same_as_anew)

    def _same_as_anew(self, snap: dict) -> None:
        """Every moment as kept by the snapshot's memo is the one drawn anew (tests/round/test_view_memo.py):
        here with a linked hit's claims, the floor's answers and the settlement stated again."""
        anew = build_snapshot(self.engine.table, SettlementLines())
        anew["halted"], anew["version"] = self.engine.halted, snap["version"]
        assert snap == anew, f"moment {snap['version']} ({snap['state']}) differs from the one drawn anew"

    def table_events(self, kind: str) -> list[dict]:
        return [json.loads(d) for (d,) in self.journal.db.execute(
            "SELECT data FROM table_events WHERE kind = ? ORDER BY seq", (kind,))]

    def sign_shows_values(self) -> None:
        values, locked = self.snap["jackpots"], self.snap["jackpot"]["locked"]
        self.post(SignShowing("sign", {k: v for k, v in values.items() if k not in locked}, ""))


def levels(minor: tuple[int, int, str] = (1, 250_000, "open"), reason: str = "opening") -> dict[str, dict[str, Any]]:
    doc = {lv: {"generation": 1, "value": VALUES[lv], "state": "open"} for lv in ("mega", "major")}
    doc["minor"] = dict(zip(("generation", "value", "state"), minor, strict=True))
    return {lv: dict(d, posted_by="Ana", reason=reason, posted_at="2026-11-22T06:00:00+00:00") for lv, d in doc.items()}


def answer(order: int = 1, winners: int = 1, amount: int = 250_000, final: bool = False) -> dict[str, Any]:
    return {"claim_order": order, "winners": winners, "amount": amount, "generation": 1, "value": 250_000,
            "final": final}


def on_the_floor(tmp_path) -> LinkedBench:
    bench = LinkedBench(tmp_path)
    bench.devices_up()
    assert bench.snap["jackpot"]["super6_closed"].startswith("the floor link is down (the floor has not been reached")
    bench.post(FloorLink(True), FloorJackpots(levels()))
    assert bench.state == "ready" and bench.snap["jackpot"]["generations"] == {"mega": 1, "major": 1, "minor": 1}
    bench.sign_shows_values()
    assert bench.snap["jackpot"]["super6_closed"] is None
    return bench


def test_the_floors_new_values_wait_for_the_round_to_end_and_super6_for_the_sign(tmp_path):
    bench = on_the_floor(tmp_path)
    assert bench.table_events("jackpot_posted")[-1]["by"] == "floor (Ana)"
    bench.open_and_bet({1: {"ante": 500}})
    assert bench.records("opened")[0].data["generations"] == {"mega": 1, "major": 1, "minor": 1}
    bench.post(FloorJackpots(levels((2, 300_000, "open"), reason="promotion")))     # posted on the floor mid-round
    assert bench.snap["jackpots"]["minor"] == 250_000 and len(bench.table_events("jackpot_posted")) == 2
    assert bench.snap["jackpot"]["super6_closed"].startswith("the floor's jackpot values are taken between rounds")
    bench.deal("2d 3c 5s", "9h 8h 4d")
    bench.decide({1: True})
    bench.settle()
    assert bench.state == "complete"                # between rounds: taken now
    posted = bench.table_events("jackpot_posted")[-1]
    assert (posted["values"]["minor"], posted["generations"]["minor"], posted["reason"]) == (300_000, 2, "promotion")
    assert bench.snap["jackpot"]["super6_closed"].startswith("the jackpot sign is not showing the posted values")
    bench.sign_shows_values()
    assert bench.snap["jackpot"]["super6_closed"] is None
    refused = bench.act("set_jackpots", role="supervisor", reason="x", **dict(VALUES, minor=200_000))
    assert not refused.ok and "its values are posted on the floor" in refused.message
    assert "set_jackpots" not in bench.snap["actions"]


def test_a_linked_hit_is_claimed_the_others_are_paid_first_and_it_last_with_the_floors_final_amount(tmp_path):
    bench = on_the_floor(tmp_path)
    bench.open_and_bet({1: {"ante": 500}, 2: {"ante": 500, "super6": 1000}})
    bench.deal("2d 3c 5s", "Ah Kh Qh", "Jh 10h 2c")      # position 2: a royal flush with the dealer's cards
    bench.decide({1: True, 2: True})
    round_id = bench.snap["round"]
    kinds = [r.kind for r in bench.records()]
    assert kinds.index("jackpot_pending") == kinds.index("settlement") + 1     # in the reveal, before any payment
    assert bench.records("jackpot_pending")[0].data == {"jackpot": "minor", "seat": 2, "bet": 1000,
                                                        "share_percent": 100, "generation": 1}
    assert bench.table_events("jackpot_locked") == [{"level": "minor", "generation": 1}]
    assert bench.snap["jackpot"]["locked"] == ["minor"] and bench.ports.sign.asked("show_values")[-1][4] == ("minor",)
    assert bench.snap["jackpot_claims"] == [{"jackpot": "minor", "seat": 2, "bet": 1000, "linked": True,
                                             "generation": 1, "claim": None, "floor": "waiting for the floor",
                                             "amount": None}]
    assert "a supervisor verifies the six cards" in bench.act("confirm", position=1).message
    bench.done("verify_jackpot", role="supervisor", reason="cards checked")
    assert bench.snap["settlement_order"] == [2, 1] and bench.snap["next_to_pay"] == 1     # passed over
    # the page shows no Super 6 amount of the table's own while the floor's is not final
    shown = bench.snap["positions"][1]["settlement"]
    seat = next(s for s in bench.records("settlement")[-1].data["seats"] if s["seat"] == 2)
    assert shown["lines"][-1] == "Super 6: the floor states the amount"
    assert not any(line.startswith("Pay Super 6") for line in shown["lines"])
    assert shown["net"] == seat["net"] - seat["results"]["super6"]
    assert bench.act("confirm", position=2).message == ("position 2's Super 6 jackpot waits for the floor's final "
                                                        "amount; settle position 1 first")
    bench.done("confirm", position=1)
    assert "paid once every table of the group took the lock" in bench.act("confirm", position=2).message
    assert bench.table_events("jackpot_lock_taken") == []               # its own hit is not claimed yet
    bench.post(JackpotClaimed(round_id, "minor", answer()))
    bench.post(JackpotClaimed(round_id, "minor", answer()))             # the same answer again: journaled once
    assert [r.data["amount"] for r in bench.records("jackpot_claimed")] == [250_000]
    assert bench.table_events("jackpot_lock_taken") == [{"level": "minor", "generation": 1}]
    assert "waits for the floor's final amount" in bench.act("confirm", position=2).message
    bench.post(JackpotClaimed(round_id, "minor", answer(winners=2, amount=125_000, final=True)))
    settlement = bench.records("settlement")[-1].data
    seat = next(s for s in settlement["seats"] if s["seat"] == 2)
    assert seat["results"]["super6"] == 125_000 and settlement["jackpot_hits"][0]["winners"] == 2
    bench.done("confirm", position=2)
    assert bench.state == "complete"
    # the dealer does not qualify: position 1's Ante pays even, its Play pushes
    assert [(r.data["position"], r.data["net"]) for r in bench.records("paid")] == [(1, 500), (2, seat["net"])]
    assert bench.snap["jackpot"]["hits"][0]["amount"] == 125_000
    journaled = bench.journal.chain_head
    bench.post(JackpotClaimed(round_id, "minor", answer(winners=2, amount=125_000, final=True)))    # late: ignored
    assert bench.journal.chain_head == journaled


def test_a_lock_is_taken_once_no_round_dealt_before_it_can_still_claim_it(tmp_path):
    bench = on_the_floor(tmp_path)
    bench.open_and_bet({1: {"ante": 500, "super6": 500}})
    bench.deal("2d 3c 5s", "9h 8h 4d")
    bench.post(FloorJackpots(levels((1, 250_000, "pending"))))         # won at another table of the group
    assert bench.table_events("jackpot_locked") == [{"level": "minor", "generation": 1}]
    assert bench.snap["jackpot"]["super6_closed"].startswith("JACKPOT PENDING: MINOR won on the floor")
    assert any(a["kind"] == "jackpot_locked" for a in bench.snap["alerts"])
    assert bench.table_events("jackpot_lock_taken") == []             # this round may still hit MINOR
    bench.decide({1: True})                                           # no hit
    assert bench.table_events("jackpot_lock_taken") == [{"level": "minor", "generation": 1}]
    bench.settle()
    bench.open_and_bet({2: {"ante": 500, "super6": 500}})              # Super 6 stays closed for new wagers
    assert bench.snap["positions"][1]["flags"]["super6"].startswith("Super 6 closed: JACKPOT PENDING")


def test_a_refused_claim_is_said_once_and_pays_nothing(tmp_path):
    bench = on_the_floor(tmp_path)
    bench.open_and_bet({1: {"ante": 500, "super6": 1000}})
    bench.deal("Ah Kh Qh", "Jh 10h 2c")
    bench.decide({1: True})
    bench.done("verify_jackpot", role="supervisor", reason="cards checked")
    # a refusal the floor's administrator can mend (the group missing on the floor) is not referred:
    # the claim is sent again and stands once mended
    mendable = "table T: round 1: the table is in no jackpot group"
    bench.post(JackpotClaimed(bench.snap["round"], "minor", None, mendable))
    assert "call the floor's administrator" in bench.snap["alerts"][-1]["message"]
    not_yet = bench.act("refer_jackpot", role="supervisor", reason="x")
    assert not not_yet.ok and "can be mended by the floor's administrator" in not_yet.message
    assert bench.records("jackpot_referred") == []
    for _ in range(2):
        bench.post(JackpotClaimed(bench.snap["round"], "minor", None, "table T: round 1: dealt under minor "
                                  "generation 1, but the floor posted generation 2 since", True))
    claimed = [r.data for r in bench.records("jackpot_claimed")]
    assert [(d["refused"][:8], d.get("for_good")) for d in claimed] == [("table T:", None), ("table T:", True)]
    assert bench.snap["jackpot_claims"][0]["floor"].startswith("refused by the floor: table T: round 1: dealt")
    assert "waits for the floor's final amount" in bench.act("confirm", position=1).message
    assert sum(a["kind"] == "jackpot_claim" for a in bench.snap["alerts"]) == 2
    assert "a supervisor may settle the round without the linked award" in bench.snap["alerts"][-1]["message"]
    # the way out (casino policy, docs/floor-jackpot.md): a supervisor settles it without the linked award
    as_dealer = bench.act("refer_jackpot", role="dealer", reason="x")            # a supervisor's action
    assert not as_dealer.ok and "supervisor" in as_dealer.message
    assert bench.records("jackpot_referred") == []
    before = next(s for s in bench.records("settlement")[-1].data["seats"] if s["seat"] == 1)
    bench.done("refer_jackpot", role="supervisor", reason="floor refused: stale generation; referred to the pit")
    referred = bench.records("jackpot_referred")[0].data
    assert (referred["jackpot"], referred["seat"], referred["reason"]) == \
        ("minor", 1, "floor refused: stale generation; referred to the pit")
    assert referred["refused"].startswith("table T: round 1: dealt under minor generation 1")
    seat = next(s for s in bench.records("settlement")[-1].data["seats"] if s["seat"] == 1)
    assert seat["results"]["super6"] == 0                                 # the Super 6 wager returned
    assert seat["net"] == before["net"] - before["results"]["super6"]      # the rest as settled
    assert bench.snap["alerts"][-1]["kind"] == "jackpot_referred"
    bench.done("confirm", position=1)
    assert bench.state == "complete"
    assert [(r.data["position"], r.data["net"]) for r in bench.records("paid")] == [(1, seat["net"])]
    assert not bench.act("refer_jackpot", role="supervisor", reason="again").ok
    # recall | settle: the referred hit settles again to what was paid
    from controller.rules.paytable import load_preset
    from controller.rules.roundio import settle_json
    from controller.store.recall import recall_round
    doc = recall_round(bench.journal, bench.snap["round"])
    assert doc["linked"] == {"minor": {"referred": True}}
    again = settle_json(json.loads(json.dumps(doc)), load_preset, None)
    assert [s["net"] for s in again["seats"]] == [s["net"] for s in doc["table"]["results"]] == [seat["net"]]


def test_refer_jackpot_is_refused_when_no_claim_was_refused(tmp_path):
    bench = on_the_floor(tmp_path)
    bench.open_and_bet({1: {"ante": 500, "super6": 1000}})
    bench.deal("Ah Kh Qh", "Jh 10h 2c")
    bench.decide({1: True})
    refused = bench.act("refer_jackpot", role="supervisor", reason="x")
    assert not refused.ok and refused.message == "no linked jackpot claim of this round was refused by the floor"


def test_a_journal_found_behind_the_floor_halts_the_table_in_words(tmp_path):
    """The forwarder found the journal behind the floor's head of it (tests/floor/test_rollback.py):
    the engine journals the alert, then refuses every action with the words (issue 33 item 9)."""
    bench = on_the_floor(tmp_path)
    words = "This table's journal is behind the floor: it ends at record 9, the floor holds ... up to 15"
    bench.post(JournalBehindFloor(words))
    assert bench.snap["halted"] == f"{words}. Nothing more is recorded or paid; call a technician"
    assert [a["message"] for a in bench.table_events("alert") if a["kind"] == "journal_behind_floor"] == [words]
    verdict = bench.act("open_betting")
    assert not verdict.ok and verdict.message == f"The table has stopped: {bench.snap['halted']}"
    # the page in Spanish says the halt's ending in Spanish too (the words before it are the alert's)
    assert Words("es").text(bench.snap["halted"]).endswith("No se registra ni se paga nada más; llame a un técnico")


def test_values_the_table_would_never_post_are_not_taken_from_the_floor(tmp_path):
    """A floor edited by hand (its own functions refuse such values) posted MINOR above MAJOR: the table
    took it, shown and paid. It keeps its values now, closes Super 6 saying why, in English and Spanish,
    and takes the floor's values once they are right again."""
    bench = on_the_floor(tmp_path)
    postings = len(bench.table_events("jackpot_posted"))
    bench.post(FloorJackpots(levels((2, 9_000_000, "open"), reason="typo")))
    closed = bench.snap["jackpot"]["super6_closed"]
    assert closed == ("the floor's jackpot values cannot be taken (MEGA $100,000.00, MAJOR $25,000.00, MINOR "
                      "$90,000.00 are not MEGA >= MAJOR >= MINOR): call the floor's administrator")
    assert Words("es").text(closed).startswith("no se pueden tomar los valores del jackpot de la sala (MEGA")
    assert bench.snap["jackpots"]["minor"] == 250_000 and len(bench.table_events("jackpot_posted")) == postings
    bench.post(FloorJackpots(levels((3, 0, "open"), reason="zero")))
    assert "MINOR is 0, not a whole number of cents from 1 to 1000000000000" in bench.snap["jackpot"]["super6_closed"]
    bench.post(FloorJackpots(levels((4, 300_000, "open"), reason="mended")))       # right again: taken
    assert bench.table_events("jackpot_posted")[-1]["values"]["minor"] == 300_000
    bench.sign_shows_values()
    assert bench.snap["jackpot"]["super6_closed"] is None


def test_a_floor_answer_the_table_could_never_owe_is_refused_not_paid(tmp_path):
    """The floor's final answer was paid as it stood: a claim answer edited by hand on the floor (an amount
    past the hit's part of the value it was dealt under, another generation) would have been paid. It is
    refused now, to be mended on the floor, and a right answer afterwards is paid."""
    bench = on_the_floor(tmp_path)
    bench.open_and_bet({1: {"ante": 500}, 2: {"ante": 500, "super6": 1000}})
    bench.deal("2d 3c 5s", "Ah Kh Qh", "Jh 10h 2c")
    bench.decide({1: True, 2: True})
    round_id = bench.snap["round"]
    bench.done("verify_jackpot", role="supervisor", reason="cards checked")
    bench.done("confirm", position=1)
    bench.post(JackpotClaimed(round_id, "minor", answer(amount=25_000_000, final=True)))
    refused = bench.records("jackpot_claimed")[-1].data
    assert refused["refused"] == ("its answer cannot be paid (its amount 25000000 is not from $0.01 to the "
                                  "$2,500.00 the hit wins alone)") and "for_good" not in refused
    alert = bench.snap["alerts"][-1]["message"]
    assert alert.startswith("The floor refused the MINOR claim of position 2: its answer cannot be paid")
    assert "no se puede pagar" in Words("es").text(alert)
    assert bench.records("settlement")[-1].data["seats"][1]["results"]["super6"] != 25_000_000
    wrong = dict(answer(final=True), generation=7)
    bench.post(JackpotClaimed(round_id, "minor", wrong))
    assert "it answers generation 7, the round was dealt under generation 1" in \
        bench.records("jackpot_claimed")[-1].data["refused"]
    bench.post(JackpotClaimed(round_id, "minor", answer(final=True)))          # mended on the floor: paid
    seat = next(s for s in bench.records("settlement")[-1].data["seats"] if s["seat"] == 2)
    assert seat["results"]["super6"] == 250_000
    bench.done("confirm", position=2)
    assert bench.state == "complete"

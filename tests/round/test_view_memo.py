"""A snapshot drawn with what it kept (controller/round/view.py ``DrawMemo``: each position's entry, and
the table's own parts with the change counters of the parts they read) is the one drawn anew: every
moment of whole rounds (betting, overrides, refused stacks, alerts, holds, folds, settlement, a misdeal
and a void) is drawn both ways on the engine's thread and compared; and an unread moment is drawn
before the next event changes the table (controller/publisher.py). The felt's readings grouped by
position, which both ways read, and the stacks it cannot accept (kept while their inputs are the same)
are checked against the readings at each moment too."""

from __future__ import annotations

from controller.round.view import SettlementLines, build_snapshot
from drivers.events import CommandFailed, ShoeDoor, ShoeJam, SpotFault
from tests.round.bench import Bench

BETS = {1: {"ante": 1000, "pair_plus": 500, "six_card_bonus": 500}, 3: {"ante": 500, "six_card_bonus": 500},
        5: {"ante": 1000, "pair_plus": 1000}}
HANDS = ("As Ad 3c", "2h 7d 9s", "Kh Qh Jh", "Ks 9c 4d")


def checked(tmp_path, preset: str = "sheet-004", **config) -> tuple[Bench, list[int]]:
    bench = Bench(tmp_path, preset, **config)
    compared: list[int] = []

    def same_as_anew(snap: dict) -> None:
        anew = build_snapshot(bench.engine.table, SettlementLines())
        anew["halted"], anew["version"] = bench.engine.halted, snap["version"]
        assert snap == anew, f"moment {snap['version']} ({snap['state']}) differs from the one drawn anew"
        felt, grouped = bench.engine.table.felt, {}               # the felt's kept grouping is its readings now
        for (position, spot), value in felt.readings().items():
            grouped.setdefault(position, []).append((spot, value))
        assert felt.by_position() == {p: tuple(pairs) for p, pairs in grouped.items()}, snap["version"]
        assert felt.problems() == felt.problems_now(bench.engine.table.jackpots.super6_closed()), snap["version"]
        compared.append(snap["version"])
    bench.engine.observers.append(same_as_anew)
    bench.devices_up()
    return bench, compared


def test_every_moment_of_rounds_is_the_one_drawn_anew(tmp_path):
    bench, compared = checked(tmp_path)
    bench.open_and_bet(BETS)
    bench.place(2, "ante", 7)                                   # a stack the table cannot accept: flagged
    bench.remove(2, "ante")
    bench.place(4, "ante", None)                                # chips the sensor cannot read: flagged
    bench.act("override_wager", role="supervisor", who="Sam", position=4, spot="ante", amount=500,
              reason="sensor unread")                           # and the supervisor's reading takes it
    bench.act("override_wager", role="supervisor", who="Sam", position=1, spot="ante", amount=1000,
              reason="counted")                                 # a reading confirmed: the felt the same
    bench.post(SpotFault("sensors", 6, "ante", "blocked"))      # a spot that cannot be read: flagged
    bench.place(6, "ante", 500)                                 # and read again
    bench.remove(6, "ante")
    bench.act("link_positions", position=5, other=6)            # one player on two positions: no record
    bench.act("unlink_positions", position=5)
    bench.place(2, "super6", 500)                               # flagged, and then for another reason:
    bench.post(CommandFailed("sign", "show", "no answer"))      # Super 6 closes (the felt the same)
    bench.remove(2, "super6")
    bench.act("call_supervisor", reason="a question")
    bench.deal(*HANDS[:2], "5c 5d 9h", *HANDS[2:])
    bench.post(ShoeJam("shoe", True, "card stuck", 3), ShoeDoor("shoe", True))     # held twice over
    bench.post(ShoeDoor("shoe", False))                                             # one hold cleared
    assert bench.state == "held" and len(bench.snap["holds"]) == 1
    bench.post(ShoeJam("shoe", False, "", 0))
    bench.decide({1: True, 3: False, 4: True, 5: True})
    bench.settle()
    assert bench.state == "complete"
    for position, spot in list(bench.table.felt.sensed()):     # the felt cleared between rounds
        bench.remove(position, spot)
    bench.open_and_bet({2: {"ante": 500}, 6: {"ante": 500}})
    bench.done("no_more_bets")
    bench.done("deal")
    bench.deliver("As Ad 3c")
    bench.deliver("As Kd 2c")                                   # the ace of spades twice: a misdeal
    assert bench.state == "void"
    bench.post(SpotFault("sensors", 2, "ante", "blocked"))      # a position's alert between rounds
    bench.post(SpotFault("sensors", 3, "pair_plus", "dirty"))   # and a second fault beside it
    assert any("Position 2" in m for m in bench.snap["positions"][1]["problems"])
    assert len(compared) > 40 and compared == sorted(set(compared))


def test_dealers_signing_in_and_out_are_drawn_as_anew(tmp_path):
    """Who is on duty is in the prompt, the actions and the shift: no round record says it."""
    bench, compared = checked(tmp_path, dealer_sign_in=True)
    assert not bench.act("open_betting").ok                     # nobody signed in: refused, and said
    bench.done("sign_in_dealer", who="dealer Ana")
    bench.done("sign_in_dealer", who="dealer Bo")               # the relief
    bench.done("sign_out_dealer", who="dealer Bo")
    assert bench.snap["shift"]["dealer"] is None and "sign_out_dealer" not in bench.snap["actions"]
    bench.done("sign_in_dealer", who="dealer Ana")
    assert bench.snap["prompt"] == ["Open betting"] and len(compared) >= 5


def test_a_moment_nobody_read_is_drawn_before_the_table_changes(tmp_path):
    bench = Bench(tmp_path)                                     # no observer: nothing reads the moments
    bench.devices_up()
    publisher = bench.engine.publisher
    ready = publisher.version
    assert publisher.last_drawn()["version"] < ready            # published, not drawn: nobody read it
    bench.done("open_betting")
    assert publisher.last_drawn()["version"] == ready and publisher.last_drawn()["state"] == "ready"
    assert publisher.version > ready
    assert bench.snap["version"] == publisher.version and bench.snap["state"] == "betting"   # read: drawn now

"""What the dealer is told to pay, take and return at settlement, read through the snapshot (issue 31).

Each case is a round through the engine with fake ports (tests/round/bench.py); the money is checked
against an independent settlement from the sheet's words (tests/rules/reference.py) and against the
identity the snapshot's figures must keep: paid - taken - collected at the fold = the position's net.
"""

from __future__ import annotations

from controller.rules.cards import parse_cards
from controller.rules.paytable import load_preset
from drivers.events import SignShowing
from tests.round.bench import Bench
from tests.rules.reference import reference_settle


def ready(tmp_path, preset: str = "sheet-004", **config) -> Bench:
    bench = Bench(tmp_path, preset, **config)
    bench.devices_up()
    assert bench.state == "ready"
    bench.post(SignShowing("sign", {"mega": 10000000, "major": 2500000, "minor": 250000}, ""))   # Super 6 opens
    return bench


def position(bench: Bench, p: int) -> dict:
    return next(e for e in bench.snap["positions"] if e["position"] == p)


def reference_net(bets: dict, cards: str, dealer: str, play: bool) -> int:
    wagers = {"ante": 0, "pair_plus": 0, "six_card_bonus": 0, "super6": 0, **bets}
    results = reference_settle(load_preset("sheet-004"), parse_cards(dealer), parse_cards(cards), wagers, play, {})
    return sum(results.values())


def check_money(settlement: dict, expected_net: int) -> None:
    """Two ways to the same money: the snapshot's own figures, and an independent settlement."""
    assert settlement["net"] == expected_net
    assert settlement["to_pay"] - settlement["to_take"] - settlement["collected"] == expected_net


# --- item 1: a fold says only what is left to take -------------------------------------------------

FOLD_BETS = {6: {"ante": 1000, "pair_plus": 500, "six_card_bonus": 500}}


def test_a_fold_with_a_6_card_bonus_says_only_what_is_left_to_take(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(FOLD_BETS)
    bench.deal("2h 7d 9s", "Ks 9c 4d")                  # six cards: a pair of Nines, the 6 Card Bonus loses
    bench.decide({6: False})
    settlement = position(bench, 6)["settlement"]
    check_money(settlement, reference_net(FOLD_BETS[6], "2h 7d 9s", "Ks 9c 4d", False))
    assert settlement["collected"] == 1500 and settlement["to_take"] == 500 and settlement["to_pay"] == 0
    assert settlement["total"] == "Take $5.00"          # not the $20.00 the net says: $15.00 went with the cards
    assert "Take 6 Card Bonus $5.00" in settlement["lines"]
    assert not any(line.startswith(("Take Ante", "Take Pair Plus")) for line in settlement["lines"])


def test_a_fold_whose_6_card_bonus_wins_is_paid_it(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(FOLD_BETS)
    bench.deal("9h 9d 2s", "9s Kc 4d")                  # six cards: three Nines, 5 to 1
    bench.decide({6: False})
    settlement = position(bench, 6)["settlement"]
    check_money(settlement, reference_net(FOLD_BETS[6], "9h 9d 2s", "9s Kc 4d", False))
    assert settlement["total"] == "Pay $25.00" and settlement["net"] == 1000


def test_a_fold_with_nothing_in_action_is_not_told_to_take_again(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({6: {"ante": 1000, "pair_plus": 500}, 1: {"ante": 500}})
    bench.deal("2h 7d 9s", "As Ad 3c", "Ks 9c 4d")
    bench.decide({1: True, 6: False})
    settlement = position(bench, 6)["settlement"]
    assert settlement["total"] == "Collected with the cards" and settlement["to_take"] == 0
    check_money(settlement, -1500)


# --- item 5: a net of zero with wagers paid and taken is not a push ----------------------------------

def test_a_zero_net_with_a_wager_paid_and_one_taken_says_both(tmp_path):
    bets = {2: {"ante": 500, "pair_plus": 500}}
    bench = ready(tmp_path)
    bench.open_and_bet(bets)
    bench.deal("As 7d 2c", "Js 9c 4d")                  # the dealer does not qualify: Ante paid, Pair Plus lost
    bench.decide({2: True})
    settlement = position(bench, 2)["settlement"]
    check_money(settlement, reference_net(bets[2], "As 7d 2c", "Js 9c 4d", True))
    assert settlement["net"] == 0 and settlement["total"] == "Pay $5.00 and take $5.00"


def test_a_true_push_is_still_a_push(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({2: {"ante": 500}})
    bench.deal("Kh 9d 4c", "Ks 9c 4d")                  # the same hand as the dealer's: Ante and Play push
    bench.decide({2: True})
    settlement = position(bench, 2)["settlement"]
    assert settlement["total"] == "Push" and settlement["lines"] == ["Push Play", "Push Ante"]


# --- item 4: the sheet's order holds after a restart ----------------------------------------------

def test_after_a_restart_during_settlement_the_lines_keep_the_sheets_order(tmp_path):
    bets = {1: {"ante": 500, "pair_plus": 500}, 2: {"ante": 500}}
    before = ready(tmp_path)
    before.open_and_bet(bets)
    before.deal("As Kd 3c", "7d 7s 9c", "Qh Qd 2s")
    before.decide({1: True, 2: True})
    lines = {p: position(before, p)["settlement"]["lines"] for p in (1, 2)}
    assert lines[1] == ["Take Play $5.00", "Take Ante $5.00", "Take Pair Plus $5.00"]
    before.journal.close()
    after = Bench(tmp_path)
    after.devices_up()
    assert after.state == "settling"
    assert {p: position(after, p)["settlement"]["lines"] for p in (1, 2)} == lines


# --- item 2: a fold's 6 Card Bonus and Super 6 are settled on its cards set aside ----------------------

def test_a_fold_with_side_bets_in_action_sets_its_cards_aside_until_they_are_settled(tmp_path):
    bets = {6: {"ante": 1000, "pair_plus": 500, "six_card_bonus": 500, "super6": 500}, 2: {"ante": 500}}
    bench = ready(tmp_path)
    bench.open_and_bet(bets)
    bench.deal("5h 5d 2c", "9h 9d 2s", "9s 9c 4d")      # position 2, position 6, the dealer: six cards, four Nines
    bench.place(2, "play", 500)
    bench.done("fold", position=6)
    assert bench.state == "collecting"
    assert bench.snap["prompt"] == [
        "Collect the forfeited wagers of position 6: the 6 Card Bonus and Super 6 stay in action",
        "Set the cards of position 6 aside face down: they settle the 6 Card Bonus and Super 6",
        "Then reveal the dealer's hand"]
    folded = position(bench, 6)
    assert folded["set_aside"] and folded["cards"] is None and folded["hand"] is None
    # collecting the Ante and Pair Plus is the procedure; taking the 6 Card Bonus away is not
    bench.remove(6, "ante")
    bench.remove(6, "pair_plus")
    bench.remove(6, "six_card_bonus")
    bench.later(1.0)
    assert [a["message"] for a in bench.snap["alerts"] if a["kind"] == "past_posting"] == [
        "Past posting: position 6 6 Card Bonus removed after No more bets; not accepted (the wager stays $5.00)"]
    bench.place(6, "six_card_bonus", 500)
    bench.done("reveal")
    folded = position(bench, 6)
    assert folded["set_aside"] and folded["cards"] == "9h 9d 2s" and folded["hand"] == "Pair of Nines"
    assert folded["six_cards"] == "9h 9d 2s 9s 9c 4d" and folded["six_card_hand"] == "Four of a Kind"
    settlement = folded["settlement"]
    assert settlement["lines"] == ["Folded: its forfeited wagers were collected with the cards",
                                   "Turn up the cards set aside: Four of a Kind with the dealer's cards",
                                   "Pay 6 Card Bonus $250.00", "Pay Super 6 $200.00"]
    check_money(settlement, -1500 + 25000 + 20000)
    assert settlement["total"] == "Pay $450.00"
    assert position(bench, 2)["six_cards"] is None and position(bench, 2)["set_aside"] is False
    bench.settle()
    assert position(bench, 6)["set_aside"] is False


def test_a_fold_with_no_side_bet_is_collected_with_its_cards(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({3: {"ante": 500, "pair_plus": 500}})
    bench.deal("5h 5d 2c", "9s 9c 4d")
    bench.done("fold", position=3)
    assert bench.snap["prompt"] == ["Collect the folded hands and their wagers: position 3",
                                    "Then reveal the dealer's hand"]
    assert position(bench, 3)["set_aside"] is False


# --- item 8: hand names in the dealer's words ------------------------------------------------------

def test_each_hand_is_named_as_the_dealer_announces_it(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({1: {"ante": 500}, 2: {"ante": 500, "super6": 1000}, 3: {"ante": 500}})
    bench.deal("As 7d 2c", "Kh Kd Ks", "4h 5h 6h", "Kc 9c 4c")
    for p in (1, 2, 3):
        assert position(bench, p)["hand"] is None            # hidden while players decide
    bench.decide({1: True, 2: True, 3: True})
    assert [position(bench, p)["hand"] for p in (1, 2, 3)] == ["Ace high", "Three Kings", "Straight Flush, Six high"]
    assert bench.snap["dealer"]["hand"] == "Flush, King high"
    assert position(bench, 2)["six_card_hand"] == "Four of a Kind"     # with the dealer's King of clubs
    assert position(bench, 2)["settlement"]["lines"][-1] == "Pay Super 6 $400.00"
    assert position(bench, 1)["six_card_hand"] is None                  # no six-card bet there


# --- item 3: chips the table refused are returned, in words, at settlement ------------------------------

def test_chips_the_table_refused_get_a_return_line_and_a_corrected_play_is_no_longer_a_problem(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({1: {"ante": 500}, 3: {"pair_plus": 500}, 4: {"ante": 500, "pair_plus": 500}})
    bench.done("no_more_bets")
    bench.place(6, "six_card_bonus", 500)                # after No more bets, on a position with no wager
    bench.place(4, "pair_plus", 1000)                    # $5.00 added to an accepted Pair Plus
    bench.done("deal")
    for hand in ("As 7d 2c", "Kh Kd 3s", "5c 6d 8h", "Qs 9c 4d"):
        bench.deliver(hand)
    bench.place(3, "play", 500)                          # a Play with no Ante
    bench.place(1, "play", 1000)                         # a Play of the wrong amount, then made right
    assert any("must equal the Ante" in m for m in position(bench, 1)["problems"])
    bench.place(1, "play", 500)
    bench.play(4)
    bench.done("reveal")
    assert position(bench, 1)["problems"] == []          # corrected: no longer red through settlement
    assert position(bench, 6)["returns"] == ["Return $5.00 (6 Card Bonus placed after No more bets) to position 6"]
    assert "Return $5.00 (6 Card Bonus placed after No more bets) to position 6" in bench.snap["prompt"]
    assert position(bench, 3)["settlement"]["lines"][0] == "Return $5.00 (Play placed with no Ante) to position 3"
    assert position(bench, 4)["settlement"]["lines"][0] == ("Return $5.00 (Pair Plus added after No more bets) "
                                                            "to position 4")
    check_money(position(bench, 4)["settlement"], reference_net({"ante": 500, "pair_plus": 500}, "5c 6d 8h",
                                                               "Qs 9c 4d", True))
    assert position(bench, 1)["returns"] == [] and position(bench, 1)["settlement"]["lines"][0] == "Pay Play $5.00"
    before = {p: position(bench, p)["settlement"]["lines"] for p in (1, 3, 4)}
    bench.journal.close()
    after = Bench(tmp_path)                             # journaled at the reveal: the same after a restart
    after.devices_up()
    assert {p: position(after, p)["settlement"]["lines"] for p in (1, 3, 4)} == before
    assert position(after, 6)["returns"] == position(bench, 6)["returns"]


def test_six_cards_that_make_no_hand_are_said_as_a_dealer_says_it():
    """Not "with the dealer's, No hand" (issue 31, item 4)."""
    from controller.rules.words import settlement_lines
    seat = {"seat": 2, "wagers": {"ante": 500, "six_card_bonus": 500}, "play": False, "six_card": "high_card",
            "super6_hand": None, "results": {"ante": -500, "six_card_bonus": -500}, "cap_reduction": 0}
    assert settlement_lines(seat)[:2] == ["Folded: its forfeited wagers were collected with the cards",
                                         "Turn up the cards set aside: no six-card hand with the dealer's cards"]

"""Irregular rounds as a busy shift plays them, through the engine with fake ports (tests/round/bench.py):
touches out of turn, chips moved after the decision, devices lost and back, a fault outliving its round.
Each says what the dealer is told and what the journal holds."""

from __future__ import annotations

from drivers.events import DeviceOffline, DeviceOnline, FeltRead, ShoeJam, ShoeMiscounted, SignShowing, SpotFault
from tests.round.test_round_core import BETS, HANDS, ready


def test_a_second_confirm_or_a_position_with_nothing_to_settle_is_refused_in_its_own_words(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.decide({1: True, 3: False, 5: True})
    bench.done("confirm", position=5)
    # the page's touch sent twice: the position is settled, not "to be settled first"
    assert bench.act("confirm", position=5).message == "position 5 is already settled; settle position 1 next"
    # the fold was collected with its cards before the reveal
    assert bench.act("confirm", position=3).message == "position 3 is already settled; settle position 1 next"
    assert bench.act("confirm", position=2).message == "position 2 has nothing to settle; settle position 1 next"
    assert [r.data["position"] for r in bench.records("paid")] == [3, 5]      # nothing paid twice
    bench.done("confirm", position=1)
    assert bench.state == "complete"


def past_posting(bench) -> list[str]:
    return [r.data["message"] for r in bench.records("alert") if r.data["kind"] == "past_posting"]


def test_chips_taken_from_or_added_to_a_play_once_made_are_past_posting(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.play(1)
    bench.place(1, "play", 500)         # half the Play taken back once the decision is made
    assert past_posting(bench) == ["Past posting: position 1 Play changed to $5.00 after No more bets; not accepted "
                                   "(the wager stays $10.00)"]
    bench.place(1, "play", 1000)        # put back as it was: nothing more to say
    bench.play(5)
    bench.remove(5, "play")
    bench.later(1)                      # still gone after the debounce
    assert past_posting(bench)[1:] == ["Past posting: position 5 Play removed after No more bets; not accepted "
                                       "(the wager stays $10.00)"]
    bench.place(5, "play", 1000)
    bench.decide({3: False})
    assert len(past_posting(bench)) == 2 and bench.records("settlement")[0].data["returns"] == []


def test_a_play_put_out_after_a_fold_is_refused_and_taking_it_back_is_no_offence(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.done("fold", position=3)
    bench.place(3, "play", 500)
    bench.remove(3, "play")
    bench.later(1)
    assert past_posting(bench) == ["Position 3 Play placed after the decision (folded); not accepted"]


def test_a_round_held_for_the_sensors_goes_on_only_once_they_have_read_the_felt_again(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.post(DeviceOffline("sensors", "fake://sensors", "cable"))
    assert bench.state == "held"
    # position 3 puts out its Play while the sensors are away; they come back and read the felt
    bench.post(DeviceOnline("sensors", "fake://sensors"))
    assert bench.state == "held" and bench.snap["holds"] == [
        "The bet sensors are back and reading every spot (asked again until they do); if it lasts, call a technician"]
    assert bench.act("fold", position=3).message == "fold is not possible while held"   # not on the felt before
    bench.place(3, "play", 500)
    bench.post(FeltRead("sensors"))
    assert bench.state == "decisions" and bench.snap["holds"] == []
    assert [(r.data["position"], r.data["play"]) for r in bench.records("decision")] == [(3, True)]
    assert past_posting(bench) == []


def test_a_spot_that_held_the_last_round_does_not_hold_a_round_without_a_wager_on_it(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.decide({1: True, 3: False, 5: True})
    bench.post(SpotFault("sensors", 1, "ante", "blocked"))     # while position 1's Ante is settled
    bench.settle()
    for position, spot in bench.table.felt.sensed():           # the felt cleared; spot 1 Ante reads nothing
        if (position, spot) != (1, "ante"):
            bench.remove(position, spot)
    bench.open_and_bet({3: {"ante": 500}})
    assert bench.act("no_more_bets").message.startswith("position 1 Ante: the sensor reports blocked")
    bench.done("override_wager", role="supervisor", position=1, spot="ante", amount=0, reason="nothing on it")
    bench.deal("2h 7d 9s", "Ks 9c 4d")
    assert bench.state == "decisions" and bench.snap["holds"] == []


def test_a_round_of_pair_plus_alone_is_not_said_to_have_every_position_played(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({2: {"pair_plus": 500}, 4: {"pair_plus": 1000}})
    bench.deal("As Ad 3c", "2h 7d 9s", "Ks 9c 4d")
    assert bench.state == "collecting"      # no Ante: no decision to wait for
    assert bench.snap["prompt"] == ["No position has an Ante: nothing to play or fold", "Reveal the dealer's hand"]
    bench.done("reveal")
    bench.settle()
    assert [(r.data["position"], r.data["net"]) for r in bench.records("paid")] == [(4, -1000), (2, 500)]


def test_a_jackpot_won_while_the_sign_is_away_is_shown_on_it_when_it_is_back(tmp_path):
    bench = ready(tmp_path)
    bench.post(SignShowing("sign", {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}, ""))
    bench.open_and_bet({2: {"ante": 1000, "super6": 1000}})
    bench.done("no_more_bets")
    bench.done("deal")
    bench.post(DeviceOffline("sign", "fake://sign", "cable"))      # the sign lost mid-round: play goes on
    bench.deliver("Ad Kd Qd")
    bench.deliver("Jd 10d 9d")
    bench.decide({2: True})
    bench.done("verify_jackpot", role="supervisor", reason="six cards checked")
    bench.settle()
    assert bench.state == "complete" and bench.records("paid")[0].data["net"] == 1000 + 4000 + 1000 + 10_000_000
    bench.ports.sign.calls.clear()
    bench.post(DeviceOnline("sign", "fake://sign"))
    assert bench.ports.sign.asked("show_values") == [(10_000_000, 2_500_000, 250_000, ("mega",), ())]
    assert bench.ports.sign.asked("show_message") == [("MEGA JACKPOT POSITION 2 $100,000.00",)]
    # the new value posted while the sign is away again: back, it shows the values and no win
    bench.post(DeviceOffline("sign", "fake://sign", "cable"))
    bench.done("set_jackpots", role="supervisor", reason="reseed after the MEGA", mega=10_000_000,
               major=2_500_000, minor=250_000)
    bench.ports.sign.calls.clear()
    bench.post(DeviceOnline("sign", "fake://sign"))
    assert bench.ports.sign.asked("show_values") == [(10_000_000, 2_500_000, 250_000, (), ())]
    assert bench.ports.sign.asked("show_message") == [("",)]


def test_the_shoes_count_error_while_a_hold_stops_the_deal_is_still_a_misdeal(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.done("no_more_bets")
    bench.done("deal")
    bench.deliver(HANDS[0])
    bench.post(ShoeJam("shoe", True, "card stuck at the exit", 3))
    assert bench.state == "held"
    bench.post(ShoeMiscounted("shoe", "count error: 50 cards"))      # the jam cost the deck a card
    assert bench.state == "void" and bench.records("void")[0].data == {
        "reason": "the shoe reports a count error (count error: 50 cards)", "by": "controller"}
    assert bench.snap["prompt"][:2] == ["Round void: the shoe reports a count error (count error: 50 cards)",
                                        "Return all wagers"]


def test_a_round_voided_after_the_folds_were_collected_says_what_to_return_from_the_rack(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.play(1)
    bench.done("fold", position=3)
    assert bench.snap["prompt"] == ["Position 5: play or fold"]
    bench.play(5)
    bench.remove(3, "ante")                 # collected with its cards, as the prompt says
    bench.later(1)
    bench.done("void_round", role="supervisor", reason="the dealer's cards were exposed")
    assert bench.snap["prompt"] == ["Round void: the dealer's cards were exposed", "Return all wagers",
                                    "Return $5.00 to position 3: its wagers were collected with its fold",
                                    "Open betting"]
    assert bench.records("paid") == []      # nothing settled


def test_a_misdeal_before_the_folds_are_collected_returns_them_from_the_felt(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.done("fold", position=3)
    bench.done("misdeal", reason="a card of position 5 was exposed")
    assert bench.snap["prompt"] == ["Round void: a card of position 5 was exposed", "Return all wagers", "Open betting"]

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.settlement import SeatHand, SettlementError, Wagers, settle_round, split_jackpot
from controller.rules.spots import PAY_ORDER
from tests.rules.reference import reference_settle

P = parse_cards
POSTED = {"mega": 25_000_000, "major": 5_000_000, "minor": 1_000_000}


def one(preset, dealer, cards, wagers, play=True, jackpots=POSTED):
    result = settle_round(preset, P(dealer), [SeatHand(1, P(cards), wagers, play)], jackpots)
    return result, result.seats[0]


def test_results_come_in_house_pay_order(p004):
    _, seat = one(p004, "Qs 7h 2d", "As Ks Qh", Wagers(500, 500, 500, 500))
    assert tuple(seat.results) == PAY_ORDER == ("play", "ante_bonus", "ante", "pair_plus",
                                                "six_card_bonus", "super6")


def test_dealer_not_qualifying_pays_ante_pushes_play(presets):
    r, seat = one(presets["sheet-000"], "Js 7h 2d", "3c 4d 9h", Wagers(ante=1000), True)
    assert not r.dealer_qualifies
    assert seat.results["ante"] == 1000 and seat.results["play"] == 0 and seat.net == 1000


def test_qualifying_dealer_compared(presets):
    p = presets["sheet-000"]
    _, win = one(p, "Qs 7h 2d", "Ks 3h 2c", Wagers(ante=500))
    _, lose = one(p, "Qs 7h 2d", "Qh 7c 2c", Wagers(ante=500))   # tie on every rank
    _, loses = one(p, "Qs 8h 2d", "Qh 7c 2c", Wagers(ante=500))
    assert (win.results["ante"], win.results["play"]) == (500, 500)
    assert (lose.results["ante"], lose.results["play"], lose.net) == (0, 0, 0)
    assert (loses.results["ante"], loses.results["play"]) == (-500, -500)


def test_ante_bonus_whatever_the_dealer_holds_but_only_when_played(presets):
    p = presets["sheet-002"]                                     # 5-4-1
    _, seat = one(p, "Ks Qs Js", "2c 3c 4c", Wagers(ante=500))    # loses to a higher SF; bonus 5:1
    assert seat.results == {"play": -500, "ante_bonus": 2500, "ante": -500, "pair_plus": 0,
                            "six_card_bonus": 0, "super6": 0}
    _, folded = one(p, "Ks Qs Js", "2c 3c 4c", Wagers(ante=500), play=False)
    assert folded.results["ante_bonus"] == 0 and folded.net == -500


def test_fold_loses_ante_and_pair_plus_but_side_bets_stay(p004):
    _, seat = one(p004, "Kd Qd Jd", "Td 9d 2s", Wagers(500, 500, 500, 500), play=False)
    assert seat.results["ante"] == -500 and seat.results["pair_plus"] == -500
    assert seat.results["six_card_bonus"] == 500 * 200                 # K-high straight flush
    assert seat.results["super6"] == 37500


def test_side_bets_die_with_a_fold_when_the_preset_says_so(p004):
    from dataclasses import replace
    strict = replace(p004, side_bets_stay_after_fold=False)
    _, seat = one(strict, "Kd Qd Jd", "Td 9d 2s", Wagers(500, 500, 500, 500), play=False)
    assert seat.results["six_card_bonus"] == -500 and seat.results["super6"] == -500
    r, seat = one(strict, "Ad Kd Qd", "Jd Td 9d", Wagers(500, 0, 0, 500), play=False)
    assert seat.results["super6"] == -500 and r.jackpot_hits == ()


def test_pair_plus_regardless_of_dealer(presets):
    _, seat = one(presets["sheet-003"], "As Ah Ad", "7c 7d 7h", Wagers(ante=100, pair_plus=100))
    assert seat.results["pair_plus"] == 2500 and seat.results["ante"] == -100


def test_pair_plus_only_needs_no_decision(presets):
    _, seat = one(presets["sheet-000"], "As Ah Kd", "7c 7d 2h", Wagers(pair_plus=300), play=False)
    assert seat.net == 300


def test_super6_jackpot_shares_by_bet_size(p004):
    r, seat = one(p004, "Ad Kd Qd", "Jd Td 9d", Wagers(ante=500, super6=500))
    assert seat.results["super6"] == POSTED["mega"] // 2
    assert r.jackpot_hits[0].jackpot == "mega" and r.jackpot_hits[0].winners == 1
    _, seat = one(p004, "Ah Kh Qh", "Jh Th 9h", Wagers(ante=1000, super6=1000))
    assert seat.results["super6"] == POSTED["major"]
    _, seat = one(p004, "Ah Kh Qh", "Jh Th 2c", Wagers(ante=1000, super6=1000))
    assert seat.results["super6"] == POSTED["minor"]


def test_jackpot_hit_without_posted_value_is_an_error(p004):
    with pytest.raises(SettlementError, match=r"seat 1: Super 6 MINOR hit needs the posted jackpots.minor"):
        one(p004, "Ah Kh Qh", "Jh Th 2c", Wagers(ante=1000, super6=1000), jackpots={})


def test_split_jackpot_between_several_winners():
    assert split_jackpot(1_000_001, [100]) == [1_000_001]
    assert split_jackpot(1_000_001, [100, 100]) == [500_001, 500_000]
    assert split_jackpot(1_000_000, [50, 100]) == [250_000, 500_000]
    assert split_jackpot(7, [100, 100, 100]) == [3, 2, 2]
    assert split_jackpot(1_000, []) == []


@given(st.integers(1, 10**10), st.lists(st.sampled_from([50, 100]), min_size=1, max_size=8))
def test_split_never_pays_more_than_the_jackpot(posted, shares):
    paid = split_jackpot(posted, shares)
    assert sum(paid) <= posted
    if all(s == 100 for s in shares):
        assert sum(paid) == posted
    # Each winner's part of the posted value is an equal split give or take one cent.
    base = posted // len(shares)
    for p, share in zip(paid, shares, strict=True):
        assert base * share // 100 <= p <= (base + 1) * share // 100
    if all(s == 100 for s in shares):
        assert max(paid) - min(paid) <= 1


def test_maximum_aggregate_payout_caps_wins_but_not_super6(p004):
    # Ten-dollar royal flush in the 6 Card Bonus pays $10,000: capped at $5,000.
    _, seat = one(p004, "Ah Kh 2c", "Qh Jh Th", Wagers(1000, 1000, 1000, 1000))
    wins = sum(v for k, v in seat.results.items() if v > 0 and k != "super6")
    assert seat.results["six_card_bonus"] == 1_000_000
    assert seat.cap_reduction == wins - 500_000
    assert seat.net == sum(seat.results.values()) - seat.cap_reduction
    assert seat.results["super6"] == POSTED["minor"]                  # outside the cap
    assert seat.net - seat.results["super6"] <= 500_000


def test_no_cap_without_the_rule(presets):
    _, seat = one(presets["sheet-003"], "Ah Ad 2c", "Kh Qh Jh", Wagers(ante=10000, pair_plus=10000))
    assert seat.cap_reduction == 0 and seat.results["pair_plus"] == 350000


@pytest.mark.parametrize("wagers, message", [
    (Wagers(ante=100), "seat 1: ante 100 is below the minimum 200"),
    (Wagers(ante=1100), "seat 1: ante 1100 is above the maximum 1000"),
    (Wagers(ante=500, six_card_bonus=500), "seat 1: six_card_bonus is not offered by preset sheet-000"),
    (Wagers(ante=-5), "seat 1: ante -5 is negative"),
])
def test_wagers_outside_the_rules_are_refused(presets, wagers, message):
    with pytest.raises(SettlementError, match=message):
        one(presets["sheet-000"], "Qs 7h 2d", "As Ks Qh", wagers)


def test_super6_size_without_awards_is_refused(p004):
    with pytest.raises(SettlementError, match=r"super6 700 is not a bet size with awards \(500, 1000\)"):
        one(p004, "Qs 7h 2d", "As Ks Qh", Wagers(ante=500, super6=700))


def test_bad_deals_are_refused(p004):
    with pytest.raises(SettlementError, match="card Qs is in both dealer and seat 1"):
        one(p004, "Qs 7h 2d", "Qs Ks 2h", Wagers(ante=500))
    with pytest.raises(SettlementError, match="seat 1: 2 cards, expected 3"):
        settle_round(p004, P("Qs 7h 2d"), [SeatHand(1, P("As Ks"), Wagers(ante=500), True)])
    with pytest.raises(SettlementError, match="dealer: 4 cards"):
        settle_round(p004, P("Qs 7h 2d 3d"), [])
    with pytest.raises(SettlementError, match="seat 1: play without an Ante"):
        one(p004, "Qs 7h 2d", "As Ks Qh", Wagers(pair_plus=500), True)
    seats = [SeatHand(1, P("As Ks Qh"), Wagers(ante=500), True),
             SeatHand(1, P("2s 3s 4h"), Wagers(ante=500), True)]
    with pytest.raises(SettlementError, match="seat 1: listed twice"):
        settle_round(p004, P("Qs 7h 2d"), seats)


def test_seats_settle_from_the_dealers_right(p004):
    seats = [SeatHand(n, P(c), Wagers(ante=500), True)
             for n, c in ((1, "2c 3c 5d"), (6, "9h 9d 4c"), (3, "Kh Ks 4d"))]
    r = settle_round(p004, P("Qs 7h 2d"), seats)
    assert [s.seat for s in r.seats] == [6, 3, 1]


# --- properties ----------------------------------------------------------------

def deal_strategy(seats):
    return st.permutations(range(52)).map(lambda d: (d[:3], [d[3 + 3 * i: 6 + 3 * i] for i in range(seats)]))


wager_choice = st.sampled_from([0, 500, 1000])


@settings(max_examples=400)
@given(deal_strategy(6), st.lists(st.tuples(wager_choice, wager_choice, wager_choice, wager_choice,
                                            st.booleans()), min_size=6, max_size=6))
def test_matches_reference_settlement(p004, deal, bets):
    dealer, hands = deal
    seats = [SeatHand(i + 1, tuple(h), Wagers(*b[:4]), b[4] and b[0] > 0)
             for i, (h, b) in enumerate(zip(hands, bets, strict=True))]
    result = settle_round(p004, dealer, seats, POSTED)
    for seat, r in zip(sorted(seats, key=lambda s: -s.seat), result.seats, strict=True):
        expected = reference_settle(p004, dealer, seat.cards, seat.wagers.as_dict(), seat.play, POSTED)
        assert r.results == expected
        assert r.net == sum(expected.values()) - r.cap_reduction


@settings(max_examples=300)
@given(deal_strategy(1), st.sampled_from(["sheet-000", "sheet-002", "sheet-003", "sheet-004"]),
       st.booleans())
def test_money_accounting(presets, deal, name, play):
    """A seat never loses more than it staked, and a push is returned exactly."""
    p = presets[name]
    dealer, (hand,) = deal
    wagers = Wagers(ante=p.limits["ante"].max, pair_plus=p.limits["pair_plus"].min)
    seat = settle_round(p, dealer, [SeatHand(1, tuple(hand), wagers, play)], POSTED).seats[0]
    assert seat.net >= -seat.staked
    for spot, value in seat.results.items():
        if spot == "ante_bonus":
            assert value >= 0
    if not play:
        assert seat.results["ante"] == -wagers.ante and seat.results["play"] == 0


@settings(max_examples=300)
@given(deal_strategy(1))
def test_swapping_equal_hands_changes_nothing(p004, deal):
    """Two hands of equal rank (suits changed) settle to the same money."""
    dealer, (hand,) = deal
    remap = [(c // 4) * 4 + (3 - c % 4) for c in range(52)]          # swap suits c<->s, d<->h
    mirrored_dealer = tuple(remap[c] for c in dealer)
    mirrored_hand = tuple(remap[c] for c in hand)
    w = Wagers(ante=500, pair_plus=500, six_card_bonus=500)
    a = settle_round(p004, dealer, [SeatHand(1, tuple(hand), w, True)]).seats[0]
    b = settle_round(p004, mirrored_dealer, [SeatHand(1, mirrored_hand, w, True)]).seats[0]
    assert a.results == b.results


@settings(max_examples=300)
@given(deal_strategy(1))
def test_player_and_dealer_swapped_mirror_the_showdown(p004, deal):
    """Against a qualifying dealer, swapping the two hands swaps the winner."""
    dealer, (hand,) = deal
    w = Wagers(ante=500)
    a = settle_round(p004, dealer, [SeatHand(1, tuple(hand), w, True)])
    b = settle_round(p004, tuple(hand), [SeatHand(1, tuple(dealer), w, True)])
    assume(a.dealer_qualifies and b.dealer_qualifies)
    ra, rb = a.seats[0].results, b.seats[0].results
    assert ra["play"] == -rb["play"] and ra["ante"] == -rb["ante"]

"""The settlement against the lab's own reading of the four rule sheets (tests/rules/sheet_reading.py).

A seeded sample of the exhaustive comparison ``scripts/sheet-lab`` runs (every 3-card hand against
chosen dealer hands, played and folded, on every preset), then the edges chosen on purpose: A-2-3,
a queen-high dealer and a jack-high one, ties, the maximum aggregate payout exactly reached, one
cent over it, and several positions capped in one round.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from controller.rules.cards import parse_cards
from controller.rules.settlement import SeatHand, Wagers, settle_round
from tests.rules.sheet_check import ALL_HANDS, POSTED, check_hands, check_one
from tests.rules.sheet_reading import SHEETS, hand3, key3, settle_seat

P = parse_cards
DEALERS = ("Qc 7d 2h", "Js 9d 7h", "Ah 2c 3d", "2s 2d 5c", "Kd Qd Jd", "9s Ts Js", "Qh Qs 4d")
PRESETS = sorted(SHEETS)


@pytest.mark.parametrize("name", PRESETS)
def test_a_sample_of_every_hand_settles_as_the_sheet_reads(presets, name):
    hands = random.Random(name).sample(ALL_HANDS, 400 if name == "sheet-004" else 700)
    problems = list(check_hands(presets[name], [tuple(P(d)) for d in DEALERS], hands))
    assert problems == []


def test_the_reading_ranks_as_the_sheets_say():
    assert hand3(P("Ah 2c 3d"))[0] == "straight" and key3(P("Ah 2c 3d")) < key3(P("2h 3c 4d"))
    assert key3(P("Qh Kc Ad")) > key3(P("Jh Qc Kd"))
    assert hand3(P("Kh Ac 2d"))[0] == "high"                           # no wrap-around
    assert key3(P("9h 9c Ad")) > key3(P("9s 9d Kd"))                   # the kicker decides
    assert key3(P("Ah 7h 2h")) == key3(P("As 7s 2s"))                  # suits never rank


@pytest.mark.parametrize(("dealer", "player", "ante", "play"), [
    ("Qc 7d 2h", "Kc 3d 4s", 1000, 1000),      # a queen-high dealer qualifies: compared, the player wins
    ("Qc 7d 2h", "Qs 7h 2c", 0, 0),            # ... and an equal hand pushes both
    ("Qc 8d 2h", "Qs 7h 2c", -1000, -1000),    # ... and loses on the second card
    ("Jc 9d 7h", "3c 4d 8s", 1000, 0),         # jack high does not qualify: Ante 1:1, Play pushes
    ("Ah 2c 3d", "2h 3c 4d", 1000, 1000),      # A-2-3 is the lowest straight
    ("Ah 2c 3d", "As 2d 3h", 0, 0),            # ... and ties another: both push (the Ante Bonus is paid apart)
])
def test_edges_of_the_showdown(presets, dealer, player, ante, play):
    for name in PRESETS:
        seat = settle_round(presets[name], P(dealer), [SeatHand(1, P(player), Wagers(ante=1000), True)]).seats[0]
        want, _ = settle_seat(SHEETS[name], P(dealer), P(player), ante=1000, play=True)
        assert seat.results == want
        assert (seat.results["ante"], seat.results["play"]) == (ante, play)


def _royal(preset, six: int, ante: int = 0, pair_plus: int = 0, play: bool = False):
    """Position 1 holds Ad Kd Qd against Jd 10d 3c: a royal flush on six cards."""
    seats = [SeatHand(1, P("Ad Kd Qd"), Wagers(ante, pair_plus, six, 0), play)]
    return settle_round(preset, P("Jd Td 3c"), seats).seats[0]


def test_the_cap_exactly_reached_takes_nothing_and_one_cent_over_takes_one_cent(p004):
    at = _royal(p004, 500)                                      # a $5 royal: 1,000 to 1 is exactly $5,000
    assert at.results["six_card_bonus"] == 500_000 and at.cap_reduction == 0 and at.net == 500_000
    over = _royal(replace(p004, max_aggregate_payout=499_999), 500)
    assert over.cap_reduction == 1 and over.net == 499_999
    folded = _royal(p004, 500, ante=500, pair_plus=500)         # the fold's losses are taken, not capped
    assert folded.net == 500_000 - 1000 and folded.cap_reduction == 0


def test_the_cap_counts_every_winning_wager_but_super6(p004):
    seat = _royal(p004, 1000, ante=1000, pair_plus=1000, play=True)
    won = 1000 * 4 + 1000 + 1000 * 40 + 1000 * 1000             # bonus, Ante (dealer J-high), Pair Plus, 6 Card
    assert seat.cap_reduction == won - 500_000 and seat.net == 500_000
    mega = settle_round(p004, P("Jd Td 9d"), [SeatHand(1, P("Ad Kd Qd"), Wagers(1000, 0, 1000, 1000), True)],
                        POSTED).seats[0]
    assert mega.results["super6"] == POSTED["mega"] and mega.net == 500_000 + POSTED["mega"]


def test_several_positions_are_capped_each_on_its_own(p004):
    low = replace(p004, max_aggregate_payout=2_000)             # a house cap every winner reaches
    seats = [SeatHand(2, P("Ad Kd Qd"), Wagers(1000, 1000), True),         # SF: Pair Plus, bonus, Ante
             SeatHand(5, P("7c 7h 7s"), Wagers(1000, 1000, 1000), True),   # trips: bonus, Ante, Pair Plus, 6 Card
             SeatHand(6, P("4c 5h 6s"), Wagers(1000), True)]               # straight: bonus 1, Ante 1
    result = settle_round(low, P("Jd Td 3c"), seats)
    assert [s.seat for s in result.seats] == [6, 5, 2]                     # from the dealer's right
    for got, seat in zip(result.seats, sorted(seats, key=lambda s: -s.seat), strict=True):
        w = seat.wagers
        want, cut = settle_seat(replace(SHEETS["sheet-004"], cap=2_000), P("Jd Td 3c"), seat.cards, w.ante,
                                w.pair_plus, w.six_card_bonus, w.super6, seat.play)
        assert (got.results, got.cap_reduction) == (want, cut)
        assert sum(v for k, v in got.results.items() if v > 0 and k != "super6") - got.cap_reduction <= 2_000
    assert [s.net for s in result.seats] == [2_000, 2_000, 2_000]


def test_one_seat_checked_both_ways(p004):
    assert check_one(p004, tuple(P("Kd Qd Jd")), tuple(P("Ad Td 9d")), Wagers(501, 1000, 1000, 1000), True) == []
    assert check_one(p004, tuple(P("Kd Qd Jd")), tuple(P("Ad Td 9d")), Wagers(501, 1000, 1000, 500), False) == []


def test_the_cut_comes_off_the_wagers_paid_last_and_never_the_super6():
    from controller.rules.cap import paid_after_cap
    results = {"play": 1000, "ante_bonus": 4000, "ante": 1000, "pair_plus": 40000, "six_card_bonus": 3000,
               "super6": 75000}
    paid = paid_after_cap(results, 45000)           # a house cap of $40.00: 49,000 won outside the Super 6
    assert list(paid) == ["play", "ante_bonus", "ante", "pair_plus", "six_card_bonus", "super6"]
    assert paid == {"play": 1000, "ante_bonus": 3000, "ante": 0, "pair_plus": 0, "six_card_bonus": 0,
                    "super6": 75000}
    assert sum(paid.values()) == sum(results.values()) - 45000
    assert paid_after_cap({"ante": -500, "six_card_bonus": 600_000}, 100_000)["ante"] == -500   # losses stand

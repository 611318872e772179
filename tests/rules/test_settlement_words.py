"""What the dealer is told to move at a position (issue 31 items 1, 4, 5): a fold's forfeits are not
taken twice, a payment and a take that cancel out are both named, and the lines keep the sheet's
pay order however the results were read back. Cross-checked against the settlement's net."""

from __future__ import annotations

import json

from controller.rules.cards import parse_cards
from controller.rules.paytable import load_preset
from controller.rules.roundio import seat_json
from controller.rules.settlement import SeatHand, Wagers, settle_round
from controller.rules.words import FORFEITED_AT_FOLD, settlement_lines, settlement_moves


def _seat(dealer: str, cards: str, play: bool, **wagers: int) -> dict:
    preset = load_preset("sheet-004")
    s = settle_round(preset, parse_cards(dealer), [SeatHand(1, parse_cards(cards), Wagers(**wagers), play)],
                     {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000})
    # as the journal's settlement record carries it (controller/round/records.py adds wagers and play)
    return dict(seat_json(s.seats[0]), wagers={"ante": 0, "pair_plus": 0, "six_card_bonus": 0, "super6": 0,
                                               **wagers}, play=play)


def test_a_fold_is_told_only_what_is_left_to_take():
    """Ante $5 and Pair Plus $10 lost with the fold, collected with the cards; the 6 Card Bonus $5 stays
    in action and loses at the reveal: $5 is left to take, not the net's $20."""
    seat = _seat("Ah Kd 9c", "7s 4h 2d", False, ante=500, pair_plus=1000, six_card_bonus=500)
    assert seat["net"] == -2000
    pay, take = settlement_moves(seat)
    assert (pay, take) == (0, 500)
    collected = -sum(v for k, v in seat["results"].items() if k in FORFEITED_AT_FOLD and v < 0)
    assert collected + take - pay == -seat["net"]               # cross-check: the same money, counted apart
    assert settlement_lines(seat)[1:] == ["Take 6 Card Bonus $5.00"]


def test_a_net_of_zero_names_the_payment_and_the_take():
    """Play and Ante lose to a dealer's pair of queens while the player's pair wins its Pair Plus: the
    dealer pays one stack and takes others, whatever the net."""
    seat = _seat("Qs Qd 3c", "9h 9c 5d", True, ante=500, pair_plus=1000)
    assert seat["net"] == 0                                     # Play and Ante -$10, Pair Plus +$10
    pay, take = settlement_moves(seat)
    assert (pay, take) == (1000, 1000) and pay - take == seat["net"]
    assert all(not line.startswith("Push") for line in settlement_lines(seat))


def test_the_lines_keep_the_sheets_order_after_a_restart():
    """A settlement read back from the journal is key-sorted (ante before play): the lines are still
    in the sheet's order, Play before Ante."""
    seat = _seat("Qs Qd 3c", "7h 4c 2d", True, ante=1000, pair_plus=500)
    restored = json.loads(json.dumps(seat, sort_keys=True))
    assert list(restored["results"])[0] == "ante"
    lines = settlement_lines(restored)
    assert lines == settlement_lines(seat)
    assert lines.index("Take Play $10.00") < lines.index("Take Ante $10.00")

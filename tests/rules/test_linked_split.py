"""``settle`` of a round won on a linked jackpot: the floor's split (value, winners, this claim's
order) read from the round's ``linked`` key, the same arithmetic as the floor's claim (docs/floor-jackpot.md),
checked against a computation written out here."""

from __future__ import annotations

import pytest

from controller.rules.paytable import load_preset
from controller.rules.roundio import settle_json

ROYAL = {"id": 7, "preset": "sheet-004", "dealer": "Jh Th 2c", "jackpots": {"mega": 10_000_000, "major": 2_500_000,
         "minor": 250_001}, "seats": [{"seat": 1, "cards": "Ah Kh Qh", "play": True,
                                       "wagers": {"ante": 500, "super6": 500}}]}


@pytest.mark.parametrize("winners, order", [(1, 1), (2, 1), (2, 2), (3, 3)])
def test_a_linked_hit_is_paid_its_place_in_the_floors_split(winners, order):
    doc = dict(ROYAL, linked={"minor": {"value": 250_001, "winners": winners, "order": order}})
    settled = settle_json(doc, load_preset, None)
    part = 250_001 // winners + (1 if order <= 250_001 % winners else 0)     # odd cents to the first claims
    assert settled["seats"][0]["results"]["super6"] == part * 50 // 100       # a $5 bet: half its part
    hit = settled["jackpot_hits"][0]
    assert (hit["jackpot"], hit["winners"], hit["amount"]) == ("minor", winners, part // 2)


def test_a_hit_settled_without_the_linked_award_pays_nothing_for_it():
    settled = settle_json(dict(ROYAL, linked={"minor": {"referred": True}}), load_preset, None)
    assert settled["seats"][0]["results"]["super6"] == 0 and settled["jackpot_hits"][0]["amount"] == 0


def test_without_linked_it_is_the_posted_value_of_one_table():
    assert settle_json(ROYAL, load_preset, None)["seats"][0]["results"]["super6"] == 125_000


@pytest.mark.parametrize("linked, said", [
    ({"tiny": {"value": 1, "winners": 1, "order": 1}}, "linked.tiny: unknown jackpot"),
    ({"minor": {"value": 1, "winners": 2}}, "linked.minor: must be"),
    ({"minor": {"value": 100, "winners": 2, "order": 3}}, "order 1 to winners (2)"),
    ({"minor": {"value": -5, "winners": 1, "order": 1}}, "value must be positive cents"),
    ([], "linked: must be an object"),
])
def test_a_bad_linked_split_is_refused_naming_the_field(linked, said):
    answer = settle_json(dict(ROYAL, linked=linked), load_preset, None)
    assert said in answer["error"]

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.hand3 import Hand3, category3, describe3, qualifies, score3
from tests.rules.reference import three_card_key


def s(text):
    return score3(parse_cards(text))


def test_category_counts_over_all_hands():
    counts = {h: 0 for h in Hand3}
    for hand in combinations(range(52), 3):
        counts[category3(score3(hand))] += 1
    assert counts == {Hand3.STRAIGHT_FLUSH: 48, Hand3.THREE_OF_A_KIND: 52, Hand3.STRAIGHT: 720,
                      Hand3.FLUSH: 1096, Hand3.PAIR: 3744, Hand3.HIGH_CARD: 16440}


def test_order_agrees_with_independent_evaluator_on_every_hand():
    """Scores and the reference keys must induce the same total preorder on all 22,100 hands."""
    pairs = {}
    for hand in combinations(range(52), 3):
        pairs.setdefault(score3(hand), set()).add(three_card_key(hand))
    assert all(len(keys) == 1 for keys in pairs.values()), "one score covers two different hands"
    by_score = [next(iter(pairs[k])) for k in sorted(pairs)]
    assert by_score == sorted(by_score)
    assert len(set(by_score)) == len(by_score)


@pytest.mark.parametrize("better, worse", [
    ("Ah 2c 3d", "Kh Qh 9h"),          # A-2-3 straight beats a flush
    ("4h 2c 3d", "Ah 2c 3d"),          # A-2-3 is the lowest straight
    ("Qs Ks As", "Jh Qh Kc"),          # Q-K-A is the highest straight
    ("Ks As 2s", "Qh Js 9d"),          # K-A-2 suited is a flush, not a straight flush
    ("As Ks Qs", "2c 2d 2h"),          # a straight flush beats trips
    ("2c 2d 2h", "Ah Kd Qc"),          # trips beat a straight
    ("Ah Kh Jh", "2c 2d 3h"),          # a flush beats a pair
])
def test_hand_order_examples(better, worse):
    assert s(better) > s(worse)


def test_k_a_2_is_no_straight():
    assert category3(s("Kc Ad 2h")) is Hand3.HIGH_CARD
    assert category3(s("Ks As 2s")) is Hand3.FLUSH


def test_ties_and_kickers():
    assert s("As Kd 7c") == s("Ah Kc 7d")            # suits never rank
    assert s("9s 9d Ac") > s("9h 9c Kd")              # pair then kicker
    assert s("Ts Td 2c") > s("9h 9c Ad")
    assert s("Ah 3c 2d") == s("As 3h 2c")             # A-2-3 vs A-2-3
    assert s("Kh 9h 4h") > s("Kd 9d 3d")              # flush ranks from the top down


def test_dealer_qualification():
    assert qualifies(s("Qs 7h 2d"))
    assert not qualifies(s("Js Th 8d"))
    assert qualifies(s("2s 2h 3d"))
    assert qualifies(s("As 2h 4d"))


def test_names():
    assert describe3(s("Qs 7h 2d")) == "Queen high"
    assert describe3(s("7s 7h 2d")) == "Pair of Sevens, Two kicker"
    assert describe3(s("Ah 2c 3d")) == "Straight, Three high"
    assert describe3(s("5h 5c 5d")) == "Three Fives"
    assert describe3(s("Qh Kh Ah")) == "Straight flush, Ace high"


@given(st.permutations(range(52)))
def test_order_of_cards_in_a_hand_does_not_matter(deck):
    hand = deck[:3]
    assert score3(hand) == score3(hand[::-1]) == score3((hand[1], hand[2], hand[0]))

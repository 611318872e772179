import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.hand6 import Hand6, Super6, evaluate6
from controller.rules.parsheet import HANDS6, six_card_counts
from tests.rules.reference import best_of_six, super6_of_six


def ev(text):
    return evaluate6(parse_cards(text, count=6))


@pytest.mark.parametrize("cards, bonus, super6", [
    ("9d Td Jd Qd Kd Ad", Hand6.ROYAL_FLUSH, Super6.SUPER_ROYAL_DIAMONDS),
    ("9s Ts Js Qs Ks As", Hand6.ROYAL_FLUSH, Super6.SUPER_ROYAL),
    ("Th Jh Qh Kh Ah 2c", Hand6.ROYAL_FLUSH, Super6.ROYAL_FLUSH),
    ("Th Jh Qh Kh Ah 9c", Hand6.ROYAL_FLUSH, Super6.ROYAL_FLUSH),    # 9 off-suit: not a super royal
    ("8h 9h Th Jh Qh Kh", Hand6.STRAIGHT_FLUSH, Super6.STRAIGHT_FLUSH),
    ("Ac 2c 3c 4c 5c Kd", Hand6.STRAIGHT_FLUSH, Super6.STRAIGHT_FLUSH),  # steel wheel
    ("7c 7d 7h 7s 2c 2d", Hand6.FOUR_OF_A_KIND, Super6.FOUR_OF_A_KIND),
    ("7c 7d 7h 2s 2c 2d", Hand6.FULL_HOUSE, Super6.FULL_HOUSE),       # two trips
    ("7c 7d 7h 2s 2c 9d", Hand6.FULL_HOUSE, Super6.FULL_HOUSE),
    ("2h 5h 9h Jh Kh Kd", Hand6.FLUSH, Super6.FLUSH),
    ("Ac 2d 3h 4s 5c 5d", Hand6.STRAIGHT, Super6.STRAIGHT),           # wheel
    ("Tc Jd Qh Ks Ac Ad", Hand6.STRAIGHT, Super6.STRAIGHT),
    ("Kc Ad 2h 3s 4c 9d", Hand6.HIGH_CARD, Super6.NONE),              # no wrap-around
    ("7c 7d 7h 2s 4c 9d", Hand6.THREE_OF_A_KIND, Super6.NONE),
    ("7c 7d 2h 2s 9c 9d", Hand6.TWO_PAIR, Super6.NONE),
    ("7c 7d 2h 3s 9c Jd", Hand6.PAIR, Super6.NONE),
])
def test_examples(cards, bonus, super6):
    assert ev(cards) == (bonus, super6)


# 1,000 random hands in the default suite, 3,000 in the campaign (issue 30); every category is
# also counted over all hands by test_six_card_counts_match_brute_force_over_all_hands
@pytest.mark.parametrize("hands", [1000, pytest.param(3000, marks=pytest.mark.campaign)])
def test_agrees_with_best_of_six_five_card_subsets(hands):
    @settings(max_examples=hands)
    @given(st.permutations(range(52)))
    def agrees(deck):
        six = deck[:6]
        bonus, sup = evaluate6(six)
        assert bonus.key == best_of_six(six)
        assert sup.key == super6_of_six(six)
    agrees()


@given(st.sampled_from(range(4)), st.permutations(range(52)))
def test_flush_heavy_hands(suit, deck):
    """Random hands hardly ever hold a flush; these hold five or six cards of one suit."""
    suited = [c for c in deck if c % 4 == suit]
    others = [c for c in deck if c % 4 != suit]
    for six in (suited[:6], suited[:5] + others[:1]):
        bonus, sup = evaluate6(six)
        assert bonus.key == best_of_six(six)
        assert sup.key == super6_of_six(six)


def six_card_hands_by_third_card():
    """Every six-card hand once, as ascending cards, in blocks by the third-lowest card m: each lower
    three-card half whose top card is m, joined to each upper half drawn from the cards above m.
    (np.fromiter over itertools.combinations took half of this test's time; blocks of about half a
    million hands keep the arrays small; the count and the order are checked by the test.)"""
    from itertools import combinations
    triples = np.array(list(combinations(range(52), 3)), dtype=np.uint8)
    for top in range(2, 49):
        lower, upper = triples[triples[:, 2] == top], triples[triples[:, 0] > top]
        block = np.empty((len(lower) * len(upper), 6), np.uint8)
        block[:, :3] = np.repeat(lower, len(upper), axis=0)
        block[:, 3:] = np.tile(upper, (len(lower), 1))
        yield block


CATEGORIES = ["royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
              "straight", "three_of_a_kind", "two_pair", "pair", "high_card"]


def categorise(hands):
    """(hands per category, super royals, super royals in diamonds) of six-card hands, in numpy."""
    ranks, suits = hands >> 2, hands & 3
    rows = np.arange(len(hands))
    rank_counts = np.zeros((len(hands), 13), np.uint8)
    suit_counts = np.zeros((len(hands), 4), np.uint8)
    for j in range(6):
        rank_counts[rows, ranks[:, j]] += 1
        suit_counts[rows, suits[:, j]] += 1
    flush_suit = np.argmax(suit_counts, axis=1)
    flush = suit_counts.max(axis=1) >= 5
    rank_mask = np.zeros(len(hands), np.int32)
    suited_mask = np.zeros(len(hands), np.int32)
    for j in range(6):
        bit = np.left_shift(1, ranks[:, j].astype(np.int32))
        rank_mask |= bit
        suited_mask |= np.where(suits[:, j] == flush_suit, bit, 0)

    def straight(mask):
        found = np.zeros(len(mask), bool)
        for low in range(9):
            m = 0b11111 << low
            found |= (mask & m) == m
        wheel = 0b1000000001111
        return found | ((mask & wheel) == wheel)

    top = rank_counts.max(axis=1)
    pairs = (rank_counts == 2).sum(axis=1)
    trips = (rank_counts == 3).sum(axis=1)
    sflush = flush & straight(suited_mask)
    royal = flush & ((suited_mask & (0b11111 << 8)) == (0b11111 << 8))
    superroyal = flush & (suited_mask == 0b111111 << 7)
    conditions = [
        royal, sflush, top == 4, (trips >= 2) | ((trips == 1) & (pairs >= 1)), flush,
        straight(rank_mask), trips == 1, pairs >= 2, pairs == 1,
    ]
    # the first condition that holds, by its index (numbers: sorting 20 million strings for
    # np.unique took a third of the test's time)
    category = np.select(conditions, range(len(conditions)), default=len(conditions))
    return (np.bincount(category, minlength=len(CATEGORIES)), int(superroyal.sum()),
            int((superroyal & (flush_suit == 1)).sum()))


def brute_force_six_card_counts():
    """All 20,358,520 six-card hands, categorised with numpy arrays (no shared code)."""
    counts, superroyals, diamonds, hands = np.zeros(len(CATEGORIES), np.int64), 0, 0, 0
    for block in six_card_hands_by_third_card():
        assert bool((block[:, 1:] > block[:, :-1]).all())         # six different cards, each hand in one order
        in_block, royals, royal_diamonds = categorise(block)
        counts += in_block
        superroyals, diamonds, hands = superroyals + royals, diamonds + royal_diamonds, hands + len(block)
    assert hands == HANDS6                                         # so each hand exactly once
    bonus = {name: int(n) for name, n in zip(CATEGORIES, counts, strict=True) if n}
    return bonus, superroyals, diamonds


def test_six_card_counts_match_brute_force_over_all_hands():
    bonus, super6 = six_card_counts()
    assert sum(bonus.values()) == sum(super6.values()) == HANDS6
    brute, superroyals, diamonds = brute_force_six_card_counts()
    assert {h.key: n for h, n in bonus.items()} == brute
    assert super6[Super6.SUPER_ROYAL_DIAMONDS] == diamonds == 1
    assert super6[Super6.SUPER_ROYAL] == superroyals - diamonds == 3
    assert super6[Super6.ROYAL_FLUSH] == brute["royal_flush"] - superroyals
    for hand in ("straight_flush", "four_of_a_kind", "full_house", "flush", "straight"):
        assert super6[Super6[hand.upper()]] == brute[hand]

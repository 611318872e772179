"""The four rule sheets as a test lab reads them, word by word, written apart from controller/.

Nothing here is imported from controller/ or from tests/rules/reference.py: the pay tables, limits
and rules below are copied from the sheets' own words (/work/shared/seeds/*.txt), the hands are
ranked by brute force (every five of six cards), and the money is worked out per wager from the
sheet's sentences. A checker compares this reading with ``settle_round`` cent for cent
(tests/rules/test_sheet_reading.py samples it; scripts/sheet-lab runs it over every hand).

Cards are ints ``rank*4 + suit``, rank 0 = two ... 12 = ace, suits c d h s (1 = diamonds).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

# Three-card hand names, best first (all four sheets list this order).
SF, TRIPS, STRAIGHT, FLUSH, PAIR, HIGH = "sf", "trips", "straight", "flush", "pair", "high"
ORDER3 = (HIGH, PAIR, FLUSH, STRAIGHT, TRIPS, SF)


@dataclass(frozen=True)
class Sheet:
    name: str
    pair_plus: dict[str, int]                 # "X to 1"
    ante_bonus: dict[str, int]
    limits: dict[str, tuple[int | None, int | None]]   # cents; None where the sheet posts nothing
    six_card_bonus: dict[str, int] = field(default_factory=dict)
    super6: dict[int, dict[str, int | str]] = field(default_factory=dict)   # bet -> hand -> cents / jackpot
    super6_share: dict[int, int] = field(default_factory=dict)               # bet -> % of the posted jackpot
    cap: int | None = None                    # maximum aggregate payout per player per hand, Super 6 out


SHEETS = {
    # 000: "Pair Plus: Straight Flush 40 to 1, Three of a Kind 30 to 1, Straight 5 to 1, Flush 3 to 1,
    # Pair 1 to 1"; "Ante Bet: Straight Flush 4 to 1, Three of a Kind 3 to 1, Straight 1 to 1";
    # "Ante: $2 minimum and $10 maximum / Play: ... / Pair Plus: $2 minimum and $10 maximum".
    "sheet-000": Sheet("sheet-000", {SF: 40, TRIPS: 30, STRAIGHT: 5, FLUSH: 3, PAIR: 1},
                       {SF: 4, TRIPS: 3, STRAIGHT: 1},
                       {"ante": (200, 1000), "pair_plus": (200, 1000)}),
    # 002: Ante Bonus 5-4-1, Pair Plus 40-30-6-3-1; no limits posted.
    "sheet-002": Sheet("sheet-002", {SF: 40, TRIPS: 30, STRAIGHT: 6, FLUSH: 3, PAIR: 1},
                       {SF: 5, TRIPS: 4, STRAIGHT: 1},
                       {"ante": (None, None), "pair_plus": (None, None)}),
    # 003: PairPlus 35-25-5-3-1, Extra Bonus on Ante 5-3-1, "minimum is $1 and maximum is $100".
    "sheet-003": Sheet("sheet-003", {SF: 35, TRIPS: 25, STRAIGHT: 5, FLUSH: 3, PAIR: 1},
                       {SF: 5, TRIPS: 3, STRAIGHT: 1},
                       {"ante": (100, 10000), "pair_plus": (100, 10000)}),
    # 004: Pair Plus 40-30-6-3-1, Ante bonus 4-3-1, "up to ... $10" (minimum: the posted table
    # minimum); 6 Card Bonus and Super 6 "at least $5 and up to ... $10"; the $5,000 cap.
    "sheet-004": Sheet(
        "sheet-004", {SF: 40, TRIPS: 30, STRAIGHT: 6, FLUSH: 3, PAIR: 1}, {SF: 4, TRIPS: 3, STRAIGHT: 1},
        {"ante": (None, 1000), "pair_plus": (None, 1000), "six_card_bonus": (500, 1000), "super6": (500, 1000)},
        six_card_bonus={"royal": 1000, "sf": 200, "quads": 50, "full_house": 25, "flush": 15,
                        "straight": 10, "trips": 5},
        super6={500: {"super_royal_diamonds": "mega", "super_royal": "major", "royal": "minor",
                      "sf": 37500, "quads": 20000, "full_house": 10000, "flush": 7500, "straight": 5000},
                1000: {"super_royal_diamonds": "mega", "super_royal": "major", "royal": "minor",
                       "sf": 75000, "quads": 40000, "full_house": 20000, "flush": 15000, "straight": 10000}},
        super6_share={500: 50, 1000: 100},
        cap=500_000),
}
PAY_ORDER = ("play", "ante_bonus", "ante", "pair_plus", "six_card_bonus", "super6")   # sheet 000, then 004


# --- hands -----------------------------------------------------------------------------------

def rank(card: int) -> int:
    return card // 4


def suit(card: int) -> int:
    return card % 4


def _straight_top(ranks: list[int]) -> int | None:
    """Top rank of three or five distinct consecutive ranks; the ace is low only in A-2-3(-4-5)."""
    distinct = sorted(set(ranks))
    if len(distinct) != len(ranks):
        return None
    if distinct[-1] - distinct[0] == len(ranks) - 1:
        return distinct[-1]
    if distinct == [*range(len(ranks) - 1), 12]:    # A-2-3 / A-2-3-4-5: the ace counts one
        return len(ranks) - 2
    return None


def hand3(cards) -> tuple[str, tuple[int, ...]]:
    """(name, tie-break ranks) of a three-card hand (sheet 003: suits never count)."""
    ranks = sorted((rank(c) for c in cards), reverse=True)
    flush = len({suit(c) for c in cards}) == 1
    top = _straight_top(ranks)
    counts = Counter(ranks)
    if top is not None and flush:
        return SF, (top,)
    if 3 in counts.values():
        return TRIPS, (ranks[0],)
    if top is not None:
        return STRAIGHT, (top,)
    if flush:
        return FLUSH, tuple(ranks)
    if 2 in counts.values():
        pair = next(r for r, n in counts.items() if n == 2)
        return PAIR, (pair, next(r for r in ranks if r != pair))
    return HIGH, tuple(ranks)


def key3(cards) -> tuple:
    name, ranks = hand3(cards)
    return (ORDER3.index(name), ranks)


def dealer_qualifies(cards) -> bool:
    """"The dealer needs a queen high or better" (queen = rank 10)."""
    name, ranks = hand3(cards)
    return name != HIGH or ranks[0] >= 10


def hand5(cards) -> str:
    ranks = [rank(c) for c in cards]
    flush = len({suit(c) for c in cards}) == 1
    top = _straight_top(ranks)
    shape = sorted(Counter(ranks).values(), reverse=True)
    if top is not None and flush:
        return "royal" if top == 12 and 8 in ranks else "sf"
    if shape[0] == 4:
        return "quads"
    if shape[:2] == [3, 2]:
        return "full_house"
    if flush:
        return "flush"
    if top is not None:
        return "straight"
    if shape[0] == 3:
        return "trips"
    return "two_pair" if shape[:2] == [2, 2] else "pair" if shape[0] == 2 else "high"


ORDER5 = ("high", "pair", "two_pair", "trips", "straight", "flush", "full_house", "quads", "sf", "royal")


def best5(six) -> str:
    """Sheet 004, 6 Card Bonus: the best five-card hand of the player's three and the dealer's three."""
    return max((hand5(five) for five in combinations(six, 5)), key=ORDER5.index)


def super6_hand(six) -> str:
    """Sheet 004, Super 6: a six-card super royal (9 to ace of one suit), else the best five."""
    if len({suit(c) for c in six}) == 1 and sorted(rank(c) for c in six) == list(range(7, 13)):
        return "super_royal_diamonds" if suit(six[0]) == 1 else "super_royal"
    return best5(six)


# --- money -----------------------------------------------------------------------------------

def settle_seat(sheet: Sheet, dealer, cards, ante: int = 0, pair_plus: int = 0, six: int = 0,
                super6: int = 0, play: bool = False, posted: dict[str, int] | None = None
                ) -> tuple[dict[str, int], int]:
    """(the player's net per wager before the cap, the cap's reduction) for one position alone."""
    res = dict.fromkeys(PAY_ORDER, 0)
    name, _ = hand3(cards)
    folded = bool(ante) and not play
    if ante and folded:
        res["ante"] = -ante                          # "If the player folds, then he forfeits his Ante"
    elif ante:
        res["ante_bonus"] = ante * sheet.ante_bonus.get(name, 0)   # "regardless of the dealer's hand"
        if not dealer_qualifies(dealer):
            res["ante"] = ante                       # "Ante wins 1 to 1", "PLAY is a PUSH"
        elif key3(cards) > key3(dealer):
            res["ante"] = res["play"] = ante
        elif key3(cards) < key3(dealer):
            res["ante"] = res["play"] = -ante
    if pair_plus:
        odds = sheet.pair_plus.get(name, 0)
        # "he must make the PLAY wager or will forfeit both the ANTE and PAIR PLUS wagers"
        res["pair_plus"] = -pair_plus if folded or not odds else pair_plus * odds
    both = (*cards, *dealer)
    if six:
        odds = sheet.six_card_bonus.get(best5(both), 0)
        res["six_card_bonus"] = six * odds if odds else -six
    if super6:
        award = sheet.super6[super6].get(super6_hand(both))
        if isinstance(award, str):
            award = (posted or {})[award] * sheet.super6_share[super6] // 100
        res["super6"] = award if award else -super6
    won = sum(v for k, v in res.items() if v > 0 and k != "super6")
    reduction = max(0, won - sheet.cap) if sheet.cap is not None else 0
    return res, reduction

"""Three-card hand evaluation: category, a comparable score, and the hand's name.

Order (domain/rules-notes.md): straight flush > three of a kind > straight >
flush > pair > high card. A-2-3 is the lowest straight, Q-K-A the highest,
K-A-2 is no straight. Suits never rank. Ties: straights by top card (A-2-3
counts as 3-high), trips by rank, pairs by pair then kicker, flushes and high
cards by their three ranks from the top down.

A score is ``category << 12 | r1 << 8 | r2 << 4 | r3``: a higher score is a
better hand and equal scores tie. All 22,100 hands are scored once into a table
keyed by the hand's 52-bit card mask, so evaluation is one dict look-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from itertools import combinations

from controller.rules.cards import RANK_NAMES, RANK_PLURALS


class Hand3(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5

    @property
    def key(self) -> str:
        """The name used in pay-table files and JSON."""
        return self.name.lower()


QUEEN = 10
ACE = 12


def _score_of(cards: Sequence[int]) -> int:
    """Direct evaluation, used once per hand to fill the table."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    flush = len({c & 3 for c in cards}) == 1
    hi, mid, lo = ranks
    if hi == mid == lo:
        return Hand3.THREE_OF_A_KIND << 12 | hi << 8
    if hi == mid or mid == lo:
        pair, kicker = (hi, lo) if hi == mid else (mid, hi)
        return Hand3.PAIR << 12 | pair << 8 | kicker << 4
    top = None
    if hi - lo == 2:
        top = hi
    elif ranks == [ACE, 1, 0]:          # A-2-3: the lowest straight, 3-high
        top = 1
    if top is not None:
        category = Hand3.STRAIGHT_FLUSH if flush else Hand3.STRAIGHT
        return category << 12 | top << 8
    category = Hand3.FLUSH if flush else Hand3.HIGH_CARD
    return category << 12 | hi << 8 | mid << 4 | lo


SCORES: dict[int, int] = {
    (1 << a) | (1 << b) | (1 << c): _score_of((a, b, c))
    for a, b, c in combinations(range(52), 3)
}


def score3(cards: Sequence[int]) -> int:
    """Score of three distinct cards (ints); higher wins, equal ties."""
    a, b, c = cards
    return SCORES[(1 << a) | (1 << b) | (1 << c)]


def category3(score: int) -> Hand3:
    return Hand3(score >> 12)


def qualifies(score: int, min_high_rank: int = QUEEN) -> bool:
    """Dealer qualification: a pair or better, or a high card of at least ``min_high_rank``."""
    return score >> 12 >= Hand3.PAIR or (score >> 8) & 15 >= min_high_rank


def describe3(score: int) -> str:
    """The hand as a dealer says it: "Queen high", "Pair of Sevens", "Straight, Six high"."""
    category = category3(score)
    r1, r2 = (score >> 8) & 15, (score >> 4) & 15
    if category is Hand3.THREE_OF_A_KIND:
        return f"Three {RANK_PLURALS[r1]}"
    if category is Hand3.PAIR:
        return f"Pair of {RANK_PLURALS[r1]}, {RANK_NAMES[r2]} kicker"
    if category is Hand3.HIGH_CARD:
        return f"{RANK_NAMES[r1]} high"
    label = category.name.replace("_", " ").capitalize()
    return f"{label}, {RANK_NAMES[r1]} high"

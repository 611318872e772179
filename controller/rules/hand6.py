"""Six-card evaluation: the player's three cards with the dealer's three.

Owns two category systems (rule sheet 004):
- ``Hand6``: the best five-card poker hand of the six cards, for the 6 Card Bonus.
- ``Super6``: the Super 6 Jackpot categories, highest only: a 6-card super
  royal (9-10-J-Q-K-A of one suit; diamonds pay MEGA, other suits MAJOR), a
  5-card royal flush (MINOR), 5-card straight flush, four of a kind, full
  house, 5-card flush, 5-card straight; anything else loses.

Only categories matter for these bets (nothing is compared between hands), so
the evaluator computes categories, not full rankings. Each card maps to
``1 << 4*rank`` plus ``1 << (52 + 4*suit)``; the sum over six cards holds the
rank counts in its low 52 bits and the suit counts above. A flush needs five
cards of one suit, hence at least five distinct ranks, hence at most one pair:
so with no flush the rank counts alone decide the category (one look-up), and
with a flush the suited ranks alone decide it (a second look-up).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from itertools import combinations, combinations_with_replacement

from controller.rules.cards import DIAMONDS


class Hand6(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def key(self) -> str:
        return self.name.lower()


class Super6(IntEnum):
    NONE = 0
    STRAIGHT = 1
    FLUSH = 2
    FULL_HOUSE = 3
    FOUR_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5
    ROYAL_FLUSH = 6              # 5-card royal: MINOR jackpot
    SUPER_ROYAL = 7              # 6-card super royal, clubs/hearts/spades: MAJOR
    SUPER_ROYAL_DIAMONDS = 8     # 6-card super royal, diamonds: MEGA

    @property
    def key(self) -> str:
        return self.name.lower()


# Rank masks of the ten five-card straights, the wheel (A-2-3-4-5) included.
STRAIGHT_MASKS = tuple(0b11111 << low for low in range(9)) + (0b1000000001111,)
ROYAL_MASK = 0b11111 << 8            # T J Q K A
SUPER_ROYAL_MASK = 0b111111 << 7     # 9 T J Q K A
RANK_BITS = (1 << 52) - 1


def has_straight(rank_mask: int) -> bool:
    return any(rank_mask & m == m for m in STRAIGHT_MASKS)


def rank_category(counts: Sequence[int]) -> tuple[Hand6, Super6]:
    """Category of six cards with no flush, from the count of each rank (13 entries)."""
    shape = sorted((n for n in counts if n), reverse=True)
    if shape[0] == 4:
        return Hand6.FOUR_OF_A_KIND, Super6.FOUR_OF_A_KIND
    if shape[0] == 3 and shape[1] >= 2:
        return Hand6.FULL_HOUSE, Super6.FULL_HOUSE
    mask = sum(1 << r for r, n in enumerate(counts) if n)
    if has_straight(mask):
        return Hand6.STRAIGHT, Super6.STRAIGHT
    if shape[0] == 3:
        return Hand6.THREE_OF_A_KIND, Super6.NONE
    if shape[0] == 2:
        return (Hand6.TWO_PAIR if shape[1] == 2 else Hand6.PAIR), Super6.NONE
    return Hand6.HIGH_CARD, Super6.NONE


def suited_category(suited_mask: int, suit: int) -> tuple[Hand6, Super6]:
    """Category of six cards whose five or six cards of ``suit`` have these ranks."""
    if suited_mask == SUPER_ROYAL_MASK:
        return Hand6.ROYAL_FLUSH, (Super6.SUPER_ROYAL_DIAMONDS if suit == DIAMONDS
                                   else Super6.SUPER_ROYAL)
    if suited_mask & ROYAL_MASK == ROYAL_MASK:
        return Hand6.ROYAL_FLUSH, Super6.ROYAL_FLUSH
    if has_straight(suited_mask):
        return Hand6.STRAIGHT_FLUSH, Super6.STRAIGHT_FLUSH
    return Hand6.FLUSH, Super6.FLUSH


CARD_KEYS = tuple((1 << 4 * (c >> 2)) + (1 << (52 + 4 * (c & 3))) for c in range(52))


def _rank_table() -> dict[int, tuple[Hand6, Super6]]:
    table = {}
    for ranks in combinations_with_replacement(range(13), 6):
        counts = [0] * 13
        for r in ranks:
            counts[r] += 1
        if max(counts) <= 4:
            table[sum(n << 4 * r for r, n in enumerate(counts))] = rank_category(counts)
    return table


def _flush_suits() -> list[int]:
    """Suit-count key -> the suit holding five or more cards, or -1."""
    table = [-1] * (1 << 16)
    for suits in combinations_with_replacement(range(4), 6):
        key = sum(1 << 4 * s for s in suits)
        for s in range(4):
            if suits.count(s) >= 5:
                table[key] = s
    return table


def _suited_table() -> dict[tuple[int, int], tuple[Hand6, Super6]]:
    table = {}
    for size in (5, 6):
        for ranks in combinations(range(13), size):
            mask = sum(1 << r for r in ranks)
            for suit in range(4):
                table[mask, suit] = suited_category(mask, suit)
    return table


RANK_TABLE = _rank_table()
FLUSH_SUIT = _flush_suits()
SUITED_TABLE = _suited_table()


def evaluate6(cards: Sequence[int]) -> tuple[Hand6, Super6]:
    """(6 Card Bonus category, Super 6 category) of six distinct cards (ints)."""
    a, b, c, d, e, f = cards
    k = CARD_KEYS
    v = k[a] + k[b] + k[c] + k[d] + k[e] + k[f]
    suit = FLUSH_SUIT[v >> 52]
    if suit < 0:
        return RANK_TABLE[v & RANK_BITS]
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return SUITED_TABLE[mask, suit]

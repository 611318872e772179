"""Cards: their text form, their integer form, and validation of a dealt set.

Owns the one encoding every other module uses: a card is an int 0..51,
``rank * 4 + suit`` with rank 0 = deuce .. 12 = ace and suit 0..3 = c d h s.
Text is rank ``2``-``9``, ``T`` or ``10``, ``J``, ``Q``, ``K``, ``A`` followed
by a suit letter, either case ("As", "10h", "td"). Errors name the offending
token so a dealer, auditor or device log can find it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.errors import InputError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
RANK_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
              "Ten", "Jack", "Queen", "King", "Ace")
RANK_PLURALS = ("Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights",
                "Nines", "Tens", "Jacks", "Queens", "Kings", "Aces")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
DIAMONDS = 1
DECK = tuple(range(52))


class CardError(InputError):
    """A card or a set of cards that cannot be what was dealt."""


def rank_of(card: int) -> int:
    return card >> 2


def suit_of(card: int) -> int:
    return card & 3


def make_card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def parse_card(token: object) -> int:
    """One card from its text; raises CardError naming the token (which may be anything read from input)."""
    if not isinstance(token, str):
        raise CardError(f"card {token!r}: expected text such as 'As' or '10h'")
    text = token.strip()
    if len(text) == 3 and text[:2] == "10":
        text = "T" + text[2]
    if len(text) != 2:
        raise CardError(f"card {token!r}: expected a rank (2-9, T or 10, J, Q, K, A) and a suit (c, d, h, s)")
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0:
        raise CardError(f"card {token!r}: unknown rank {text[0]!r}")
    if suit < 0:
        raise CardError(f"card {token!r}: unknown suit {text[1]!r}")
    return make_card(rank, suit)


def parse_cards(cards: str | Sequence[str | int], *, count: int | None = None,
                what: str = "hand") -> tuple[int, ...]:
    """A hand written as "As Ks Qs", a list of card texts, or card ints.

    Refuses unknown cards, a card repeated within the hand and (when ``count``
    is given) the wrong number of cards; the message names ``what`` and the token.
    """
    tokens: Iterable[str | int] = cards.split() if isinstance(cards, str) else cards
    parsed: list[int] = []
    for token in tokens:
        if isinstance(token, int) and not isinstance(token, bool):
            if not 0 <= token < 52:
                raise CardError(f"{what}: card number {token} is not 0..51")
            card = token
        else:
            try:
                card = parse_card(token)
            except CardError as err:
                raise CardError(f"{what}: {err}") from None
        if card in parsed:
            raise CardError(f"{what}: card {card_text(card)} appears twice")
        parsed.append(card)
    if count is not None and len(parsed) != count:
        raise CardError(f"{what}: {len(parsed)} cards, expected {count}")
    return tuple(parsed)


RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")   # as a card shows it


def card_text(card: int) -> str:
    """A card as people write it: "10h", "As". (Parsing also takes "Th".)"""
    return RANK_TEXT[card >> 2] + SUITS[card & 3]


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def check_disjoint(hands: dict[str, Sequence[int]]) -> None:
    """Refuse a card that appears in two hands of one round (one deck per round)."""
    seen: dict[int, str] = {}
    for owner, hand in hands.items():
        for card in hand:
            if card in seen:
                raise CardError(f"card {card_text(card)} is in both {seen[card]} and {owner}")
            seen[card] = owner

"""The betting spots of a position and the lines a settlement pays, in one place.

Owns the vocabulary every layer uses for wagers: ``Spot`` (the five circles
of a position on the felt, in the order the layout shows them), which of them
take a wager before the cards are seen, the house's pay order (rule sheet
000: Play, Ante Bonus, Ante, Pair Plus; sheet 004 adds 6 Card Bonus and
Super 6), and the name a person reads for each. ``Spot`` is a ``StrEnum``:
its value is the name journals, JSON and configuration use, so a ``Spot``
can be passed wherever the plain name is expected (the drivers, which import
nothing from the controller, keep their own wire codes for these names).
"""

from __future__ import annotations

from enum import StrEnum


class Spot(StrEnum):
    ANTE = "ante"
    PLAY = "play"
    PAIR_PLUS = "pair_plus"
    SIX_CARD_BONUS = "six_card_bonus"
    SUPER6 = "super6"

    @property
    def label(self) -> str:
        return LABELS[self.value]


# Each spot with its name, in the layout's order: iterating the enum class and reading ``.value``
# cost a generator step and a descriptor call each (the felt's locks walk every spot of the table).
SPOT_NAMES: tuple[tuple[Spot, str], ...] = tuple((s, s.value) for s in Spot)

# Spots a wager is read on while betting is open; Play is bet only after the cards are seen.
BET_SPOTS: tuple[Spot, ...] = (Spot.ANTE, Spot.PAIR_PLUS, Spot.SIX_CARD_BONUS, Spot.SUPER6)

# The Ante Bonus is paid on the Ante wager: a settlement line with no spot of its own.
ANTE_BONUS = "ante_bonus"

# Settlement lines in the house's pay order.
PAY_ORDER: tuple[str, ...] = (Spot.PLAY.value, ANTE_BONUS, Spot.ANTE.value, Spot.PAIR_PLUS.value,
                              Spot.SIX_CARD_BONUS.value, Spot.SUPER6.value)

LABELS = {"ante": "Ante", "play": "Play", "pair_plus": "Pair Plus", "six_card_bonus": "6 Card Bonus",
          "super6": "Super 6", ANTE_BONUS: "Ante Bonus"}


def label(line: str) -> str:
    """The name a dealer or supervisor reads for a spot or settlement line."""
    return LABELS[line]


def spot_named(name: str) -> Spot | None:
    """The spot with this name, or None for a name that is not a spot."""
    try:
        return Spot(name)
    except ValueError:
        return None

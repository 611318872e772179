"""Whether a stack of chips can be accepted as a wager on its spot, and if not why, in the dealer's words.

Owns the check of one stack against the preset's offers and limits and Super 6's bet sizes. Pure: the
felt (controller/round/felt.py) asks it for every reading and the flags it shows, the conditions of
"No more bets" and recovery through the felt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.spots import Spot, label
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.rules.paytable import Preset


def stack_problem(preset: Preset, spot: str, value: int | None, super6_closed: str | None) -> str | None:
    """Why a stack of ``value`` cents on ``spot`` cannot be accepted as a wager; None when it can.
    ``super6_closed``: why Super 6 takes no wagers now (None: it does)."""
    if spot == Spot.PLAY:
        return "the Play spot stays empty until the cards are seen"
    if value is None:
        return "chips seen but the sensor cannot read their value"
    if not preset.offers(spot):
        return f"{label(spot)} is not offered at this table"
    if value % preset.smallest_chip:            # no chips of the table's make that: a misread, or a foreign chip
        return f"{money(value)} cannot be made of this table's chips (the smallest is {money(preset.smallest_chip)})"
    limit = preset.limits[spot]
    if value < limit.min:
        return f"{money(value)} is below the {money(limit.min)} minimum"
    if value > limit.max:
        return f"{money(value)} is above the {money(limit.max)} maximum"
    if spot == Spot.SUPER6 and super6_closed:
        return f"Super 6 closed: {super6_closed}"
    sizes_offered = preset.super6 or {}
    if spot == Spot.SUPER6 and value not in sizes_offered:
        sizes = " or ".join(money(b) for b in sorted(sizes_offered))
        return f"{money(value)} is not a Super 6 bet size ({sizes})"
    return None

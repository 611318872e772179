"""The maximum aggregate payout (rule sheet 004): how much of a hand's winnings it cuts, and off which wager.

Owns the cap's arithmetic on one seat's results (the player's net per wager, in cents, as
``settlement.settle_round`` makes them): the payouts summed over the winning wagers, the Super 6
excluded ("Super 6 Jackpot payouts shall be excluded from the Maximum Aggregate rule"), and the
part above the cap. It imports nothing but the spots, so the words the dealer reads
(controller/rules/words.py) can say per wager what the settlement decided.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.rules.spots import PAY_ORDER, Spot

SUPER6 = Spot.SUPER6.value          # outside the cap


def over_cap(results: Mapping[str, int], cap: int) -> int:
    """What the seat won above ``cap``, summed over its winning wagers but the Super 6; 0 within it."""
    won = sum(v for k, v in results.items() if v > 0 and k != SUPER6)
    return max(0, won - cap)


def paid_after_cap(results: Mapping[str, int], cap_reduction: int) -> dict[str, int]:
    """Each wager's result once the maximum aggregate payout is applied, in pay order.

    Sheet 004 caps the sum of a hand's payouts and does not say which wager gives way. The dealer pays
    in the sheet's order (Play first, Super 6 last), so the cap is reached on the wagers paid last: the
    cut comes off those, from the 6 Card Bonus back towards the Play; the Super 6 is outside the cap and
    never cut, losses and pushes stand. The results then add up to the seat's net (``over_cap`` never
    cuts more than the capped wagers won; a reduction past that is cut as far as it goes).
    """
    out = {spot: results.get(spot, 0) for spot in PAY_ORDER}
    left = cap_reduction
    for spot in reversed(PAY_ORDER):
        if spot != SUPER6 and out[spot] > 0 and left > 0:
            cut = min(left, out[spot])
            out[spot] -= cut
            left -= cut
    return out

"""What each wager type should hold, and how far from it chance alone may carry a day's hold.

Owns the exact per-wager figures a report sets beside the hold it counted: for each
``Spot`` of a preset, the player's expected net per unit staked and its second
moment (so the variance), by enumeration over every hand, never by sampling:

- ``ante``: the Ante wager with the Ante Bonus paid on it, per unit Ante, under the
  par sheet's derived strategy (controller/rules/parsheet.py: play when playing is
  worth more than folding); a fold loses the Ante.
- ``play``: the Play wager, per unit Play, over the hands that strategy plays.
- ``pair_plus``: over the 22,100 three-card hands. A fold may lose the Pair Plus, but
  the strategy folds only hands without a pair, which lose it anyway.
- ``six_card_bonus``, ``super6``: over the C(52,6) six-card hands; Super 6 per accepted
  bet size, a jackpot counted at its posted value and the bet size's share.

The means agree with the par sheet's house edges (a test checks it). ``Expectation``
sums the actual wagers of a report: the theoretical hold of what was staked, and the
standard deviation of the hold % (wagers taken as independent: the hands of one round
share the dealer's cards, so for Ante and Play the band is a close approximation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from controller.rules import parsheet
from controller.rules.hand3 import Hand3
from controller.rules.paytable import Preset
from controller.rules.spots import Spot


@dataclass(frozen=True)
class Line:
    """One wager's net per unit staked, as a random variable: its mean and second moment."""
    mean: Fraction
    second: Fraction

    @property
    def hold(self) -> float:
        """What the house keeps per unit staked (the house edge)."""
        return float(-self.mean)

    @property
    def sigma(self) -> float:
        """The standard deviation of one wager's net per unit staked."""
        return math.sqrt(float(self.second - self.mean * self.mean))


def _line(outcomes: Sequence[tuple[Fraction | int, int]]) -> Line:
    """A Line from (net per unit, weight) pairs."""
    total = sum(w for _, w in outcomes)
    return Line(Fraction(sum(x * w for x, w in outcomes), total),
                Fraction(sum(x * x * w for x, w in outcomes), total))


_CACHE: dict[tuple[str, tuple[tuple[str, int], ...]], dict[str, dict[int, Line]]] = {}


def lines(preset: Preset, jackpots: dict[str, int] | None = None) -> dict[str, dict[int, Line]]:
    """Per spot the preset offers: {bet size (0: any): Line}. Super 6 has one Line per bet size."""
    key = (preset.digest, tuple(sorted((jackpots or {}).items())))
    if key not in _CACHE:
        _CACHE[key] = _lines(preset, jackpots or {})
    return _CACHE[key]


def _lines(preset: Preset, jackpots: dict[str, int]) -> dict[str, dict[int, Line]]:
    hands, scores = parsheet.all_three_card_hands()
    outcomes = parsheet.dealer_outcomes(hands, scores, preset.dealer_qualifies_with)
    nq, win, tie, lose = (np.asarray(a, dtype=object) for a in outcomes.T)
    bonus = np.array([preset.ante_bonus.get(Hand3(int(s) >> 12), 0) for s in scores], dtype=object)
    # parsheet.ante_play's rule: play when playing is worth more than folding
    play = bonus * parsheet.DEALER_HANDS + nq + 2 * win - 2 * lose > -parsheet.DEALER_HANDS
    folds = int((~play.astype(bool)).sum())
    p = play.astype(bool)
    ante: list[tuple[Fraction | int, int]] = [(-1, folds * parsheet.DEALER_HANDS)]
    for b, n, w, t, lo in zip(bonus[p], nq[p], win[p], tie[p], lose[p], strict=True):
        ante += [(1 + b, int(n) + int(w)), (b, int(t)), (b - 1, int(lo))]
    played = [(1, int(win[p].sum())), (0, int(nq[p].sum()) + int(tie[p].sum())), (-1, int(lose[p].sum()))]
    counts3 = parsheet.three_card_counts(scores)
    result = {Spot.ANTE.value: {0: _line(ante)}, Spot.PLAY.value: {0: _line(played)},
              Spot.PAIR_PLUS.value: {0: _line([(preset.pair_plus.get(h, -1), n) for h, n in counts3.items()])}}
    assert sum(counts3.values()) == parsheet.HANDS3
    if preset.six_card_bonus or preset.super6:
        bonus6, super6 = parsheet.six_card_counts()
        if preset.six_card_bonus:
            result[Spot.SIX_CARD_BONUS.value] = {0: _line([(preset.six_card_bonus.get(h, -1), n)
                                                           for h, n in bonus6.items()])}
        if preset.super6:
            result[Spot.SUPER6.value] = {}
            for bet, entry in preset.super6.items():
                net: list[tuple[Fraction | int, int]] = []
                for hand, n in super6.items():
                    award = entry.awards.get(hand)
                    if isinstance(award, str):      # a jackpot: the bet size's share of its posted value
                        award = jackpots.get(award, 0) * entry.jackpot_share_percent // 100
                    net.append((Fraction(award, bet) if award else -1, n))
                assert sum(n for _, n in net) == parsheet.HANDS6
                result[Spot.SUPER6.value][bet] = _line(net)
    return result


class Expectation:
    """The theoretical hold of the wagers actually made on one spot, and its spread."""

    def __init__(self) -> None:
        self.staked = 0
        self.held = 0.0                 # cents the house expects to keep
        self.variance = 0.0             # of the house's net, cents squared

    def add(self, stake: int, line: Line) -> None:
        self.staked += stake
        self.held += stake * line.hold
        self.variance += stake * stake * line.sigma ** 2

    @property
    def hold_percent(self) -> float | None:
        return 100 * self.held / self.staked if self.staked else None

    @property
    def sigma_percent(self) -> float | None:
        """One standard deviation of the hold %, over these wagers."""
        return 100 * math.sqrt(self.variance) / self.staked if self.staked else None

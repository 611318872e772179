"""Compare ``settle_round`` with the lab's own reading of the rule sheets (tests/rules/sheet_reading.py).

``check_hands`` settles one position per round through the settlement the table uses and through
the reading, and lists every wager whose cents differ, and every round whose money does not add up
two ways (net = the sum of the wager lines less the cap; paid - taken = net). The exhaustive run
(every 3-card hand against chosen dealer hands, each dealt both played and folded) is
``scripts/sheet-lab``; tests/rules/test_sheet_reading.py runs a seeded sample of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations

from controller.rules.paytable import Preset
from controller.rules.settlement import SeatHand, Wagers, settle_round
from tests.rules.sheet_reading import SHEETS, settle_seat

POSTED = {"mega": 10_000_003, "major": 2_500_001, "minor": 1_000_001}   # odd cents on purpose
ALL_HANDS = tuple(combinations(range(52), 3))


def wagers_for(preset: Preset) -> Wagers:
    """Wagers inside the preset's limits, odd cents included, on every spot it offers."""
    ante = preset.limits["ante"].min + 1
    pair_plus = preset.limits["pair_plus"].max
    six = preset.limits["six_card_bonus"].max if preset.offers("six_card_bonus") else 0
    super6 = max(preset.super6) if preset.super6 else 0
    return Wagers(ante, pair_plus, six, super6)


def check_one(preset: Preset, dealer: tuple[int, ...], cards: tuple[int, ...], wagers: Wagers,
              play: bool) -> list[str]:
    sheet = SHEETS[preset.name]
    got = settle_round(preset, dealer, [SeatHand(1, cards, wagers, play)], POSTED).seats[0]
    want, reduction = settle_seat(sheet, dealer, cards, wagers.ante, wagers.pair_plus, wagers.six_card_bonus,
                                  wagers.super6, play, POSTED)
    where = f"{preset.name} dealer {dealer} player {cards} {'play' if play else 'fold'}"
    problems = [f"{where}: {k} code {got.results[k]} sheet {want[k]}" for k in want if got.results[k] != want[k]]
    if got.cap_reduction != reduction:
        problems.append(f"{where}: cap reduction code {got.cap_reduction} sheet {reduction}")
    paid = sum(v for v in got.results.values() if v > 0) - got.cap_reduction
    taken = -sum(v for v in got.results.values() if v < 0)
    if got.net != sum(want.values()) - reduction or paid - taken != got.net:
        problems.append(f"{where}: net {got.net}, sheet {sum(want.values()) - reduction}, paid-taken {paid - taken}")
    return problems


def check_hands(preset: Preset, dealers: Iterable[tuple[int, ...]],
                hands: Iterable[tuple[int, ...]] = ALL_HANDS) -> Iterator[str]:
    """Every hand against every dealer hand it does not share a card with, played and folded."""
    wagers = wagers_for(preset)
    dealers = list(dealers)
    for cards in hands:
        for dealer in dealers:
            if set(cards) & set(dealer):
                continue
            for play in (True, False):
                yield from check_one(preset, dealer, cards, wagers, play)

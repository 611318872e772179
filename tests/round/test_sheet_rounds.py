"""Real rounds on every preset, the dealer's instructions checked against the lab's reading of the sheets.

Seeded rounds through the engine with fake ports (tests/round/bench.py): six positions with random
wagers inside the preset's limits, random decisions, cards from a shuffled deck. At settlement each
position's lines are read back as money and compared, wager by wager and in the sheet's pay order,
with tests/rules/sheet_reading.py (written from the sheets' words): "Pay", "Take" and "Push" lines,
the fold's wagers collected with its cards, the positions settled from the dealer's right, and the
money two ways (the lines add up to ``to_pay`` and ``to_take``; paid - taken - collected = net).
"""

from __future__ import annotations

import random
import re

import pytest

from controller.rules.cards import card_text
from controller.rules.paytable import load_preset
from tests.round.test_settlement_words import check_money, position, ready
from tests.rules.sheet_reading import PAY_ORDER, SHEETS, settle_seat

POSTED = {"mega": 10000000, "major": 2500000, "minor": 250000}      # what ready() shows on the sign
LABELS = {"play": "Play", "ante_bonus": "Ante Bonus", "ante": "Ante", "pair_plus": "Pair Plus",
          "six_card_bonus": "6 Card Bonus", "super6": "Super 6"}
LINE = re.compile(r"(Pay|Take|Push) (Play|Ante Bonus|Ante|Pair Plus|6 Card Bonus|Super 6)(?: \$([\d,]+)\.(\d\d))?")


def random_wagers(rng: random.Random, name: str) -> dict[str, int]:
    preset = load_preset(name)
    bets = {}
    for spot in ("ante", "pair_plus", "six_card_bonus", "super6"):
        if not preset.offers(spot) or rng.random() < 0.4:
            continue
        limit = preset.limits[spot]
        bets[spot] = rng.choice(sorted(preset.super6)) if spot == "super6" and preset.super6 else \
            rng.choice((limit.min, limit.max, rng.randrange(limit.min, limit.max + 1, 100)))
    return bets or {"ante": preset.limits["ante"].min}


def expected_lines(results: dict[str, int], cut: int, wagers: dict[str, int], play: bool) -> list[tuple]:
    """(verb, wager, cents) in pay order as the sheet's reading says the dealer settles them now."""
    folded = bool(wagers.get("ante")) and not play
    left, paid = cut, dict(results)
    for spot in reversed(PAY_ORDER):            # the cap is reached on the wagers paid last
        if spot != "super6" and paid[spot] > 0:
            paid[spot] -= min(left, paid[spot])
            left -= results[spot] - paid[spot]
    out = []
    for spot in PAY_ORDER:
        staked = wagers.get("ante") and play if spot == "play" else wagers.get(spot)
        if folded and spot in ("play", "ante_bonus", "ante", "pair_plus"):
            continue                            # collected with the cards before the reveal
        if results[spot] > 0:
            out.append(("Pay", LABELS[spot], paid[spot]))
        elif results[spot] < 0:
            out.append(("Take", LABELS[spot], -results[spot]))
        elif staked:
            out.append(("Push", LABELS[spot], None))
    return out


def read_lines(lines: list[str]) -> list[tuple]:
    out = []
    for line in lines:
        m = LINE.match(line)
        if m:
            cents = int(m.group(3).replace(",", "")) * 100 + int(m.group(4)) if m.group(3) else None
            out.append((m.group(1), m.group(2), cents))
    return out


@pytest.mark.parametrize("name", sorted(SHEETS))
def test_rounds_settle_as_the_sheet_reads(tmp_path, name):
    rng = random.Random(name)
    for round_no in range(8):
        bench = ready(tmp_path / str(round_no), name)
        bets = {p: random_wagers(rng, name) for p in range(1, 7)}
        bench.open_and_bet(bets)
        deck = rng.sample(range(52), 21)
        hands = {p: deck[3 * (p - 1):3 * p] for p in range(1, 7)}
        dealer = deck[18:21]
        bench.deal(*(" ".join(card_text(c) for c in cards) for cards in (*hands.values(), dealer)))
        plays = {p: rng.random() < 0.7 for p in bets if bets[p].get("ante")}
        bench.decide(plays)
        assert bench.snap["settlement_order"] == [6, 5, 4, 3, 2, 1]         # from the dealer's right
        for p, wagers in bets.items():
            play = plays.get(p, False)
            results, cut = settle_seat(SHEETS[name], dealer, hands[p], wagers.get("ante", 0),
                                       wagers.get("pair_plus", 0), wagers.get("six_card_bonus", 0),
                                       wagers.get("super6", 0), play, POSTED)
            settlement = position(bench, p)["settlement"]
            where = f"{name} round {round_no} position {p}: {settlement['lines']}"
            assert (settlement["results"], settlement["cap_reduction"]) == (results, cut), where
            assert read_lines(settlement["lines"]) == expected_lines(results, cut, wagers, play), where
            said = read_lines(settlement["lines"])
            assert sum(c for verb, _, c in said if verb == "Pay") == settlement["to_pay"], where
            assert sum(c for verb, _, c in said if verb == "Take") == settlement["to_take"], where
            check_money(settlement, sum(results.values()) - cut)
        bench.settle()
        assert bench.state == "complete"

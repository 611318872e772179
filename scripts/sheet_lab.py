#!/usr/bin/env python3
"""The settlement against the test lab's own reading of the rule sheets, over every three-card hand.

    .venv/bin/python scripts/sheet_lab.py                  # every preset: about 45 s on one core
    .venv/bin/python scripts/sheet_lab.py sheet-004 --rounds 50000

For each preset: every one of the 22,100 player hands against each dealer hand in ``DEALERS``
(queen high, jack high, A-2-3, a pair, suited hands that make six-card royals and super royals with
many player hands), played and folded, with a wager on every spot the preset offers; then
``--rounds`` random rounds of one to seven positions with random wagers inside the limits. Each is
settled by ``settle_round`` and by tests/rules/sheet_reading.py (written from the sheets' words, not
from controller/) and every cent that differs is printed. Exit 1 when anything differs.
tests/rules/test_sheet_reading.py runs a sample of this in about a second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.rules.cards import parse_cards  # noqa: E402
from controller.rules.paytable import Preset, load_preset  # noqa: E402
from controller.rules.settlement import SeatHand, Wagers, settle_round  # noqa: E402
from tests.rules.sheet_check import POSTED, check_hands  # noqa: E402
from tests.rules.sheet_reading import SHEETS, settle_seat  # noqa: E402

DEALERS = ("Qc 7d 2h", "Js 9d 7h", "Ah 2c 3d", "2s 2d 5c", "Kd Qd Jd", "9s Ts Js", "Qh Qs 4d")


def random_rounds(preset: Preset, rounds: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    sheet, problems = SHEETS[preset.name], []

    def amount(spot: str) -> int:
        if not preset.offers(spot) or rng.random() < 0.3:
            return 0
        if spot == "super6" and preset.super6:
            return rng.choice(sorted(preset.super6))
        limit = preset.limits[spot]
        return rng.choice([limit.min, limit.max, rng.randint(limit.min, limit.max)])

    for _ in range(rounds):
        deck = rng.sample(range(52), 24)
        seats = []
        for i, position in enumerate(rng.sample(range(1, 8), rng.randint(1, 7))):
            w = Wagers(*(amount(k) for k in ("ante", "pair_plus", "six_card_bonus", "super6")))
            seats.append(SeatHand(position, tuple(deck[3 + 3 * i:6 + 3 * i]), w, bool(w.ante) and rng.random() < .7))
        result = settle_round(preset, tuple(deck[:3]), seats, POSTED)
        order = sorted(seats, key=lambda s: -s.seat)
        if [s.seat for s in result.seats] != [s.seat for s in order]:
            problems.append(f"{preset.name}: settled in order {[s.seat for s in result.seats]}")
        for got, seat in zip(result.seats, order, strict=True):
            w = seat.wagers
            want, cut = settle_seat(sheet, deck[:3], seat.cards, w.ante, w.pair_plus, w.six_card_bonus, w.super6,
                                    seat.play, POSTED)
            if (want, cut) != (got.results, got.cap_reduction):
                problems.append(f"{preset.name} dealer {deck[:3]} {seat}: code {got.results} less "
                                f"{got.cap_reduction}, sheet {want} less {cut}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("presets", nargs="*", default=sorted(SHEETS))
    parser.add_argument("--rounds", type=int, default=20_000, help="random rounds per preset")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    failed = 0
    for name in args.presets:
        start, preset = time.perf_counter(), load_preset(name)
        problems = list(check_hands(preset, [tuple(parse_cards(d)) for d in DEALERS]))
        problems += random_rounds(preset, args.rounds, args.seed)
        for line in problems[:20]:
            print(line)
        print(f"{name}: {len(problems)} differences ({time.perf_counter() - start:.1f} s)")
        failed += len(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

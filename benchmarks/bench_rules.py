"""Rules-engine speed: evaluations, settlement and par sheets.

Run with ``benchmarks/run rules``. Prints one line per figure; the recorded
figures live in benchmarks/README.md. Every timing is the best of several
repeats on the same fixed, seeded inputs.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from controller.rules.cards import card_text
from controller.rules.hand3 import score3
from controller.rules.hand6 import evaluate6
from controller.rules.parsheet import par_sheet
from controller.rules.paytable import load_preset, preset_names
from controller.rules.settlement import SeatHand, Wagers, settle_round

REPEATS = 5


def best_rate(fn, items) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def deals(n: int, seed: int = 1) -> list[list[int]]:
    rng = random.Random(seed)
    deck = list(range(52))
    out = []
    for _ in range(n):
        rng.shuffle(deck)
        out.append(deck[:21])            # dealer + six seats
    return out


def bench_three(hands):
    for h in hands:
        score3(h)


def bench_six(hands):
    for h in hands:
        evaluate6(h)


def main() -> None:
    rows = deals(20_000)
    threes = [d[:3] for d in rows] * 5
    sixes = [d[:6] for d in rows] * 5
    print(f"three-card evaluations/s: {best_rate(bench_three, threes):,.0f}")
    ours = best_rate(bench_six, sixes)
    print(f"six-card evaluations/s (ours): {ours:,.0f}")
    try:
        from treys import Card, Evaluator
    except ImportError:
        print("six-card evaluations/s (treys): not installed (pip install '.[bench]')")
    else:
        evaluator = Evaluator()
        treys_hands = [[Card.new(card_text(c)) for c in h] for h in sixes]

        def bench_treys(hands):
            for h in hands:
                evaluator.evaluate(h[:3], h[3:])
        peer = best_rate(bench_treys, treys_hands)
        print(f"six-card evaluations/s (treys 0.1.8): {peer:,.0f}")
        print(f"six-card speed-up over treys: {ours / peer:.1f}x")

    p = load_preset("sheet-004")
    posted = {"mega": 25_000_000, "major": 5_000_000, "minor": 1_000_000}
    full = Wagers(ante=1000, pair_plus=500, six_card_bonus=500, super6=1000)
    rounds = [(d[:3], [SeatHand(s + 1, tuple(d[3 + 3 * s:6 + 3 * s]), full, s % 3 != 0)
                       for s in range(6)]) for d in rows[:10_000]]

    def bench_settle(items):
        for dealer, seats in items:
            settle_round(p, dealer, seats, posted)
    print(f"settle_round, six seats with all side bets, rounds/s: {best_rate(bench_settle, rounds):,.0f}")

    lines = "".join(json.dumps({
        "id": i, "dealer": " ".join(card_text(c) for c in dealer), "jackpots": posted,
        "seats": [{"seat": s.seat, "cards": " ".join(card_text(c) for c in s.cards), "play": s.play,
                   "wagers": s.wagers.as_dict()} for s in seats]}) + "\n"
        for i, (dealer, seats) in enumerate(rounds))
    script = Path(sys.executable).parent / "table-controller"
    start = time.perf_counter()
    done = subprocess.run([str(script), "settle", "--preset", "sheet-004"], input=lines,
                          capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - start
    assert done.stdout.count("\n") == len(rounds) and '"error"' not in done.stdout
    print(f"table-controller settle (JSON Lines, process start included), rounds/s: "
          f"{len(rounds) / elapsed:,.0f}")

    for name in preset_names():
        preset = load_preset(name)
        best = min(_timed(lambda p=preset: par_sheet(p)) for _ in range(3))
        print(f"par sheet {name}: {best:.3f} s")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()

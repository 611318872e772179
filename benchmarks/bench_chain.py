"""Where a round's time goes: the engine's events in order, the wait before each and its own time.

Runs ``table-controller run --autoplay`` in this process with ``Engine.handle`` timed (a wrapper
put on the class before the run starts: measurement only, nothing in the controller changes) and
prints, for each kind of event (a device event's class, a dealer action's name), how many come in a
round, how long the engine sat idle before each one (the time the devices, the players, the dealer
and the links took to answer what the engine had just done) and how long the engine spent on it
(deciding, journaling with its fsynced commit, sending, publishing).

A round is a chain: each of these events is caused by what the engine did for the one before it
(the sensors' reading of a stack the players placed after the last one was acknowledged, the hand
the shoe forms when asked, the dealer's touch on the snapshot it saw), so the sum of the two columns
is the round's time, and the rounds per second are bounded by it, not by any one part.

    .venv/bin/python benchmarks/bench_chain.py --rounds 400               # devices in this process
    .venv/bin/python benchmarks/bench_chain.py --rounds 400 --sim-apart   # devices in their own
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sim-apart", action="store_true", help="the simulated devices in a process of their own")
    args = parser.parse_args()

    from controller.cli import main as controller
    from controller.engine import Engine
    from controller.engine_events import DealerAction
    handled: list[tuple[float, float, str]] = []
    handle = Engine.handle

    cpu: list[float] = []               # the engine thread's CPU time in each handle (issue 30's figure)

    def timed(self: Engine, event: object) -> None:
        start, on_cpu = time.perf_counter(), time.thread_time()
        handle(self, event)
        cpu.append(time.thread_time() - on_cpu)
        handled.append((start, time.perf_counter(),
                        event.action if isinstance(event, DealerAction) else type(event).__name__))
    Engine.handle = timed   # type: ignore[method-assign]

    with tempfile.TemporaryDirectory(prefix="bench-chain-") as tmp, contextlib.redirect_stdout(io.StringIO()):
        started = time.perf_counter()
        controller(["run", "--autoplay", "--rounds", str(args.rounds), "--seed", str(args.seed), "--data-dir",
                    f"{tmp}/data", "--port", "0", "--log-format", "json", "--log-level", "warning",
                    *(["--sim-apart"] if args.sim_apart else [])])
        elapsed = time.perf_counter() - started
    steady = handled[len(handled) // 10:]          # start-up and the first rounds left out
    wait: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for (_, before_end, _), (start, end, name) in zip(steady, steady[1:], strict=False):
        wait[name] += start - before_end
        own[name] += end - start
        count[name] += 1
    rounds = count["open_betting"] or 1
    print(f"{args.rounds} rounds in {elapsed:.1f} s ({args.rounds / elapsed:.1f} a second, start-up included); "
          f"the table below: {rounds} rounds of the steady state, "
          f"{'devices apart' if args.sim_apart else 'one process'}")
    print("\n| event | per round | idle before it, ms a round (each, us) | the engine's time, ms a round (each, us) |")
    print("| --- | --- | --- | --- |")
    for name in sorted(count, key=lambda n: -(wait[n] + own[n])):
        print(f"| {name} | {count[name] / rounds:.2f} "
              f"| {wait[name] / rounds * 1e3:.2f} ({wait[name] / count[name] * 1e6:.0f}) "
              f"| {own[name] / rounds * 1e3:.2f} ({own[name] / count[name] * 1e6:.0f}) |")
    total_wait, total_own = sum(wait.values()) / rounds * 1e3, sum(own.values()) / rounds * 1e3
    print(f"| **a round** | {sum(count.values()) / rounds:.1f} | {total_wait:.1f} | {total_own:.1f} |")
    engine_cpu = sum(cpu[len(handled) // 10 + 1:]) / rounds * 1e3
    print(f"\nthe engine thread's CPU in Engine.handle: {engine_cpu:.2f} ms a round (of its {total_own:.1f} ms there; "
          "the rest is waiting: fsync, the interpreter lock)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

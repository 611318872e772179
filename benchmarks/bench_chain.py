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
    .venv/bin/python benchmarks/bench_chain.py --rounds 300 --compare main --repeats 3
    .venv/bin/python benchmarks/bench_chain.py --rounds 300 --profile /tmp/engine.prof

The engine's CPU per round is read two ways: inside ``Engine.handle`` (the events' own work, the
figure recorded since session 11) and the engine thread's whole CPU (``Engine.step``: also what it
does between events, such as drawing the snapshot a burst left unpublished). ``--compare REV`` runs
git revision REV (checked out in a temporary worktree, this checkout's .venv) and this tree
alternately, each in a fresh process, ``--repeats`` times each, so both are measured on the same
machine at the same time; it prints each run and the medians. ``--profile FILE`` writes cProfile
statistics of the engine thread alone (``Engine.step``), for ``python -m pstats FILE``.
``--synchronous NORMAL`` (measurement only, never a setting of the table) runs the benchmark's
journal without its fsync at each commit: the difference is what the durability costs the engine's
thread, which on a virtual machine is more than the fsync's own CPU (everything after the thread's
sleep in it runs slower).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import cProfile
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sim-apart", action="store_true", help="the simulated devices in a process of their own")
    parser.add_argument("--compare", metavar="REV", help="also measure this git revision, alternating, in one run")
    parser.add_argument("--repeats", type=int, default=3, help="with --compare: runs of each tree")
    parser.add_argument("--tree", type=Path, default=ROOT, help=argparse.SUPPRESS)   # the code measured
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)       # one line, for --compare
    parser.add_argument("--profile", metavar="FILE", help="cProfile statistics of the engine's thread")
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL",
                        help="measurement only: NORMAL runs the benchmark's journal without the fsync at each "
                             "commit, to tell the durability's cost from the engine's own work (the table "
                             "itself always runs FULL)")
    args = parser.parse_args()
    if args.compare:
        return compare(args)
    sys.path.insert(0, str(args.tree))
    return chain(args)


def compare(args: argparse.Namespace) -> int:
    """This tree and ``args.compare``, alternately, each run a fresh process of this script."""
    def run(tree: Path) -> dict:
        out = subprocess.run([sys.executable, __file__, "--rounds", str(args.rounds), "--seed", str(args.seed),
                              "--tree", str(tree), "--json", "--synchronous", args.synchronous,
                              *(["--sim-apart"] if args.sim_apart else [])],
                             cwd=tree, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])
    with tempfile.TemporaryDirectory(prefix="bench-chain-rev-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), args.compare],
                       check=True, capture_output=True)
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        rev = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        try:
            venv = tree / ".venv"
            if venv.is_symlink():           # a revision that committed a link of its own
                venv.unlink()
            os.symlink(ROOT / ".venv", venv)
            runs: dict[str, list[dict]] = {f"this ({head}, working tree)": [], f"{args.compare} ({rev})": []}
            for _ in range(args.repeats):
                for (name, results), where in zip(runs.items(), (ROOT, tree), strict=True):
                    results.append(run(where))
                    print(f"{name}: " + json.dumps(results[-1]), flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
    keys = ("engine_cpu_ms", "thread_cpu_ms", "handle_ms", "rounds_per_second")
    print(f"\nmedians of {args.repeats} runs each, {args.rounds} rounds, seed {args.seed}, alternating, "
          f"synchronous={args.synchronous}:\n")
    print("| figure | " + " | ".join(runs) + " | ratio |\n| --- |" + " --- |" * (len(runs) + 1))
    for key in keys:
        this, other = (statistics.median(r[key] for r in results) for results in runs.values())
        print(f"| {key} | {this:.2f} | {other:.2f} | {this / other:.2f} |")
    return 0


def chain(args: argparse.Namespace) -> int:
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

    thread_cpu: list[tuple[float, float]] = []     # (when, the engine thread's CPU) of each step
    step = Engine.step
    profile = cProfile.Profile() if args.profile else None

    def stepped(self: Engine, timeout: float | None = 0.0) -> bool:
        start, on_cpu = time.perf_counter(), time.thread_time()
        if profile is not None:
            profile.enable()
        try:
            return step(self, timeout)
        finally:
            if profile is not None:
                profile.disable()
            thread_cpu.append((start, time.thread_time() - on_cpu))
    Engine.step = stepped   # type: ignore[method-assign]
    if args.synchronous != "FULL":      # measurement only (see --help): this process's journal, after it opens
        from controller.store.journal import Journal
        opened = Journal.__init__

        def without_fsync(self: Journal, *a: object, **k: object) -> None:
            opened(self, *a, **k)   # type: ignore[arg-type]
            self.db.execute(f"PRAGMA synchronous={args.synchronous}")
        Journal.__init__ = without_fsync   # type: ignore[method-assign]

    with tempfile.TemporaryDirectory(prefix="bench-chain-") as tmp, contextlib.redirect_stdout(io.StringIO()):
        started = time.perf_counter()
        controller(["run", "--autoplay", "--rounds", str(args.rounds), "--seed", str(args.seed), "--data-dir",
                    f"{tmp}/data", "--port", "0", "--log-format", "json", "--log-level", "warning",
                    *(["--sim-apart"] if args.sim_apart else [])])
        elapsed = time.perf_counter() - started
    if profile is not None:
        profile.dump_stats(args.profile)
    steady = handled[len(handled) // 10:]          # start-up and the first rounds left out
    wait: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for (_, before_end, _), (start, end, name) in zip(steady, steady[1:], strict=False):
        wait[name] += start - before_end
        own[name] += end - start
        count[name] += 1
    rounds = count["open_betting"] or 1
    engine_cpu = sum(cpu[len(handled) // 10 + 1:]) / rounds * 1e3
    # the thread's steps over the same part of the run (a step's wait for its event costs no CPU)
    whole_cpu = sum(c for when, c in thread_cpu if when > steady[0][1]) / rounds * 1e3
    total_wait, total_own = sum(wait.values()) / rounds * 1e3, sum(own.values()) / rounds * 1e3
    if args.json:
        import controller
        print(json.dumps({"code": str(Path(controller.__file__).parent.parent), "rounds": args.rounds,
                          "seconds": round(elapsed, 2), "rounds_per_second": round(args.rounds / elapsed, 2),
                          "engine_cpu_ms": round(engine_cpu, 3), "thread_cpu_ms": round(whole_cpu, 3),
                          "handle_ms": round(total_own, 3), "idle_ms": round(total_wait, 3)}))
        return 0
    print(f"{args.rounds} rounds in {elapsed:.1f} s ({args.rounds / elapsed:.1f} a second, start-up included); "
          f"the table below: {rounds} rounds of the steady state, "
          f"{'devices apart' if args.sim_apart else 'one process'}")
    print("\n| event | per round | idle before it, ms a round (each, us) | the engine's time, ms a round (each, us) |")
    print("| --- | --- | --- | --- |")
    for name in sorted(count, key=lambda n: -(wait[n] + own[n])):
        print(f"| {name} | {count[name] / rounds:.2f} "
              f"| {wait[name] / rounds * 1e3:.2f} ({wait[name] / count[name] * 1e6:.0f}) "
              f"| {own[name] / rounds * 1e3:.2f} ({own[name] / count[name] * 1e6:.0f}) |")
    print(f"| **a round** | {sum(count.values()) / rounds:.1f} | {total_wait:.1f} | {total_own:.1f} |")
    print(f"\nthe engine thread's CPU in Engine.handle: {engine_cpu:.2f} ms a round (of its {total_own:.1f} ms there; "
          "the rest is waiting: fsync, the interpreter lock)")
    print(f"the engine thread's whole CPU (Engine.step): {whole_cpu:.2f} ms a round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
